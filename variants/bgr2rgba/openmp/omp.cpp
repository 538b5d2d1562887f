// omp_rows / omp_tiles: kernels/bgr2rgba/bgr2rgba_omp.cpp with an OpenMP parallel for over rows, or
// collapse(2) over tile_x x tile_y tiles; threads, schedule, chunk, shuffle and stream as compile-time defines.
#include "bgr2rgba/variants.hpp"

namespace pimg::bgr2rgba {

void register_omp(Registry& reg) {
  for (const bool tiles : {false, true}) {
    std::vector<ParamDecl> params = pix::omp_params(tiles);
    params.push_back(int_range("shuffle", 1,
                                    "1: four pixels per 16-byte byte shuffle; 0: pixel loop left to the vectoriser; "
                                    "2: eight pixels per AVX2 vpermd + vpshufb; 3: sixteen pixels per AVX-512 VBMI "
                                    "vpermb, row ends by masked loads and stores (2 and 3 are compile errors where the "
                                    "host compiler does not target AVX2, AVX-512 VBMI)", 0, 3));
    params.push_back(int_choice("stream", 0,
                                    "1: non-temporal (streaming) aligned stores of the output, for images larger than "
                                    "the last-level cache; shuffle 2 or 3 only", {0, 1}));
    reg.add_variant(make_variant(
        {tiles ? "omp_tiles" : "omp_rows", "bgr2rgba", "openmp", "bgr2rgba/bgr2rgba_omp.cpp",
         tiles ? "OpenMP parallel for, collapse(2), over tile_x x tile_y tiles" : "OpenMP parallel for over rows",
         params, [tiles](const PlanContext& x) {
           const Problem& p = x.problem;
           LaunchPlan plan = pix::omp_plan("bgr2rgba_omp", x, tiles);
           const int shuffle = x.int_knob("shuffle");
           const int stream = x.int_knob("stream");
           if (stream && shuffle < 2) throw PlanError("stream 1 needs shuffle 2 or 3");
           plan.defines.emplace_back("SHUFFLE", std::to_string(shuffle));
           plan.defines.emplace_back("STREAM", std::to_string(stream));
           plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                        KernelArg::integer(p.height)};
           return plan;
         }}));
  }
}

}  // namespace pimg::bgr2rgba
