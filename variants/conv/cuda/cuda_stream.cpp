// cuda_stream: kernels/conv/conv_cuda_stream.cu, every thread walks down a column strip of `vec` output bytes
// for `rows` rows, loading each input row once, `depth` rows of loads in flight ahead of the row it computes,
// its neighbours' halo words from the lanes beside it; the K x K taps on biased 16-bit lanes (the family's
// simd). Where cuda_vec re-reads K - 1 halo rows for every few rows and keeps its loads in one burst, a strip
// streams: on the H200 this took sharpen3 from 69% to 88-90% of a device-to-device copy
// (bench/results/2026-12-01-h200-stream). Only what that fast path can do: filters with small signed weights
// and a power-of-two divisor, one byte per pixel of a row (one channel or planar planes), a zero or
// replicated border, rows a whole number of vectors; everything else is refused.
#include <fmt/format.h>

#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kStreamKnobs{false, false};

// args: in, out, width, height, out_width, out_height
LaunchPlan cuda_stream_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  require_one_image(s);
  CudaKnobs k = cuda_read_knobs(x);
  k.items_x = k.items_y = 1;
  k.filter_mem = 2;  // literal weights
  k.unroll = 1;
  k.arith = 0;
  k.inline_helper = 1;
  const int vec = x.int_knob("vec"), rows = x.int_knob("rows"), depth = x.int_knob("depth");
  const auto simd = w.defines.find("PIMG_SIMD");
  if (simd == w.defines.end() || simd->second != "1")
    throw PlanError("the strip kernel takes the taps on biased 16-bit lanes: the filter's weights are too large for "
                    "them (255 x the positive or the negative weights' sum near 2^15) or the divisor is not a power "
                    "of two up to 256");
  if (k.block_x % 32 != 0)
    throw PlanError(fmt::format("block_x={}: a strip's neighbours come through warp shuffles, so block_x must be a "
                                "multiple of 32 (whole warps along a row)",
                                k.block_x));
  if (s.channels > 1 && !s.planar)
    throw PlanError("interleaved channels: the strip kernel takes one byte per pixel of a row (one channel or planar)");
  if (s.border == PIMG_BORDER_VALID)
    throw PlanError("border=valid: the strip kernel writes every pixel of a row (zero or replicated border)");
  if (s.k / 2 > 4) throw PlanError(fmt::format("a {}x{} filter's halo is more than one 32-bit word", s.k, s.k));
  if (s.width % vec != 0)
    throw PlanError(fmt::format("rows of {} bytes are not a whole number of {}-byte vectors", s.width, vec));

  LaunchPlan plan;
  plan.entry = "conv_cuda_stream";
  cuda_add_defines(plan, w, k, kStreamKnobs);
  add_vec_body_defines(plan, vec, rows, 0, 0, 1);
  add_define(plan, "DEPTH", std::to_string(depth));

  const auto bx = static_cast<std::size_t>(k.block_x), by = static_cast<std::size_t>(k.block_y);
  set_vec_body_geometry(plan, s, bx, by, vec, rows);
  const double max_y = x.limit("max_grid_size_1", 65535);
  if (static_cast<double>(plan.global[1] / by) > max_y)
    throw PlanError(fmt::format("{} blocks along y exceed the device's grid limit {} (raise block_y or rows)",
                                plan.global[1] / by, max_y));

  plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_stream() {
  std::vector<ParamDecl> params;
  for (ParamDecl& d : cuda_knob_params(kStreamKnobs))
    if (d.name == "block_x" || d.name == "block_y" || d.name == "launch_bounds" || d.name == "maxrregcount" ||
        d.name == "host_mem")
      params.push_back(std::move(d));
  params.push_back(int_choice("vec", 16, "output bytes per thread along a row (4, 8 or 16): one vector", {4, 8, 16}));
  params.push_back(int_range("rows", 16, "output rows of a thread's strip (1..256)", 1, 256));
  params.push_back(int_range("depth", 6, "input rows of loads in flight ahead of the row computed (1..8)", 1, 8));
  return make_variant({"cuda_stream", "conv", "cuda", "conv/conv_cuda_stream.cu",
                       "CUDA column strips: vec output bytes x rows rows per thread, each input row loaded once with "
                       "depth rows of loads in flight, halo words through warp shuffles, K x K taps on 16-bit lanes",
                       std::move(params), cuda_stream_plan});
}

}  // namespace pimg::conv
