// selftest_crash (OpenCL) and selftest_crash_omp (OpenMP): harness self-tests whose kernels write
// through a wild pointer. An isolated run must store `crash` with the signal and go on.
#include "cl_common.hpp"
#include "openmp_variants.hpp"

namespace pimg::conv {

std::unique_ptr<Variant> make_selftest_crash() {
  return make_cl_selftest("selftest_crash", "selftest/crash.cl", "conv_crash",
                          "self-test: a kernel that writes through a wild pointer (must be stored as crash)");
}

std::unique_ptr<Variant> make_selftest_crash_omp() {
  return make_omp_selftest_variant("selftest_crash_omp", "selftest/crash_omp.cpp", "conv_crash_omp",
                                   "harness self-test: a kernel that writes through a wild pointer (expect crash)");
}

}  // namespace pimg::conv
