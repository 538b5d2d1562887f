// OpenCV baselines on the host backend, each one native 8-bit call over Mat headers on the buffers (no
// conversion, no copy, no allocation of ours): opencv_filter2d (cv::filter2D to CV_8U, divisor-1 filters),
// opencv_blur (cv::blur, KxK box filters), opencv_gaussian (cv::GaussianBlur 5x5, gaussian5). Each refuses
// the problems its call cannot compute exactly (conv::opencv_call says which call fits and why not);
// border valid filters the interior window, whose surroundings OpenCV reads from the image. Validated
// against rule "opencv" (the family's arithmetic; the validation text names the call). Without OpenCV,
// nothing is registered.
#include "conv/conv_family.hpp"
#include "common/native_libraries.hpp"
#include "conv/register.hpp"
#include "conv/serial_rows.hpp"
#include "conv/variant_base.hpp"

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

int cv_border(int border) { return border == PIMG_BORDER_REPLICATE ? cv::BORDER_REPLICATE : cv::BORDER_CONSTANT; }

// Runs call(src, dst) once per plane (each channel of a planar image, else the interleaved image as one
// multi-channel Mat), src and dst being headers over the buffers; border valid: src is the window of the
// image whose centres have whole windows, so OpenCV reads every neighbour from the image itself.
template <class Call>
void for_each_plane(const ConvSpec& s, void* const* buffers, Call call) {
  const int n = s.planar ? 1 : s.channels;  // channels within one plane
  const int planes = s.planar ? s.channels : 1;
  const int off = s.border == PIMG_BORDER_VALID ? s.k / 2 : 0;
  auto* in = static_cast<std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const std::size_t in_plane = static_cast<std::size_t>(s.width) * s.height * n;
  const std::size_t out_plane = static_cast<std::size_t>(s.out_width) * s.out_height * n;
  for (int p = 0; p < planes; ++p) {
    const cv::Mat image(s.height, s.width, CV_8UC(n), in + p * in_plane);
    const cv::Mat src = image(cv::Rect(off, off, s.out_width, s.out_height));
    cv::Mat dst(s.out_height, s.out_width, CV_8UC(n), out + p * out_plane);
    call(src, dst);
  }
}

void conv_opencv_filter2d_8u(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = host_spec(buffers, ints);
  float taps[31 * 31];
  for (int i = 0; i < s.k * s.k; ++i) taps[i] = static_cast<float>(s.weights[i]);
  const cv::Mat kernel(s.k, s.k, CV_32F, taps);
  for_each_plane(s, buffers, [&](const cv::Mat& src, cv::Mat& dst) {
    cv::filter2D(src, dst, CV_8U, kernel, cv::Point(-1, -1), 0, cv_border(s.border));
  });
}

void conv_opencv_blur(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = host_spec(buffers, ints);
  for_each_plane(s, buffers, [&](const cv::Mat& src, cv::Mat& dst) {
    cv::blur(src, dst, cv::Size(s.k, s.k), cv::Point(-1, -1), cv_border(s.border));
  });
}

void conv_opencv_gaussian_blur(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = host_spec(buffers, ints);
  for_each_plane(s, buffers, [&](const cv::Mat& src, cv::Mat& dst) {
    cv::GaussianBlur(src, dst, cv::Size(5, 5), 0, 0, cv_border(s.border));
  });
}

// A baseline of one OpenCV call: `function` (a host function registered below) where opencv_call() picks
// `kind` for the problem, a PlanError naming the call that fits (or why none does) otherwise.
std::unique_ptr<Variant> make_opencv_variant(std::string name, std::string function, std::string help,
                                             OpencvCall::Kind kind) {
  PlanFn plan = [name, function, kind](const PlanContext& x) {
    const ConvSpec s = spec_of(x.problem);
    require_one_image(s);
    const OpencvCall call = opencv_call(s);
    if (call.kind != kind)
      throw PlanError(call.kind == OpencvCall::none
                          ? fmt::format("{}: {}", name, call.why)
                          : fmt::format("{} does not compute this filter exactly; {} does", name, call.call));
    LaunchPlan out;
    out.entry = function;
    out.args = {KernelArg::buf("in"),         KernelArg::buf("out"),        KernelArg::buf("weights"),
                KernelArg::integer(s.width),  KernelArg::integer(s.height), KernelArg::integer(s.channels),
                KernelArg::integer(s.planar), KernelArg::integer(s.border), KernelArg::integer(s.k),
                KernelArg::integer(s.divisor)};
    return out;
  };
  NativeCall call{function, native::kOpenCv};
  return make_variant({std::move(name), "conv", "host", std::move(call), std::move(help), {}, std::move(plan), true,
                       "opencv"});
}

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("conv_opencv_filter2d_8u", &conv_opencv_filter2d_8u);
  reg.add_host_function("conv_opencv_blur", &conv_opencv_blur);
  reg.add_host_function("conv_opencv_gaussian_blur", &conv_opencv_gaussian_blur);
  reg.add_variant(make_opencv_variant(
      "opencv_filter2d", "conv_opencv_filter2d_8u",
      "OpenCV cv::filter2D(src, dst, CV_8U, kernel, anchor, 0, BORDER_CONSTANT or BORDER_REPLICATE): divisor-1 "
      "filters up to 11x11; library baseline",
      OpencvCall::filter2d));
  reg.add_variant(make_opencv_variant(
      "opencv_blur", "conv_opencv_blur",
      "OpenCV cv::blur(src, dst, KxK, anchor, BORDER_CONSTANT or BORDER_REPLICATE): box filters (all weights 1, "
      "divisor KxK); library baseline",
      OpencvCall::blur));
  reg.add_variant(make_opencv_variant(
      "opencv_gaussian", "conv_opencv_gaussian_blur",
      "OpenCV cv::GaussianBlur(src, dst, 5x5, 0, 0, BORDER_CONSTANT or BORDER_REPLICATE), its bit-exact fixed-point "
      "path: gaussian5 with border zero or replicate; library baseline",
      OpencvCall::gaussian));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::conv
