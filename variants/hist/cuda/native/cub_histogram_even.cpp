// hist's CUB baseline cub_histogram_even: cub::DeviceHistogram::HistogramEven (MultiHistogramEven<3, 3> for
// 3 interleaved channels) from libpimg_cub.so (cub_histogram.cu), its scratch sized outside the timed region (prepare). It
// writes every bin, the family's definition, so it is compared exactly. Args: hist_args.hpp.
#include "cub_api.hpp"
#include "cub_histogram.h"
#include "hist_args.hpp"

namespace pimg::cuda {
namespace {

class CubHistogram final : public LibraryCall {
 public:
  explicit CubHistogram(const LaunchPlan& plan)
      : args_(hist_args(plan, "cub_histogram_even")),
        cub_(load_cub()),
        even_(cub_function<decltype(&pimg_cub_histogram_even)>(*cub_, "pimg_cub_histogram_even")),
        prepare_(cub_function<decltype(&pimg_cub_histogram_prepare)>(*cub_, "pimg_cub_histogram_prepare")) {}
  void prepare(const LibraryEnv&, const LaunchPlan&, const DevicePointers&) override {
    check_cub(*cub_, prepare_(1LL * args_.width * args_.height, args_.channels), "cub::DeviceHistogram (scratch)");
  }
  void run(const LibraryEnv&, const LaunchPlan&, const DevicePointers& buffers) override {
    check_cub(*cub_, even_(reinterpret_cast<const unsigned char*>(pointer(buffers, args_.in)),
                           reinterpret_cast<unsigned*>(pointer(buffers, args_.out)), 1LL * args_.width * args_.height,
                           args_.channels),
              "cub::DeviceHistogram");
  }

 private:
  HistArgs args_;
  const CubApi* cub_;
  decltype(&pimg_cub_histogram_even) even_;
  decltype(&pimg_cub_histogram_prepare) prepare_;
};

}  // namespace

std::unique_ptr<LibraryCall> make_cub_histogram_even(const LaunchPlan& plan) {
  return std::make_unique<CubHistogram>(plan);
}

}  // namespace pimg::cuda
