// omp_rows: kernels/conv/conv_omp.cpp with an OpenMP parallel for over output rows (planar 3-channel
// images: over channel x rows), compiled by the host compiler once per configuration.
#include "conv/openmp_variants.hpp"

namespace pimg::conv {
std::unique_ptr<Variant> make_omp_rows() {
  return make_variant({"omp_rows", "conv", "openmp", "conv/conv_omp.cpp",
                       "OpenMP parallel for over output rows (planar: channel x rows); every knob a compile-time define but the thread count and chunk size, set before each launch",
                       omp_shared_parameters(),
                       [](const PlanContext& x) { return omp_conv_plan(x.workload, x.config, x.params, 0); }});
}

}  // namespace pimg::conv
