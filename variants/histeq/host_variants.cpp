// The histeq baselines and OpenMP variant on the CPU: serial (the reference, timed), opencv_equalizehist
// (cv::equalizeHist, whose rule the family adopts, so it is compared exactly) and omp_histeq
// (kernels/histeq/histeq_omp.cpp: private sub-histograms merged by a reduction, LUT, parallel map).
#include "hist/hist_common.hpp"
#include "common/native_libraries.hpp"
#include "histeq_family.hpp"

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
  LaunchPlan plan(const Problem& p, const Workload&, const Config&, const DeviceInfo&) const override {
    LaunchPlan plan;
    plan.entry = function_;
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                 KernelArg::integer(p.height)};
    return plan;
  }

 private:
  std::string name_, function_, library_, help_;
};

class OmpHisteq final : public Variant {
 public:
  std::string name() const override { return "omp_histeq"; }
  std::string family() const override { return "histeq"; }
  std::string backend() const override { return "openmp"; }
  std::string source() const override { return "histeq/histeq_omp.cpp"; }
  std::string help() const override {
    return "OpenMP private sub-histograms over tasks of 64 KiB merged by an array reduction, the LUT on one thread, "
           "parallel map";
  }
  std::vector<ParamDecl> parameters() const override {
    std::vector<ParamDecl> out = hist::omp_parallel_params();
    out.push_back(int_choice("copies", 2, "sub-histograms per thread (1, 2 or 4) taking consecutive bytes in turn", {1, 2, 4}));
    out.push_back(int_choice("wide", 0, "1: count 64-bit words split into bytes; 0: byte loads", {0, 1}));
    out.push_back(text_choice("map", {"bytes", "words", "vbmi"}, "bytes",
                                   "map pass: one byte per step, one 64-bit word per step, or AVX-512 VBMI byte "
                                   "permutes over the LUT, 64 bytes per step (a compile error without AVX-512 VBMI)"));
    return out;
  }
  LaunchPlan plan(const Problem& p, const Workload&, const Config& c, const DeviceInfo&) const override {
    LaunchPlan plan;
    plan.entry = "histeq_omp";
    const auto decls = parameters();
    const int copies = hist::int_in(c, decls, "copies");
    hist::add_omp_parallel_defines(plan, c, decls);
    plan.defines.emplace_back("COPIES", std::to_string(copies));
    plan.defines.emplace_back("WIDE", std::to_string(hist::int_in(c, decls, "wide")));
    plan.defines.emplace_back("MAP", std::to_string(hist::choice_index(decls, "map", hist::text_of(c, decls, "map"))));
    plan.dims = 1;
    plan.global = {static_cast<std::size_t>(p.width) * p.height, 1, 1};
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                 KernelArg::integer(static_cast<std::int64_t>(p.width) * p.height)};
    return plan;
  }
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
  reg.add_variant(std::make_unique<OmpHisteq>());
}

}  // namespace pimg::histeq
