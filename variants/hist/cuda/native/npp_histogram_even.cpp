// hist's NPP baseline npp_histogram_even: nppiHistogramEven_8u_C1R_Ctx / _C3R_Ctx (libnppist), 257 even levels
// over [0, 256), NPP's scratch allocated once per configuration, outside the timed region (prepare). It
// writes every bin, the family's definition, so it is compared exactly. Args: hist_args.hpp.
#include "hist_args.hpp"

namespace pimg::cuda {
namespace {

using HistSizeC1 = NppStatus (*)(NppiSize roi, int levels, std::size_t* bytes, NppStreamContext ctx);
using HistSizeC3 = NppStatus (*)(NppiSize roi, int levels[3], std::size_t* bytes, NppStreamContext ctx);
using HistEvenC1 = NppStatus (*)(const unsigned char* src, int step, NppiSize roi, int* hist, int levels, int lower,
                                 int upper, unsigned char* buffer, NppStreamContext ctx);
using HistEvenC3 = NppStatus (*)(const unsigned char* src, int step, NppiSize roi, int* hist[3], int levels[3],
                                 int lower[3], int upper[3], unsigned char* buffer, NppStreamContext ctx);
constexpr const char* kNppist = "libnppist.so.13";

class NppHistogram final : public LibraryCall {
 public:
  explicit NppHistogram(const LaunchPlan& plan)
      : args_(hist_args(plan, "npp_histogram_even")),
        size_c1_(npp_function<HistSizeC1>(kNppist, "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx")),
        size_c3_(npp_function<HistSizeC3>(kNppist, "nppiHistogramEvenGetBufferSize_8u_C3R_Ctx")),
        even_c1_(npp_function<HistEvenC1>(kNppist, "nppiHistogramEven_8u_C1R_Ctx")),
        even_c3_(npp_function<HistEvenC3>(kNppist, "nppiHistogramEven_8u_C3R_Ctx")) {}
  ~NppHistogram() override {
    if (scratch_) library_driver().cuMemFree(scratch_);
  }
  NppHistogram(const NppHistogram&) = delete;
  NppHistogram& operator=(const NppHistogram&) = delete;

  // NPP's scratch, sized and allocated before the first run, outside the timed region; kept for the later runs.
  void prepare(const LibraryEnv& env, const LaunchPlan&, const DevicePointers&) override {
    if (scratch_) return;
    const NppiSize roi{args_.width, args_.height};
    int levels[3] = {257, 257, 257};
    std::size_t bytes = 0;
    if (args_.channels == 1)
      check_npp(size_c1_(roi, 257, &bytes, env.npp), "nppiHistogramEvenGetBufferSize_8u_C1R_Ctx");
    else
      check_npp(size_c3_(roi, levels, &bytes, env.npp), "nppiHistogramEvenGetBufferSize_8u_C3R_Ctx");
    if (library_driver().cuMemAlloc(&scratch_, bytes ? bytes : 1) != CUDA_SUCCESS)
      throw std::runtime_error(fmt::format("cuMemAlloc of {} bytes for NPP's histogram", bytes));
  }
  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    if (!scratch_) throw std::runtime_error("nppiHistogramEven: run before prepare (no scratch)");
    const NppiSize roi{args_.width, args_.height};
    int levels[3] = {257, 257, 257}, lower[3] = {0, 0, 0}, upper[3] = {256, 256, 256};
    const auto* src = reinterpret_cast<const unsigned char*>(pointer(buffers, args_.in));
    int* bins = reinterpret_cast<int*>(pointer(buffers, args_.out));
    auto* scratch = reinterpret_cast<unsigned char*>(scratch_);
    if (args_.channels == 1) {
      check_npp(even_c1_(src, args_.width, roi, bins, 257, 0, 256, scratch, env.npp), "nppiHistogramEven_8u_C1R_Ctx");
      return;
    }
    int* hists[3] = {bins, bins + 256, bins + 512};
    check_npp(even_c3_(src, args_.width * 3, roi, hists, levels, lower, upper, scratch, env.npp),
              "nppiHistogramEven_8u_C3R_Ctx");
  }

 private:
  HistArgs args_;
  HistSizeC1 size_c1_;
  HistSizeC3 size_c3_;
  HistEvenC1 even_c1_;
  HistEvenC3 even_c3_;
  CUdeviceptr scratch_ = 0;
};

}  // namespace

std::unique_ptr<LibraryCall> make_npp_histogram_even(const LaunchPlan& plan) {
  return std::make_unique<NppHistogram>(plan);
}

}  // namespace pimg::cuda
