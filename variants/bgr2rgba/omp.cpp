// omp_rows / omp_tiles: kernels/bgr2rgba/bgr2rgba_omp.cpp with an OpenMP parallel for over rows, or
// collapse(2) over tile_x x tile_y tiles; threads, schedule, chunk and shuffle as compile-time defines.
#include "variants.hpp"

namespace pimg::bgr2rgba {

void register_omp(Registry& reg) {
  for (const bool tiles : {false, true}) {
    std::vector<ParamDecl> params = pix::omp_params(tiles);
    params.push_back(pix::int_param("shuffle", 1, "1: four pixels per 16-byte byte shuffle; 0: pixel loop left to the vectoriser"));
    reg.add_variant(pix::make_variant(
        {tiles ? "omp_tiles" : "omp_rows", "bgr2rgba", "openmp", "bgr2rgba/bgr2rgba_omp.cpp",
         tiles ? "OpenMP parallel for, collapse(2), over tile_x x tile_y tiles" : "OpenMP parallel for over rows",
         params, [params, tiles](const Problem& p, const Workload& w, const Config& c, const DeviceInfo&) {
           LaunchPlan plan = pix::omp_plan("bgr2rgba_omp", w, c, params, tiles);
           plan.defines.emplace_back("SHUFFLE", std::to_string(pix::int_knob(c, params, "shuffle", 0, 1)));
           plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                        KernelArg::integer(p.height)};
           return plan;
         }}));
  }
}

}  // namespace pimg::bgr2rgba
