// The histeq baselines on the host: serial (the reference, timed) and opencv_equalizehist (cv::equalizeHist,
// whose rule the family adopts, so it is compared exactly).
#include "hist/hist_common.hpp"
#include "common/native_libraries.hpp"
#include "histeq/histeq_family.hpp"

#if PIMG_HAVE_OPENCV
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace pimg::histeq {
namespace {

// buffers: in, out; ints: width, height.
void histeq_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::size_t>(ints[0] * ints[1]),
            static_cast<std::uint8_t*>(buffers[1]));
}

#if PIMG_HAVE_OPENCV
void histeq_opencv(void* const* buffers, const std::int64_t* ints, const double*) {
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]);
  const cv::Mat src(height, width, CV_8UC1, buffers[0]);
  cv::Mat dst(height, width, CV_8UC1, buffers[1]);
  cv::equalizeHist(src, dst);
}
#endif

// A host built-in taking (in, out, width, height).
std::unique_ptr<Variant> host_variant(std::string name, std::string function, std::string library, std::string help) {
  return make_variant({std::move(name), "histeq", "host", NativeCall{function, std::move(library)}, std::move(help), {},
                       [function](const PlanContext& x) {
                         LaunchPlan plan;
                         plan.entry = function;
                         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(x.problem.width),
                                      KernelArg::integer(x.problem.height)};
                         return plan;
                       },
                       true});
}

}  // namespace

void register_host_variants(Registry& reg) {
  reg.add_host_function("histeq_serial", &histeq_serial);
  reg.add_variant(host_variant("serial", "histeq_serial", "", "the serial CPU reference, one thread (baseline)"));
#if PIMG_HAVE_OPENCV
  reg.add_host_function("histeq_opencv", &histeq_opencv);
  reg.add_variant(host_variant(
      "opencv_equalizehist", "histeq_opencv", native::kOpenCv,
      "OpenCV cv::equalizeHist (library baseline; the family's rule is OpenCV's, so it is compared exactly)"));
#endif
}

}  // namespace pimg::histeq
