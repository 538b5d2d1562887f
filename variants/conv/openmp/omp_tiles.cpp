// omp_tiles: kernels/conv/conv_omp.cpp with an OpenMP parallel for, collapse(2), over tile_x x tile_y
// tiles of output pixels, compiled by the host compiler once per configuration.
#include <fmt/format.h>

#include "conv/openmp_variants.hpp"
#include "conv/variant_base.hpp"

namespace pimg::conv {
std::unique_ptr<Variant> make_omp_tiles() {
  std::vector<ParamDecl> params = {
      int_range("tile_x", 64, "tile width in output pixels", 1, 1 << 20),
      int_range("tile_y", 16, "tile height in output rows", 1, 1 << 20),
  };
  for (auto& d : omp_shared_parameters()) params.push_back(std::move(d));
  return make_variant({"omp_tiles", "conv", "openmp", "conv/conv_omp.cpp",
                       "OpenMP parallel for, collapse(2), over tile_x x tile_y output tiles; every knob a compile-time define but the thread count and chunk size, set before each launch",
                       params, [](const PlanContext& x) {
                         const std::int64_t tile_x = omp_int_param(x.config, x.params, "tile_x");
                         const std::int64_t tile_y = omp_int_param(x.config, x.params, "tile_y");
                         LaunchPlan plan = omp_conv_plan(x.workload, x.config, x.params, 1);
                         add_define(plan, "TILE_X", std::to_string(tile_x));
                         add_define(plan, "TILE_Y", std::to_string(tile_y));
                         return plan;
                       }});
}

}  // namespace pimg::conv
