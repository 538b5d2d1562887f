// CUDA library baselines run by the CUDA backend as native calls (native/
// cub_histogram_even.cpp, npp_histogram_even.cpp): cub_histogram (cub::DeviceHistogram::HistogramEven, MultiHistogramEven<3, 3> for 3
// channels, from libpimg_cub.so) and npp_histogram (nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx). Both
// count 256 even levels [v, v + 1) per channel, the family's own definition, so they are compared exactly.
#include "hist/gpu_common.hpp"
#include "common/native_libraries.hpp"

namespace pimg::hist {
namespace {

std::unique_ptr<Variant> library_variant(std::string name, std::string call, std::string help) {
  return make_variant({name, "hist", "cuda", NativeCall{call, native::kCudaLibraries}, std::move(help), {},
                       [name, call](const PlanContext& x) {  // args: in, out, width, height, channels
                         const Problem& p = x.problem;
                         interleaved_only(p, name);
                         LaunchPlan plan;
                         plan.entry = call;
                         for (const auto& [k, v] : x.workload.defines) plan.defines.emplace_back(k, v);
                         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                                      KernelArg::integer(p.height), KernelArg::integer(p.channels)};
                         return plan;
                       },
                       true});
}

}  // namespace

std::unique_ptr<Variant> make_cub_histogram() {
  return library_variant(
      "cub_histogram", "cub_histogram_even",
      "CUB cub::DeviceHistogram::HistogramEven (MultiHistogramEven<3,3> for 3 channels) from libpimg_cub.so (baseline)");
}

std::unique_ptr<Variant> make_npp_histogram() {
  return library_variant("npp_histogram", "npp_histogram_even", "NVIDIA NPP nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx (baseline)");
}

}  // namespace pimg::hist
