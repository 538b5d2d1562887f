// omp_rows: kernels/rotate/rotate_omp.cpp with an OpenMP parallel for over output rows, compiled by the host
// compiler once per configuration.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
namespace {

class OmpRows final : public Variant {
 public:
  std::string name() const override { return "omp_rows"; }
  std::string family() const override { return "rotate"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "rotate/rotate_omp.cpp"; }
  std::string help() const override {
    return "OpenMP parallel for over output rows (schedule, chunk, threads as compile-time defines)";
  }
  std::vector<ParamDecl> parameters() const override { return omp_params(); }
  LaunchPlan plan(const PlanContext& x) const override {
    const Workload& w = x.workload;
    const Config& c = x.config;
    return omp_plan(w, c, 0);
  }
};

}  // namespace

std::unique_ptr<Variant> make_omp_rows() { return std::make_unique<OmpRows>(); }

}  // namespace pimg::rotate
