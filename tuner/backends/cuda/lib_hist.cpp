// Library baselines of the hist family (cuda_library.hpp):
//   cub_histogram_even  args in, out; width, height, channels: cub::DeviceHistogram::HistogramEven
//                       (MultiHistogramEven<3, 3> for 3 interleaved channels) from libpimg_cub.so;
//   npp_histogram_even  the same arguments: nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx (libnppist), 257
//                       even levels over [0, 256), NPP's scratch allocated once per configuration, outside the timed region (prepare).
// Both write every bin, which is the family's definition, so they are compared exactly.
#include <fmt/format.h>

#include "cub_api.hpp"
#include "cuda_library.hpp"

namespace pimg::cuda {
namespace {

using HistSizeC1 = NppStatus (*)(NppiSize roi, int levels, std::size_t* bytes, NppStreamContext ctx);
using HistSizeC3 = NppStatus (*)(NppiSize roi, int levels[3], std::size_t* bytes, NppStreamContext ctx);
using HistEvenC1 = NppStatus (*)(const unsigned char* src, int step, NppiSize roi, int* hist, int levels, int lower,
                                 int upper, unsigned char* buffer, NppStreamContext ctx);
using HistEvenC3 = NppStatus (*)(const unsigned char* src, int step, NppiSize roi, int* hist[3], int levels[3],
                                 int lower[3], int upper[3], unsigned char* buffer, NppStreamContext ctx);
constexpr const char* kNppist = "libnppist.so.13";

// The plan's (in, out, width, height, channels).
struct HistArgs {
  std::string in, out;
  int width = 0, height = 0, channels = 1;
};

HistArgs hist_args(const LaunchPlan& plan, const char* call) {
  const auto& a = plan.args;
  if (a.size() != 5 || a[0].kind != ArgKind::Buffer || a[1].kind != ArgKind::Buffer || a[2].kind != ArgKind::Int ||
      a[3].kind != ArgKind::Int || a[4].kind != ArgKind::Int || (a[4].i != 1 && a[4].i != 3) || a[2].i <= 0 ||
      a[3].i <= 0)
    throw std::runtime_error(fmt::format("{}: the plan's arguments must be in, out, width, height, channels 1|3", call));
  return {a[0].buffer, a[1].buffer, static_cast<int>(a[2].i), static_cast<int>(a[3].i), static_cast<int>(a[4].i)};
}

class CubHistogram final : public LibraryCall {
 public:
  explicit CubHistogram(const LaunchPlan& plan) : args_(hist_args(plan, "cub_histogram_even")), cub_(load_cub()) {}
  void prepare(const LibraryEnv&, const LaunchPlan&, const DevicePointers&) override {
    check_cub(*cub_, cub_->histogram_prepare(1LL * args_.width * args_.height, args_.channels),
              "cub::DeviceHistogram (scratch)");
  }
  void run(const LibraryEnv&, const LaunchPlan&, const DevicePointers& buffers) override {
    check_cub(*cub_, cub_->histogram_even(reinterpret_cast<const unsigned char*>(pointer(buffers, args_.in)),
                                          reinterpret_cast<unsigned*>(pointer(buffers, args_.out)),
                                          1LL * args_.width * args_.height, args_.channels),
              "cub::DeviceHistogram");
  }

 private:
  HistArgs args_;
  const CubApi* cub_;
};

class NppHistogram final : public LibraryCall {
 public:
  explicit NppHistogram(const LaunchPlan& plan)
      : args_(hist_args(plan, "npp_histogram_even")),
        size_c1_(npp_function<HistSizeC1>(kNppist, "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx")),
        size_c3_(npp_function<HistSizeC3>(kNppist, "nppiHistogramEvenGetBufferSize_8u_C3R_Ctx")),
        even_c1_(npp_function<HistEvenC1>(kNppist, "nppiHistogramEven_8u_C1R_Ctx")),
        even_c3_(npp_function<HistEvenC3>(kNppist, "nppiHistogramEven_8u_C3R_Ctx")) {}
  ~NppHistogram() override {
    if (scratch_) driver().cuMemFree(scratch_);
  }
  NppHistogram(const NppHistogram&) = delete;
  NppHistogram& operator=(const NppHistogram&) = delete;

  // NPP's scratch, sized and allocated before the first run, outside the timed region; kept for the later runs.
  void prepare(const LibraryEnv& env, const LaunchPlan&, const DevicePointers&) override {
    if (scratch_) return;
    const NppiSize roi{args_.width, args_.height};
    int levels[3] = {257, 257, 257};
    std::size_t bytes = 0;
    if (args_.channels == 1)
      check_npp(size_c1_(roi, 257, &bytes, env.npp), "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx");
    else
      check_npp(size_c3_(roi, levels, &bytes, env.npp), "nppiHistogramEvenGetBufferSize_8u_C3R_Ctx");
    if (driver().cuMemAlloc(&scratch_, bytes ? bytes : 1) != CUDA_SUCCESS)
      throw std::runtime_error(fmt::format("cuMemAlloc of {} bytes for NPP's histogram", bytes));
  }
  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    if (!scratch_) throw std::runtime_error("nppiHistogramEven: run before prepare (no scratch)");
    const NppiSize roi{args_.width, args_.height};
    int levels[3] = {257, 257, 257}, lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
    const auto* src = reinterpret_cast<const unsigned char*>(pointer(buffers, args_.in));
    int* bins = reinterpret_cast<int*>(pointer(buffers, args_.out));
    auto* scratch = reinterpret_cast<unsigned char*>(scratch_);
    if (args_.channels == 1) {
      check_npp(even_c1_(src, args_.width, roi, bins, 257, 0, 256, scratch, env.npp), "nppiHistogramEven_8u_C1R_Ctx");
      return;
    }
    int* hists[3] = {bins, bins + 256, bins + 512};
    check_npp(even_c3_(src, args_.width * 3, roi, hists, levels, lower, upper, scratch, env.npp),
              "nppiHistogramEven_8u_C3R_Ctx");
  }

 private:
  static const DriverApi& driver() {
    std::string error;
    const DriverApi* api = driver_api(error);
    if (!api) throw std::runtime_error(error);
    return *api;
  }
  HistArgs args_;
  HistSizeC1 size_c1_;
  HistSizeC3 size_c3_;
  HistEvenC1 even_c1_;
  HistEvenC3 even_c3_;
  CUdeviceptr scratch_ = 0;
};

}  // namespace

std::unique_ptr<LibraryCall> make_cub_histogram_even(const LaunchPlan& plan) {
  return std::make_unique<CubHistogram>(plan);
}
std::unique_ptr<LibraryCall> make_npp_histogram_even(const LaunchPlan& plan) {
  return std::make_unique<NppHistogram>(plan);
}

}  // namespace pimg::cuda
