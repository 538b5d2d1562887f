// omp_tiles: kernels/rotate/rotate_omp.cpp with an OpenMP parallel for, collapse(2), over tile_x x tile_y
// output tiles (whose rotated source regions stay in cache), compiled once per configuration.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
std::unique_ptr<Variant> make_omp_tiles() {
  std::vector<ParamDecl> params = {int_range("tile_x", 64, "tile width in output pixels", 1, 1 << 16),
                                   int_range("tile_y", 16, "tile height in output rows", 1, 1 << 16)};
  for (auto& d : omp_params()) params.push_back(std::move(d));
  return make_variant({"omp_tiles", "rotate", "openmp", "rotate/rotate_omp.cpp",
                       "OpenMP parallel for, collapse(2), over tile_x x tile_y output tiles (schedule, chunk, threads)",
                       params, [](const PlanContext& x) {
                         const int tile_x = x.int_knob("tile_x"), tile_y = x.int_knob("tile_y");
                         LaunchPlan plan = omp_plan(x, 1);
                         plan.defines.emplace_back("TILE_X", std::to_string(tile_x));
                         plan.defines.emplace_back("TILE_Y", std::to_string(tile_y));
                         return plan;
                       }});
}

}  // namespace pimg::rotate
