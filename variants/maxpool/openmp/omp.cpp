// omp_rows / omp_tiles: kernels/maxpool/maxpool_omp.cpp with an OpenMP parallel for over output rows of
// every plane, or collapse(2) over tiles; form chain or tree (seed 003) for the four-way maximum.
#include "maxpool/variants.hpp"

namespace pimg::maxpool {

void register_omp(Registry& reg) {
  for (const bool tiles : {false, true}) {
    std::vector<ParamDecl> params = pix::omp_params(tiles);
    params.push_back(text_choice("form", {"chain", "tree"}, "chain",
                                     "chain: max(max(max(a,b),c),d); tree: max(max(a,b),max(c,d)) (seed 003)"));
    reg.add_variant(make_variant(
        {tiles ? "omp_tiles" : "omp_rows", "maxpool", "openmp", "maxpool/maxpool_omp.cpp",
         tiles ? "OpenMP parallel for, collapse(2), over output tiles" : "OpenMP parallel for over output rows", params,
         [tiles](const PlanContext& x) {
           const Problem& p = x.problem;
           LaunchPlan plan = pix::omp_plan("maxpool_omp", x, tiles);
           plan.defines.emplace_back("FORM", x.text_knob("form") == "tree" ? "1" : "0");
           finish_plan(plan, p, 1, 1);
           return plan;
         }}));
  }
}

}  // namespace pimg::maxpool
