// selftest_hang (OpenCL) and selftest_hang_omp (OpenMP): harness self-tests whose kernels never
// return. An isolated run must kill the worker at measure.timeout_s and store `timeout`.
#include "cl_common.hpp"
#include "openmp_variants.hpp"

namespace pimg::conv {

std::unique_ptr<Variant> make_selftest_hang() {
  return make_cl_selftest("selftest_hang", "selftest/hang.cl", "conv_hang",
                          "self-test: a kernel that never returns (must be stored as timeout)");
}

std::unique_ptr<Variant> make_selftest_hang_omp() {
  return make_omp_selftest_variant("selftest_hang_omp", "selftest/hang_omp.cpp", "conv_hang_omp",
                                   "harness self-test: a kernel that never returns (expect timeout)");
}

}  // namespace pimg::conv
