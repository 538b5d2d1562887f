// selftest_memory (OpenCL) and selftest_memory_omp (OpenMP): harness self-tests whose kernels want
// far more memory than the device has. An isolated run must store `crash` (the worker dies out of
// memory, docs/reliability.md) and go on.
#include "cl_common.hpp"
#include "openmp_variants.hpp"

namespace pimg::conv {

std::unique_ptr<Variant> make_selftest_memory() {
  return make_cl_selftest("selftest_memory", "selftest/memory.cl", "conv_memory",
                          "self-test: a kernel with a 1 GiB private array per work item (must be stored as crash)");
}

std::unique_ptr<Variant> make_selftest_memory_omp() {
  return make_omp_selftest_variant("selftest_memory_omp", "selftest/memory_omp.cpp", "conv_memory_omp",
                                   "harness self-test: allocates until memory runs out, then aborts (expect crash)");
}

}  // namespace pimg::conv
