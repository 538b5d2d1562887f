// omp_rows: kernels/rotate/rotate_omp.cpp with an OpenMP parallel for over output rows, compiled by the host
// compiler once per configuration.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
std::unique_ptr<Variant> make_omp_rows() {
  return make_variant({"omp_rows", "rotate", "openmp", "rotate/rotate_omp.cpp",
                       "OpenMP parallel for over output rows (schedule, chunk, threads as compile-time defines)",
                       omp_params(), [](const PlanContext& x) { return omp_plan(x, 0); }});
}

}  // namespace pimg::rotate
