// rotate's library baseline: NPP's nppiRotate_8u_C1R_Ctx / _C3R_Ctx (libnppig), NPPI_INTER_NN for nearest and
// NPPI_INTER_LINEAR for bilinear, after
// nppiSet_8u_C1R_Ctx (libnppidei) has filled the whole output with the fill value: nppiRotate leaves outputs
// whose source lies outside the image untouched, and the evaluator poisons the output before every run, so
// the fill is part of the work; it is timed with the rotation (fill timed 1, the same output from a fresh
// buffer) or done just before the timed region (0: NPP's rotation alone, as for a caller who fills the
// destination once and rotates many images of one size into it). Planar 3-channel images take one C1R
// call per plane.
// Samples of 2 bytes (nppiRotate_16u_C1R_Ctx, nppiSet_16u_C1R_Ctx) serve tests/cuda RotateNppProbe.
// NPP rotates about the origin and then shifts: the plan carries the angle and the shift (variants/rotate).
// Plan args: in, out, width, height, planes, samples, interp, fill, depth, angle, shift x, shift y, fill timed.
#include <fmt/format.h>

#include <cstdint>

#include "cuda_library.hpp"
#include "rotate/rotate_rule.h"

namespace pimg::cuda {
namespace {

struct NppiRect {  // nppdefs.h
  int x, y, width, height;
};
constexpr int kNppiInterNn = 1, kNppiInterLinear = 2;  // NppiInterpolationMode of nppdefs.h

using RotateFn = NppStatus (*)(const void* src, NppiSize src_size, int src_step, NppiRect src_roi, void* dst,
                               int dst_step, NppiRect dst_roi, double angle, double shift_x, double shift_y,
                               int interpolation, NppStreamContext ctx);
using Set8Fn = NppStatus (*)(std::uint8_t value, void* dst, int dst_step, NppiSize roi, NppStreamContext ctx);
using Set16Fn = NppStatus (*)(std::uint16_t value, void* dst, int dst_step, NppiSize roi, NppStreamContext ctx);

class Rotate final : public LibraryCall {
 public:
  explicit Rotate(const LaunchPlan& plan) {
    if (plan.args.size() != 13)
      throw std::runtime_error(
          "npp_rotate: args are in, out, width, height, planes, samples, interp, fill, depth, angle, shift x, shift y, "
          "fill timed");
    fill_timed_ = plan.args[12].i != 0;
    width_ = static_cast<int>(plan.args[2].i);
    height_ = static_cast<int>(plan.args[3].i);
    planes_ = static_cast<int>(plan.args[4].i);
    samples_ = static_cast<int>(plan.args[5].i);
    const auto interp = plan.args[6].i;
    if (interp != PIMG_ROT_NEAREST && interp != PIMG_ROT_BILINEAR)
      throw std::runtime_error(fmt::format("npp_rotate: no interpolation {}", interp));
    interpolation_ = interp == PIMG_ROT_NEAREST ? kNppiInterNn : kNppiInterLinear;
    fill_ = plan.args[7].i;
    depth_ = static_cast<int>(plan.args[8].i);
    angle_ = plan.args[9].f;
    shift_x_ = plan.args[10].f;
    shift_y_ = plan.args[11].f;
    if (width_ <= 0 || height_ <= 0 || (samples_ != 1 && samples_ != 3) || planes_ < 1 ||
        (samples_ == 3 && planes_ != 1) || (depth_ != 1 && depth_ != 2) || (depth_ == 2 && samples_ != 1))
      throw std::runtime_error(fmt::format("npp_rotate: cannot rotate {}x{} with {} planes of {} samples of {} bytes",
                                           width_, height_, planes_, samples_, depth_));
    if (fill_ < 0 || fill_ >= (depth_ == 1 ? 256 : 65536))
      throw std::runtime_error(fmt::format("npp_rotate: fill {} does not fit a sample", fill_));
    const bool c3 = samples_ == 3;
    symbol_ = depth_ == 2 ? "nppiRotate_16u_C1R_Ctx" : c3 ? "nppiRotate_8u_C3R_Ctx" : "nppiRotate_8u_C1R_Ctx";
    rotate_ = npp_function<RotateFn>("libnppig.so.13", symbol_);
    if (depth_ == 1)
      set8_ = npp_function<Set8Fn>("libnppidei.so.13", "nppiSet_8u_C1R_Ctx");
    else
      set16_ = npp_function<Set16Fn>("libnppidei.so.13", "nppiSet_16u_C1R_Ctx");
  }

  void prepare(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    if (!fill_timed_) fill(env, buffers);
  }

  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    if (fill_timed_) fill(env, buffers);
    auto* in = reinterpret_cast<const std::uint8_t*>(pointer(buffers, "in"));
    auto* out = reinterpret_cast<std::uint8_t*>(pointer(buffers, "out"));
    const int step = width_ * samples_ * depth_;  // bytes per row
    const NppiSize size{width_, height_};
    const NppiRect roi{0, 0, width_, height_};
    const std::size_t plane = static_cast<std::size_t>(step) * static_cast<std::size_t>(height_);
    for (int k = 0; k < planes_; ++k)
      check_npp(rotate_(in + k * plane, size, step, roi, out + k * plane, step, roi, angle_, shift_x_, shift_y_,
                        interpolation_, env.npp),
                symbol_);
  }

 private:
  // The whole output as one image of width * samples samples and height * planes rows, set to the fill.
  void fill(const LibraryEnv& env, const DevicePointers& buffers) const {
    auto* out = reinterpret_cast<std::uint8_t*>(pointer(buffers, "out"));
    const int step = width_ * samples_ * depth_;
    const NppiSize all{width_ * samples_, height_ * planes_};
    if (set8_)
      check_npp(set8_(static_cast<std::uint8_t>(fill_), out, step, all, env.npp), "nppiSet_8u_C1R_Ctx");
    else
      check_npp(set16_(static_cast<std::uint16_t>(fill_), out, step, all, env.npp), "nppiSet_16u_C1R_Ctx");
  }

  RotateFn rotate_ = nullptr;
  Set8Fn set8_ = nullptr;
  Set16Fn set16_ = nullptr;
  const char* symbol_ = "";
  int width_ = 0, height_ = 0, planes_ = 1, samples_ = 1, depth_ = 1, interpolation_ = 1;
  bool fill_timed_ = true;
  std::int64_t fill_ = 0;
  double angle_ = 0, shift_x_ = 0, shift_y_ = 0;
};

}  // namespace

std::unique_ptr<LibraryCall> make_npp_rotate(const LaunchPlan& plan) { return std::make_unique<Rotate>(plan); }

}  // namespace pimg::cuda
