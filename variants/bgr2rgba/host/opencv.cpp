// Baseline: OpenCV's cv::cvtColor(COLOR_BGR2RGBA) on the host (it writes alpha 255, so it runs only on
// problems with alpha 255). Without OpenCV, nothing is registered.
#include "bgr2rgba/variants.hpp"
#include "common/native_libraries.hpp"

#if PIMG_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace pimg::bgr2rgba {

#if PIMG_HAVE_OPENCV
namespace {

// buffers: in, out; ints: width, height.
void bgr2rgba_opencv(void* const* buffers, const std::int64_t* ints, const double*) {
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  const cv::Mat src(height, width, CV_8UC3, buffers[0]);
  cv::Mat dst(height, width, CV_8UC4, buffers[1]);
  cv::cvtColor(src, dst, cv::COLOR_BGR2RGBA);
}

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("bgr2rgba_opencv", &bgr2rgba_opencv);
  reg.add_variant(make_variant(
      {"opencv_cvtcolor", "bgr2rgba", "host", NativeCall{"bgr2rgba_opencv", native::kOpenCv},
       "OpenCV cv::cvtColor COLOR_BGR2RGBA (alpha 255 only; library baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         if (p.attr("alpha") != "255") throw PlanError("cvtColor writes alpha 255; this problem asks for " + p.attr("alpha"));
         LaunchPlan plan;
         plan.entry = "bgr2rgba_opencv";
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                      KernelArg::integer(p.height)};
         return plan;
       },
       true}));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::bgr2rgba
