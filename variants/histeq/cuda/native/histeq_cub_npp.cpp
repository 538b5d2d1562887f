// Library baseline of the histeq family (cuda_library.hpp): histeq_cub_npp, args in, out, hist, lut;
// width, height. CUB's HistogramEven into the scratch histogram and the family rule's LUT kernel (both
// from libpimg_cub.so: hist's cub_histogram.cu, histeq_lut.cu), then nppiLUTPalette_8u_C1R_Ctx (libnppicc),
// which maps every byte through a 2^8-entry device table: the LUT's semantics (nppiLUT_8u_C1R maps level
// intervals instead).
#include <fmt/format.h>

#include "cub_api.hpp"
#include "cuda_library.hpp"
#include "hist/cuda/native/cub_histogram.h"
#include "histeq_lut.h"

namespace pimg::cuda {
namespace {

using LutPalette = NppStatus (*)(const unsigned char* src, int src_step, unsigned char* dst, int dst_step, NppiSize roi,
                                 const unsigned char* table, int bits, NppStreamContext ctx);

class CubNppHisteq final : public LibraryCall {
 public:
  explicit CubNppHisteq(const LaunchPlan& plan)
      : cub_(load_cub()),
        even_(cub_function<decltype(&pimg_cub_histogram_even)>(*cub_, "pimg_cub_histogram_even")),
        prepare_(cub_function<decltype(&pimg_cub_histogram_prepare)>(*cub_, "pimg_cub_histogram_prepare")),
        lut_(cub_function<decltype(&pimg_cub_histeq_lut)>(*cub_, "pimg_cub_histeq_lut")),
        lut_palette_(npp_function<LutPalette>("libnppicc.so.13", "nppiLUTPalette_8u_C1R_Ctx")) {
    const auto& a = plan.args;
    if (a.size() != 6 || a[4].kind != ArgKind::Int || a[5].kind != ArgKind::Int || a[4].i <= 0 || a[5].i <= 0)
      throw std::runtime_error("histeq_cub_npp: the plan's arguments must be in, out, hist, lut, width, height");
    for (int i = 0; i < 4; ++i) {
      if (a[i].kind != ArgKind::Buffer) throw std::runtime_error("histeq_cub_npp: arguments 1-4 must be buffers");
      names_[i] = a[i].buffer;
    }
    width_ = static_cast<int>(a[4].i);
    height_ = static_cast<int>(a[5].i);
  }
  void prepare(const LibraryEnv&, const LaunchPlan&, const DevicePointers&) override {
    check_cub(*cub_, prepare_(1LL * width_ * height_, 1), "cub::DeviceHistogram (scratch)");
  }
  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    const auto* in = reinterpret_cast<const unsigned char*>(pointer(buffers, names_[0]));
    auto* out = reinterpret_cast<unsigned char*>(pointer(buffers, names_[1]));
    auto* hist = reinterpret_cast<unsigned*>(pointer(buffers, names_[2]));
    auto* lut = reinterpret_cast<unsigned char*>(pointer(buffers, names_[3]));
    check_cub(*cub_, even_(in, hist, 1LL * width_ * height_, 1), "cub::DeviceHistogram");
    check_cub(*cub_, lut_(hist, lut, width_ * height_), "histeq LUT kernel");
    check_npp(lut_palette_(in, width_, out, width_, NppiSize{width_, height_}, lut, 8, env.npp),
              "nppiLUTPalette_8u_C1R_Ctx");
  }

 private:
  const CubApi* cub_;
  decltype(&pimg_cub_histogram_even) even_;
  decltype(&pimg_cub_histogram_prepare) prepare_;
  decltype(&pimg_cub_histeq_lut) lut_;
  LutPalette lut_palette_;
  std::string names_[4];
  int width_ = 0, height_ = 0;
};

}  // namespace

std::unique_ptr<LibraryCall> make_histeq_cub_npp(const LaunchPlan& plan) { return std::make_unique<CubNppHisteq>(plan); }

}  // namespace pimg::cuda
