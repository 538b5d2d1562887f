// NPP's FilterBorder as the CUDA backend's built-in conv baseline: the filter read back from the plan's
// problem defines and the C1R/C3R calls per layout. Border codes follow kernels/conv/conv_rule.h.
#include "cuda_npp.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace pimg::cuda {
namespace {

constexpr int kBorderZero = 0, kBorderValid = 1, kBorderReplicate = 2;  // PIMG_BORDER_* of conv_rule.h

const std::string& define(const LaunchPlan& plan, const std::string& name) {
  for (const auto& [n, v] : plan.defines)
    if (n == name) return v;
  throw std::runtime_error(fmt::format("NPP filter: the plan has no {} define", name));
}

int to_int(const std::string& name, const std::string& text) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw std::runtime_error(fmt::format("NPP filter: {}='{}' is not an integer", name, text));
  return v;
}

void check(NppStatus status, const char* call) {
  if (status < 0) throw std::runtime_error(fmt::format("{}: NPP status {} (NppStatus of nppdefs.h)", call, status));
}

}  // namespace

NppFilter npp_filter_from_plan(const LaunchPlan& plan) {
  NppFilter f;
  f.k = to_int("PIMG_K", define(plan, "PIMG_K"));
  f.channels = to_int("PIMG_CHANNELS", define(plan, "PIMG_CHANNELS"));
  f.planar = to_int("PIMG_PLANAR", define(plan, "PIMG_PLANAR")) != 0;
  f.border = to_int("PIMG_BORDER", define(plan, "PIMG_BORDER"));
  f.divisor = to_int("PIMG_DIVISOR", define(plan, "PIMG_DIVISOR"));
  if (f.border != kBorderValid && f.border != kBorderReplicate)
    throw std::runtime_error("NPP filter: FilterBorder implements only NPP_BORDER_REPLICATE; no zero border");
  if (f.channels != 1 && f.channels != 3)
    throw std::runtime_error(fmt::format("NPP filter: {} channels (1 or 3 supported)", f.channels));
  std::vector<int> weights;
  const std::string& list = define(plan, "PIMG_WEIGHTS");
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    weights.push_back(to_int("PIMG_WEIGHTS", list.substr(pos, end - pos)));
    pos = end + 1;
  }
  if (static_cast<int>(weights.size()) != f.k * f.k)
    throw std::runtime_error(fmt::format("NPP filter: {} weights for a {}x{} kernel", weights.size(), f.k, f.k));
  f.flipped.assign(weights.rbegin(), weights.rend());
  return f;
}

void run_npp_filter(const NppApi& npp, const NppStreamContext& ctx, const NppFilter& f, CUdeviceptr kernel,
                    CUdeviceptr in, CUdeviceptr out, int width, int height, int out_width, int out_height) {
  const int r = f.k / 2;
  const bool valid = f.border == kBorderValid;
  // The valid border starts the source at (r, r): every tap of the inner ROI lies inside the image, so
  // the border mode passed is never applied. The anchor is the kernel's centre either way.
  const NppiPoint offset = valid ? NppiPoint{r, r} : NppiPoint{0, 0};
  const NppiSize src_size{width, height}, roi{out_width, out_height}, ksize{f.k, f.k};
  const NppiPoint anchor{r, r};
  const int* kern = reinterpret_cast<const int*>(kernel);
  auto* src = reinterpret_cast<const unsigned char*>(in);
  auto* dst = reinterpret_cast<unsigned char*>(out);
  if (f.channels == 3 && !f.planar) {
    const int step = width * 3;
    check(npp.filter_border_c3(src + offset.y * step + offset.x * 3, step, src_size, offset, dst, out_width * 3, roi,
                               kern, ksize, anchor, f.divisor, NPP_BORDER_REPLICATE, ctx),
          "nppiFilterBorder_8u_C3R_Ctx");
    return;
  }
  const std::size_t in_plane = static_cast<std::size_t>(width) * height;
  const std::size_t out_plane = static_cast<std::size_t>(out_width) * out_height;
  for (int c = 0; c < f.channels; ++c)
    check(npp.filter_border_c1(src + c * in_plane + offset.y * width + offset.x, width, src_size, offset,
                               dst + c * out_plane, out_width, roi, kern, ksize, anchor, f.divisor,
                               NPP_BORDER_REPLICATE, ctx),
          "nppiFilterBorder_8u_C1R_Ctx");
}

}  // namespace pimg::cuda
