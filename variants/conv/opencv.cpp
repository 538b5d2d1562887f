// OpenCV baselines on the host backend: opencv_filter2d (cv::filter2D with the unscaled integer
// kernel in float, then the conv rule per element) and opencv_gaussian (cv::GaussianBlur 5x5 with
// OpenCV's own fixed-point rounding; gaussian5 only). Without OpenCV, nothing is registered.
#include "conv_family.hpp"
#include "register.hpp"

#if PIMG_HAVE_OPENCV
#include <fmt/format.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

extern "C" {
#include "conv/conv_rule.h"
}
#endif

namespace pimg::conv {

#if PIMG_HAVE_OPENCV
namespace {

// buffers: in, out, weights; ints: width, height, channels, planar, border, k, divisor.
ConvSpec spec_from_args(void* const* buffers, const std::int64_t* ints) {
  ConvSpec s;
  s.width = static_cast<int>(ints[0]);
  s.height = static_cast<int>(ints[1]);
  s.channels = static_cast<int>(ints[2]);
  s.planar = ints[3] != 0;
  s.border = static_cast<int>(ints[4]);
  s.k = static_cast<int>(ints[5]);
  s.divisor = static_cast<int>(ints[6]);
  const auto* w = static_cast<const std::int32_t*>(buffers[2]);
  s.weights.assign(w, w + s.k * s.k);
  s.out_width = s.border == PIMG_BORDER_VALID ? s.width - s.k + 1 : s.width;
  s.out_height = s.border == PIMG_BORDER_VALID ? s.height - s.k + 1 : s.height;
  return s;
}

int cv_border(int border) { return border == PIMG_BORDER_ZERO ? cv::BORDER_CONSTANT : cv::BORDER_REPLICATE; }

// Runs filter(src, dst) on each plane (every channel of a planar image, else the interleaved image as
// one multi-channel Mat), then writes the output window (valid: R in from each edge) through finish.
template <class T, class Filter, class Finish>
void run_planes(const ConvSpec& s, const std::uint8_t* in, std::uint8_t* out, Filter filter, Finish finish) {
  const int n = s.planar ? 1 : s.channels;  // channels within one plane
  const int planes = s.planar ? s.channels : 1;
  const int off = s.border == PIMG_BORDER_VALID ? s.k / 2 : 0;
  const std::size_t in_plane = static_cast<std::size_t>(s.width) * s.height;
  const std::size_t out_row = static_cast<std::size_t>(s.out_width) * n;
  for (int p = 0; p < planes; ++p) {
    const cv::Mat src(s.height, s.width, CV_8UC(n), const_cast<std::uint8_t*>(in + p * in_plane));
    cv::Mat dst;
    filter(src, dst);
    std::uint8_t* o = out + p * out_row * s.out_height;
    for (int oy = 0; oy < s.out_height; ++oy) {
      const T* row = dst.ptr<T>(oy + off) + off * n;
      for (std::size_t i = 0; i < out_row; ++i) o[oy * out_row + i] = finish(row[i]);
    }
  }
}

// The sums are whole numbers, exact in float while they stay below 2^24 (every named filter does).
void conv_opencv_filter2d(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = spec_from_args(buffers, ints);
  cv::Mat kernel(s.k, s.k, CV_32F);
  for (int i = 0; i < s.k * s.k; ++i) kernel.at<float>(i / s.k, i % s.k) = static_cast<float>(s.weights[i]);
  run_planes<float>(
      s, static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
      [&](const cv::Mat& src, cv::Mat& dst) {
        cv::filter2D(src, dst, CV_32F, kernel, cv::Point(-1, -1), 0, cv_border(s.border));
      },
      [&](float v) { return static_cast<std::uint8_t>(pimg_conv_finish(cvRound(v), s.divisor)); });
}

void conv_opencv_gaussian(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = spec_from_args(buffers, ints);
  run_planes<std::uint8_t>(
      s, static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
      [&](const cv::Mat& src, cv::Mat& dst) { cv::GaussianBlur(src, dst, cv::Size(5, 5), 0, 0, cv_border(s.border)); },
      [](std::uint8_t v) { return v; });
}

class OpencvVariant final : public Variant {
 public:
  OpencvVariant(std::string name, std::string function, std::string help, bool gaussian5_only)
      : name_(std::move(name)), function_(std::move(function)), help_(std::move(help)), gaussian5_only_(gaussian5_only) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "host"; }
  std::string source() const override { return "builtin:" + function_; }
  std::string help() const override { return help_; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  LaunchPlan plan(const Problem& p, const Workload&, const Config&, const DeviceInfo&) const override {
    if (gaussian5_only_ && p.attr("filter") != "gaussian5")
      throw PlanError(fmt::format("{} applies only to filter gaussian5", name_));
    const ConvSpec s = spec_of(p);
    LaunchPlan plan;
    plan.entry = function_;
    plan.args = {KernelArg::buf("in"),           KernelArg::buf("out"),          KernelArg::buf("weights"),
                 KernelArg::integer(s.width),    KernelArg::integer(s.height),   KernelArg::integer(s.channels),
                 KernelArg::integer(s.planar),   KernelArg::integer(s.border),   KernelArg::integer(s.k),
                 KernelArg::integer(s.divisor)};
    return plan;
  }

 private:
  std::string name_, function_, help_;
  bool gaussian5_only_;
};

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("conv_opencv_filter2d", &conv_opencv_filter2d);
  reg.add_host_function("conv_opencv_gaussian", &conv_opencv_gaussian);
  reg.add_variant(std::make_unique<OpencvVariant>(
      "opencv_filter2d", "conv_opencv_filter2d",
      "OpenCV cv::filter2D (float sums of the integer kernel, then the conv rule); library baseline", false));
  reg.add_variant(std::make_unique<OpencvVariant>(
      "opencv_gaussian", "conv_opencv_gaussian",
      "OpenCV cv::GaussianBlur 5x5, sigma 0, with OpenCV's fixed-point rounding; filter gaussian5 only", true));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::conv
