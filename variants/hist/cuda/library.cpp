// CUDA library baselines run by the CUDA backend as native calls (native/
// cub_histogram_even.cpp, npp_histogram_even.cpp): cub_histogram (cub::DeviceHistogram::HistogramEven, MultiHistogramEven<3, 3> for 3
// channels, from libpimg_cub.so) and npp_histogram (nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx). Both
// count 256 even levels [v, v + 1) per channel, the family's own definition, so they are compared exactly.
#include "hist/gpu_common.hpp"
#include "common/native_libraries.hpp"

namespace pimg::hist {
namespace {

class LibraryVariant final : public Variant {
 public:
  LibraryVariant(std::string name, std::string call, std::string help)
      : name_(std::move(name)), call_(std::move(call)), help_(std::move(help)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "hist"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return ""; }
  std::optional<NativeCall> native() const override { return NativeCall{call_, native::kCudaLibraries}; }
  std::string help() const override { return help_; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  // args: in, out, width, height, channels
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    const Workload& w = x.workload;
    interleaved_only(p, name_);
    LaunchPlan plan;
    plan.entry = call_;
    for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width), KernelArg::integer(p.height),
                 KernelArg::integer(p.channels)};
    return plan;
  }

 private:
  std::string name_, call_, help_;
};

}  // namespace

std::unique_ptr<Variant> make_cub_histogram() {
  return std::make_unique<LibraryVariant>(
      "cub_histogram", "cub_histogram_even",
      "CUB cub::DeviceHistogram::HistogramEven (MultiHistogramEven<3,3> for 3 channels) from libpimg_cub.so (baseline)");
}

std::unique_ptr<Variant> make_npp_histogram() {
  return std::make_unique<LibraryVariant>("npp_histogram", "npp_histogram_even",
                                          "NVIDIA NPP nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx (baseline)");
}

}  // namespace pimg::hist
