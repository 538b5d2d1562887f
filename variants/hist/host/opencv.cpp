// Baseline: OpenCV's cv::calcHist, one 256-bin histogram per channel of the interleaved image. OpenCV
// returns float counts (exact below 2^24), so problems with a larger bin are refused. Without OpenCV,
// nothing is registered.
#include "hist/hist_common.hpp"
#include "common/native_libraries.hpp"
#include "common/pix_common.hpp"

#if PIMG_HAVE_OPENCV
#include <fmt/format.h>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#endif

namespace pimg::hist {

#if PIMG_HAVE_OPENCV
namespace {

// buffers: in, out; ints: width, height, channels, planar (each plane a single-channel image).
void hist_opencv_calchist(void* const* buffers, const std::int64_t* ints, const double*) {
  const int width = static_cast<int>(ints[0]), height = static_cast<int>(ints[1]), channels = static_cast<int>(ints[2]);
  const bool planar = ints[3] != 0;
  auto* out = static_cast<std::uint32_t*>(buffers[1]);
  const int size = 256;
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  float bins[256];
  cv::Mat h(256, 1, CV_32F, bins);  // calcHist's own shape: it fills these bins without allocating
  for (int c = 0; c < channels; ++c) {
    auto* base = static_cast<std::uint8_t*>(buffers[0]);
    const cv::Mat src = planar ? cv::Mat(height, width, CV_8UC1, base + static_cast<std::size_t>(c) * width * height)
                               : cv::Mat(height, width, CV_8UC(channels), base);
    const int channel = planar ? 0 : c;
    cv::calcHist(&src, 1, &channel, cv::Mat(), h, 1, &size, ranges, true, false);
    for (int b = 0; b < 256; ++b) out[c * 256 + b] = static_cast<std::uint32_t>(bins[b]);
  }
}

}  // namespace

void register_opencv(Registry& reg) {
  reg.add_host_function("hist_opencv_calchist", &hist_opencv_calchist);
  reg.add_variant(make_variant(
      {"opencv_calchist", "hist", "host", NativeCall{"hist_opencv_calchist", native::kOpenCv},
       "OpenCV cv::calcHist per channel (library baseline; float counts, refused when a bin reaches 2^24)",
       {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         const Workload& w = x.workload;
         const HistSpec s = spec_of(p);
         if (s.width * static_cast<double>(s.height) > (1 << 24)) {
           std::vector<std::uint32_t> bins(s.bins());
           reference(w.input("in").bytes.data(), s.samples(), s.channels, s.planar, bins.data());
           for (std::uint32_t b : bins)
             if (b > (1u << 24))
               throw PlanError(
                   fmt::format("a bin of {} exceeds 2^24, which OpenCV's float counts cannot hold exactly", b));
         }
         LaunchPlan plan;
         plan.entry = "hist_opencv_calchist";
         plan.args = {KernelArg::buf("in"),          KernelArg::buf("out"),
                      KernelArg::integer(s.width),   KernelArg::integer(s.height),
                      KernelArg::integer(s.channels), KernelArg::integer(s.planar ? 1 : 0)};
         return plan;
       },
      true}));
}
#else
void register_opencv(Registry&) {}
#endif

}  // namespace pimg::hist
