// bgr2rgba's library baseline: NPP's nppiSwapChannels_8u_C3C4R_Ctx (libnppidei) with aDstOrder {2, 1, 0, 3}
// (destination R G B from source channels 2 1 0 of B G R) and nValue = the problem's alpha, which NPP
// writes to every destination channel whose order entry is 3. Plan args: in, out, width, height, alpha.
#include <fmt/format.h>

#include "cuda_library.hpp"

namespace pimg::cuda {
namespace {

using SwapC3C4Fn = NppStatus (*)(const unsigned char* src, int src_step, unsigned char* dst, int dst_step,
                                 NppiSize roi, const int dst_order[4], unsigned char value, NppStreamContext ctx);

class SwapChannelsC3C4 final : public LibraryCall {
 public:
  explicit SwapChannelsC3C4(const LaunchPlan& plan)
      : fn_(npp_function<SwapC3C4Fn>("libnppidei.so.13", "nppiSwapChannels_8u_C3C4R_Ctx")) {
    if (plan.args.size() != 5) throw std::runtime_error("npp_swap_channels_c3c4: args are in, out, width, height, alpha");
    width_ = static_cast<int>(plan.args[2].i);
    height_ = static_cast<int>(plan.args[3].i);
    const std::int64_t alpha = plan.args[4].i;
    if (width_ <= 0 || height_ <= 0 || alpha < 0 || alpha > 255)
      throw std::runtime_error(fmt::format("npp_swap_channels_c3c4: bad size {}x{} or alpha {}", width_, height_, alpha));
    alpha_ = static_cast<unsigned char>(alpha);
  }

  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    static constexpr int kOrder[4] = {2, 1, 0, 3};
    const auto* in = reinterpret_cast<const unsigned char*>(pointer(buffers, "in"));
    auto* out = reinterpret_cast<unsigned char*>(pointer(buffers, "out"));
    check_npp(fn_(in, 3 * width_, out, 4 * width_, NppiSize{width_, height_}, kOrder, alpha_, env.npp),
              "nppiSwapChannels_8u_C3C4R_Ctx");
  }

 private:
  SwapC3C4Fn fn_;
  int width_ = 0, height_ = 0;
  unsigned char alpha_ = 255;
};

}  // namespace

std::unique_ptr<LibraryCall> make_npp_swap_channels_c3c4(const LaunchPlan& plan) {
  return std::make_unique<SwapChannelsC3C4>(plan);
}

}  // namespace pimg::cuda
