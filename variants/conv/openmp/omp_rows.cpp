// omp_rows: kernels/conv/conv_omp.cpp with an OpenMP parallel for over output rows (planar 3-channel
// images: over channel x rows), compiled by the host compiler once per configuration.
#include "conv/openmp_variants.hpp"

namespace pimg::conv {
namespace {

class OmpRows final : public Variant {
 public:
  std::string name() const override { return "omp_rows"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "conv/conv_omp.cpp"; }
  std::string help() const override {
    return "OpenMP parallel for over output rows (planar: channel x rows); every knob a compile-time define but the thread count and chunk size, set before each launch";
  }
  std::vector<ParamDecl> parameters() const override { return omp_shared_parameters(); }
  LaunchPlan plan(const PlanContext& x) const override {
    const Workload& w = x.workload;
    const Config& c = x.config;
    return omp_conv_plan(w, c, parameters(), 0);
  }
};

}  // namespace

std::unique_ptr<Variant> make_omp_rows() { return std::make_unique<OmpRows>(); }

}  // namespace pimg::conv
