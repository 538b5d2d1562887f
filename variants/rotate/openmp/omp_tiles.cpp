// omp_tiles: kernels/rotate/rotate_omp.cpp with an OpenMP parallel for, collapse(2), over tile_x x tile_y
// output tiles (whose rotated source regions stay in cache), compiled once per configuration.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

class OmpTiles final : public Variant {
 public:
  std::string name() const override { return "omp_tiles"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "rotate/rotate_omp.cpp"; }
  std::string help() const override {
    return "OpenMP parallel for, collapse(2), over tile_x x tile_y output tiles (schedule, chunk, threads)";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> params = {int_range("tile_x", 64, "tile width in output pixels", 1, 1 << 16),
                                     int_range("tile_y", 16, "tile height in output rows", 1, 1 << 16)};
    for (auto& d : omp_params()) params.push_back(std::move(d));
    return params;
  }
  LaunchPlan plan(const PlanContext& x) const override {
    const Workload& w = x.workload;
    const Config& c = x.config;
    const auto params = parameters();
    const int tile_x = knob(c, params, "tile_x"), tile_y = knob(c, params, "tile_y");
    LaunchPlan plan = omp_plan(w, c, 1);
    plan.defines.emplace_back("TILE_X", std::to_string(tile_x));
    plan.defines.emplace_back("TILE_Y", std::to_string(tile_y));
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_omp_tiles() { return std::make_unique<OmpTiles>(); }

}  // namespace pimg::rotate
