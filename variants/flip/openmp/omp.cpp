// omp_rows / omp_tiles: kernels/flip/flip_omp.cpp with an OpenMP parallel for over rows of every plane,
// or collapse(2) over tiles; inplace=1 copies each task's rows into the output and swaps there (seed 002),
// inplace=0 writes the mirrored rows directly.
#include "flip/variants.hpp"

namespace pimg::flip {

void register_omp(Registry& reg) {
  for (const bool tiles : {false, true}) {
    std::vector<ParamDecl> params = pix::omp_params(tiles);
    params.push_back(int_choice("inplace", 0, "0: out of place; 1: copy, then swap pixel pairs in place (timed together)", {0, 1}));
    params.push_back(int_choice("shuffle", 1, "out of place: 1 mirrors 16 pixels per group of byte shuffles; 0 pixel by pixel", {0, 1}));
    reg.add_variant(make_variant(
        {tiles ? "omp_tiles" : "omp_rows", "flip", "openmp", "flip/flip_omp.cpp",
         tiles ? "OpenMP parallel for, collapse(2), over tiles; out of place or copy + in-place swap"
               : "OpenMP parallel for over rows; out of place or copy + in-place swap",
         params, [tiles](const PlanContext& x) {
           const Problem& p = x.problem;
           LaunchPlan plan = pix::omp_plan("flip_omp", x, tiles);
           plan.defines.emplace_back("INPLACE", std::to_string(x.int_knob("inplace")));
           plan.defines.emplace_back("SHUFFLE", std::to_string(x.int_knob("shuffle")));
           plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                        KernelArg::integer(p.height)};
           return plan;
         }}));
  }
}

}  // namespace pimg::flip
