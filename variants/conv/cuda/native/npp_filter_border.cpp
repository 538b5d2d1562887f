// conv's library baseline npp_filter_border: NPP's nppiFilterBorder_8u_C1R_Ctx / _C3R_Ctx (libnppif) with the
// filter read back from the plan's problem defines (PIMG_K, PIMG_WEIGHTS, PIMG_DIVISOR, PIMG_CHANNELS,
// PIMG_PLANAR, PIMG_BORDER), its kernel flipped because FilterBorder convolves (coefficients in reverse
// order) and copied to the device once per configuration. Interleaved 3-channel images take C3R; 1-channel
// images and each plane of a planar image C1R (the calls timed together). Replicate borders use
// NPP_BORDER_REPLICATE over the whole image; the valid border filters the inner ROI, where no tap leaves the
// image; the zero border is refused. Border codes are conv_rule.h's.
// Plan args: in, out, width, height, out_width, out_height.
#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <stdexcept>
#include <vector>

#include "conv/conv_rule.h"
#include "cuda_library.hpp"

namespace pimg::cuda {
namespace {

struct NppFilter {
  int k = 0, channels = 1, border = 0, divisor = 1;
  bool planar = false;
  std::vector<int> flipped;  // the K*K weights in reverse order, as NPP expects them
};

const std::string& define(const LaunchPlan& plan, const std::string& name) {
  for (const auto& [n, v] : plan.defines)
    if (n == name) return v;
  throw std::runtime_error(fmt::format("NPP filter: the plan has no {} define", name));
}

int to_int(const std::string& name, const std::string& text) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw std::runtime_error(fmt::format("NPP filter: {}='{}' is not an integer", name, text));
  return v;
}

NppFilter npp_filter_from_plan(const LaunchPlan& plan) {
  NppFilter f;
  f.k = to_int("PIMG_K", define(plan, "PIMG_K"));
  f.channels = to_int("PIMG_CHANNELS", define(plan, "PIMG_CHANNELS"));
  f.planar = to_int("PIMG_PLANAR", define(plan, "PIMG_PLANAR")) != 0;
  f.border = to_int("PIMG_BORDER", define(plan, "PIMG_BORDER"));
  f.divisor = to_int("PIMG_DIVISOR", define(plan, "PIMG_DIVISOR"));
  if (f.border != PIMG_BORDER_VALID && f.border != PIMG_BORDER_REPLICATE)
    throw std::runtime_error("NPP filter: FilterBorder implements only NPP_BORDER_REPLICATE; no zero border");
  if (f.channels != 1 && f.channels != 3)
    throw std::runtime_error(fmt::format("NPP filter: {} channels (1 or 3 supported)", f.channels));
  std::vector<int> weights;
  const std::string& list = define(plan, "PIMG_WEIGHTS");
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    weights.push_back(to_int("PIMG_WEIGHTS", list.substr(pos, end - pos)));
    pos = end + 1;
  }
  if (static_cast<int>(weights.size()) != f.k * f.k)
    throw std::runtime_error(fmt::format("NPP filter: {} weights for a {}x{} kernel", weights.size(), f.k, f.k));
  f.flipped.assign(weights.rbegin(), weights.rend());
  return f;
}

// Filters `in` into `out` on the stream of `ctx`; `kernel` holds NppFilter::flipped on the device.
void run_npp_filter(const NppApi& npp, const NppStreamContext& ctx, const NppFilter& f, CUdeviceptr kernel,
                    CUdeviceptr in, CUdeviceptr out, int width, int height, int out_width, int out_height) {
  const int r = f.k / 2;
  const bool valid = f.border == PIMG_BORDER_VALID;
  // The valid border starts the source at (r, r): every tap of the inner ROI lies inside the image, so
  // the border mode passed is never applied. The anchor is the kernel's centre either way.
  const NppiPoint offset = valid ? NppiPoint{r, r} : NppiPoint{0, 0};
  const NppiSize src_size{width, height}, roi{out_width, out_height}, ksize{f.k, f.k};
  const NppiPoint anchor{r, r};
  const int* kern = reinterpret_cast<const int*>(kernel);
  auto* src = reinterpret_cast<const unsigned char*>(in);
  auto* dst = reinterpret_cast<unsigned char*>(out);
  if (f.channels == 3 && !f.planar) {
    const int step = width * 3;
    check_npp(npp.filter_border_c3(src + offset.y * step + offset.x * 3, step, src_size, offset, dst, out_width * 3, roi,
                               kern, ksize, anchor, f.divisor, NPP_BORDER_REPLICATE, ctx),
          "nppiFilterBorder_8u_C3R_Ctx");
    return;
  }
  const std::size_t in_plane = static_cast<std::size_t>(width) * height;
  const std::size_t out_plane = static_cast<std::size_t>(out_width) * out_height;
  for (int c = 0; c < f.channels; ++c)
    check_npp(npp.filter_border_c1(src + c * in_plane + offset.y * width + offset.x, width, src_size, offset,
                               dst + c * out_plane, out_width, roi, kern, ksize, anchor, f.divisor,
                               NPP_BORDER_REPLICATE, ctx),
          "nppiFilterBorder_8u_C1R_Ctx");
}

class FilterBorder final : public LibraryCall {
 public:
  explicit FilterBorder(const LaunchPlan& plan) : filter_(npp_filter_from_plan(plan)) {
    if (plan.args.size() != 6 || plan.args[0].kind != ArgKind::Buffer || plan.args[1].kind != ArgKind::Buffer)
      throw std::runtime_error("NPP filter: the plan's arguments must be in, out, width, height, out_width, out_height");
    for (int i = 0; i < 4; ++i) {
      const KernelArg& a = plan.args[2 + static_cast<std::size_t>(i)];
      if (a.kind != ArgKind::Int || a.i <= 0 || a.i > std::numeric_limits<int>::max())
        throw std::runtime_error(fmt::format("NPP filter: argument {} is not a positive image size", 2 + i));
      dims_[i] = static_cast<int>(a.i);
    }
    in_ = plan.args[0].buffer;
    out_ = plan.args[1].buffer;
    std::string error;
    npp_ = npp_api(error);
    if (!npp_) throw std::runtime_error(error);
    const std::size_t bytes = filter_.flipped.size() * sizeof(int);
    const DriverApi& driver = library_driver();
    if (driver.cuMemAlloc(&kernel_, bytes) != CUDA_SUCCESS)
      throw std::runtime_error(fmt::format("cuMemAlloc of {} bytes for NPP's filter kernel", bytes));
    if (driver.cuMemcpyHtoD(kernel_, filter_.flipped.data(), bytes) != CUDA_SUCCESS)
      throw std::runtime_error("cuMemcpyHtoD of NPP's filter kernel");
  }
  ~FilterBorder() override {
    if (kernel_) library_driver().cuMemFree(kernel_);
  }
  FilterBorder(const FilterBorder&) = delete;
  FilterBorder& operator=(const FilterBorder&) = delete;

  void run(const LibraryEnv& env, const LaunchPlan&, const DevicePointers& buffers) override {
    run_npp_filter(*npp_, env.npp, filter_, kernel_, pointer(buffers, in_), pointer(buffers, out_), dims_[0], dims_[1],
                   dims_[2], dims_[3]);
  }

 private:
  NppFilter filter_;
  const NppApi* npp_ = nullptr;
  CUdeviceptr kernel_ = 0;
  std::string in_, out_;
  int dims_[4] = {};  // width, height, out_width, out_height
};

}  // namespace

std::unique_ptr<LibraryCall> make_npp_filter_border(const LaunchPlan& plan) { return std::make_unique<FilterBorder>(plan); }

}  // namespace pimg::cuda
