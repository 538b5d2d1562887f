// flip's library baseline: NPP's nppiMirror_8u_C1R_Ctx / _C3R_Ctx (libnppig) about NPP_VERTICAL_AXIS
// (x -> width-1-x). Interleaved 3-channel images take C3R; 1-channel images, and each plane of a planar
// 3-channel image, take C1R (NPP has no planar mirror; the three calls are timed together).
// Plan args: in, out, width, height, planes, samples per pixel.
#include <fmt/format.h>

#include "cuda_library.hpp"

namespace pimg::cuda {
namespace {

using MirrorFn = NppStatus (*)(const unsigned char* src, int src_step, unsigned char* dst, int dst_step, NppiSize roi,
                               int axis, NppStreamContext ctx);
constexpr int kNppVerticalAxis = 1;  // NppiAxis: NPP_HORIZONTAL_AXIS 0, NPP_VERTICAL_AXIS 1, NPP_BOTH_AXIS 2

class Mirror final : public LibraryCall {
 public:
  explicit Mirror(const LaunchPlan& plan) {
    if (plan.args.size() != 6)
      throw std::runtime_error("npp_mirror: args are in, out, width, height, planes, samples");
    width_ = static_cast<int>(plan.args[2].i);
    height_ = static_cast<int>(plan.args[3].i);
    planes_ = static_cast<int>(plan.args[4].i);
    samples_ = static_cast<int>(plan.args[5].i);
    if (width_ <= 0 || height_ <= 0 || (samples_ != 1 && samples_ != 3) || planes_ < 1 ||
        (samples_ == 3 && planes_ != 1))
      throw std::runtime_error(fmt::format("npp_mirror: cannot mirror {}x{} with {} planes of {} samples", width_,
                                           height_, planes_, samples_));
    const char* symbol = samples_ == 3 ? "nppiMirror_8u_C3R_Ctx" : "nppiMirror_8u_C1R_Ctx";
    fn_ = npp_function<MirrorFn>("libnppig.so.13", symbol);
    symbol_ = symbol;
  }

  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    const auto* in = reinterpret_cast<const unsigned char*>(pointer(buffers, "in"));
    auto* out = reinterpret_cast<unsigned char*>(pointer(buffers, "out"));
    const int step = width_ * samples_;
    const std::size_t plane = static_cast<std::size_t>(step) * static_cast<std::size_t>(height_);
    for (int k = 0; k < planes_; ++k)
      check_npp(fn_(in + k * plane, step, out + k * plane, step, NppiSize{width_, height_}, kNppVerticalAxis, env.npp),
                symbol_);
  }

 private:
  MirrorFn fn_ = nullptr;
  const char* symbol_ = "";
  int width_ = 0, height_ = 0, planes_ = 1, samples_ = 1;
};

}  // namespace

std::unique_ptr<LibraryCall> make_npp_mirror(const LaunchPlan& plan) { return std::make_unique<Mirror>(plan); }

}  // namespace pimg::cuda
