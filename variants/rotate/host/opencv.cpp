// OpenCV baseline on the host backend: cv::warpAffine with WARP_INVERSE_MAP and the family's rotation (built
// from the same fixed-point cos and sin), INTER_NEAREST or INTER_LINEAR, BORDER_CONSTANT = the fill value.
// OpenCV rounds its coordinates to 1/1024 (nearest) or 1/32 pixel (bilinear) on its own fixed-point grid,
// so its rows are validated exactly against the family's rule "opencv" (RotateFamily::reference), which
// reproduces that arithmetic. Without OpenCV, nothing is registered.
#include "rotate/rotate_common.hpp"
#include "common/native_libraries.hpp"
#include "common/pix_common.hpp"

#if PIMG_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace pimg::rotate {

#if PIMG_HAVE_OPENCV
namespace {

// buffers: in, out; ints: host_args() order.
void rotate_opencv_warp(void* const* buffers, const std::int64_t* ints, const double*) {
  const RotateSpec s = spec_from_args(ints);
  const std::array<double, 6> m = opencv_matrix(s);
  const cv::Mat matrix(2, 3, CV_64F, const_cast<double*>(m.data()));
  const int flags = (s.interp == 0 ? cv::INTER_NEAREST : cv::INTER_LINEAR) | cv::WARP_INVERSE_MAP;
  const int n = s.planar ? 1 : s.channels;  // channels of one Mat
  const int planes = s.planar ? s.channels : 1;
  const std::size_t plane = static_cast<std::size_t>(s.width) * s.height * n;
  auto* in = static_cast<std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  for (int p = 0; p < planes; ++p) {
    const cv::Mat src(s.height, s.width, CV_8UC(n), in + p * plane);
    cv::Mat dst(s.height, s.width, CV_8UC(n), out + p * plane);
    cv::warpAffine(src, dst, matrix, dst.size(), flags, cv::BORDER_CONSTANT, cv::Scalar::all(s.fill));
  }
}

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("rotate_opencv_warp", &rotate_opencv_warp);
  reg.add_variant(make_variant(
      {"opencv_warp", "rotate", "host", NativeCall{"rotate_opencv_warp", native::kOpenCv},
       "OpenCV cv::warpAffine (inverse map, constant border); library baseline validated against OpenCV's own "
       "fixed-point rounding (rule opencv)",
       {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan;
         plan.entry = "rotate_opencv_warp";
         plan.args = host_args(spec_of(p));
         return plan;
       },
      true, "opencv"}));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::rotate
