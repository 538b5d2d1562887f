// Baseline: OpenCV's cv::flip(src, dst, 1) (about the vertical axis) on the host, on each plane of a
// planar image or on the interleaved image. Without OpenCV, nothing is registered.
#include "flip/variants.hpp"
#include "common/native_libraries.hpp"

#if PIMG_HAVE_OPENCV
#include <opencv2/core.hpp>
#endif

namespace pimg::flip {

#if PIMG_HAVE_OPENCV
namespace {

// buffers: in, out; ints: width, height, planes, samples per pixel.
void flip_opencv(void* const* buffers, const std::int64_t* ints, const double*) {
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  const int planes = static_cast<int>(ints[2]), samples = static_cast<int>(ints[3]);
  const std::size_t plane = static_cast<std::size_t>(width) * height * samples;
  for (int p = 0; p < planes; ++p) {
    const cv::Mat src(height, width, CV_8UC(samples), static_cast<std::uint8_t*>(buffers[0]) + p * plane);
    cv::Mat dst(height, width, CV_8UC(samples), static_cast<std::uint8_t*>(buffers[1]) + p * plane);
    cv::flip(src, dst, 1);
  }
}

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("flip_opencv", &flip_opencv);
  reg.add_variant(make_variant(
      {"opencv_flip", "flip", "host", NativeCall{"flip_opencv", native::kOpenCv}, "OpenCV cv::flip, flipCode 1 (library baseline)", {},
       [](const PlanContext& x) { return pix::layout_host_plan("flip_opencv", x.problem); },
       true}));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::flip
