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
class HostVariant final : public Variant {
 public:
  HostVariant(std::string name, std::string function, std::string library, std::string help)
      : name_(std::move(name)), function_(std::move(function)), library_(std::move(library)), help_(std::move(help)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "histeq"; }
  std::string backend() const override { return "host"; }
  std::string source() const override { return ""; }
  std::optional<NativeCall> native() const override { return NativeCall{function_, library_}; }
  std::string help() const override { return help_; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  LaunchPlan plan(const PlanContext& x) const override {
    const Problem& p = x.problem;
    LaunchPlan plan;
    plan.entry = function_;
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                 KernelArg::integer(p.height)};
    return plan;
  }

 private:
  std::string name_, function_, library_, help_;
};

}  // namespace

void register_host_variants(Registry& reg) {
  reg.add_host_function("histeq_serial", &histeq_serial);
  reg.add_variant(std::make_unique<HostVariant>("serial", "histeq_serial", "", "the serial CPU reference, one thread (baseline)"));
#if PIMG_HAVE_OPENCV
  reg.add_host_function("histeq_opencv", &histeq_opencv);
  reg.add_variant(std::make_unique<HostVariant>(
      "opencv_equalizehist", "histeq_opencv", native::kOpenCv,
      "OpenCV cv::equalizeHist (library baseline; the family's rule is OpenCV's, so it is compared exactly)"));
#endif
}

}  // namespace pimg::histeq
