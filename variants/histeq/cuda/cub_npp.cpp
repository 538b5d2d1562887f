// cub_npp: the CUDA library baseline of histeq, run by the CUDA backend's library-call table
// (tuner/backends/cuda/histeq_library.cpp): CUB's HistogramEven into a device histogram, the family
// rule's LUT kernel (both from libpimg_cub.so), then NPP's nppiLUTPalette_8u_C1R_Ctx mapping every
// byte through the 256-entry table (the palette form is a plain table lookup, the LUT's semantics).
#include "histeq/histeq_family.hpp"
#include "common/native_libraries.hpp"
#include "pimg/registry.hpp"

namespace pimg::histeq {
namespace {

class CubNpp final : public Variant {
 public:
  std::string name() const override { return "cub_npp"; }
  std::string family() const override { return "histeq"; }
  std::string backend() const override { return "cuda"; }
  std::string source() const override { return ""; }
  std::optional<NativeCall> native() const override { return NativeCall{"histeq_cub_npp", native::kCudaLibraries}; }
  std::string help() const override {
    return "CUB HistogramEven + the rule's LUT kernel + NPP nppiLUTPalette_8u_C1R_Ctx (library baseline)";
  }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  // args: in, out, width, height; scratch: hist (256 uint32), lut (256 bytes).
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    LaunchPlan plan;
    plan.entry = "histeq_cub_npp";
    plan.scratch = {{"hist", 256 * sizeof(std::uint32_t)}, {"lut", 256}};
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::buf("hist"), KernelArg::buf("lut"),
                 KernelArg::integer(p.width), KernelArg::integer(p.height)};
    return plan;
  }
};

}  // namespace

std::unique_ptr<Variant> make_cub_npp() { return std::make_unique<CubNpp>(); }

}  // namespace pimg::histeq
