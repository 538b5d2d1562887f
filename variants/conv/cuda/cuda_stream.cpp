// cuda_stream: kernels/conv/conv_cuda_stream.cu, every thread walks down a column strip of `vec` output bytes
// for `rows` rows, loading each input row once, `depth` rows of loads in flight ahead of the row it computes,
// its neighbours' halo words from the lanes beside it; the taps on 16-bit lanes (conv_packed.h: separable 0 the
// K x K taps with signed weights, 1 packed separable passes). Where cuda_vec re-reads K - 1 halo rows for every
// few rows and keeps its loads in one burst, a strip streams (bench/results/2026-12-01-h200-stream). Only what
// that fast path can do: a filter the lanes allow, a zero or replicated border, rows a whole number of vectors,
// a halo within one vector; everything else is refused.
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
  const CudaKnobs k = cuda_literal_knobs(cuda_read_knobs(x));
  const int vec = x.int_knob("vec"), rows = x.int_knob("rows"), depth = x.int_knob("depth");
  const int separable = x.int_knob("separable");
  auto allows = [&](const char* define) { return filter_allows(w, define); };
  if (separable && !(allows("PIMG_SEPARABLE") && allows("PIMG_PACKED")))
    throw PlanError("separable=1 takes packed separable passes: the filter has no integer factorisation into "
                    "non-negative factors whose sums fit 16 bits, or the divisor is not a power of two up to 256");
  if (!separable && !allows("PIMG_SIMD"))
    throw PlanError("separable=0 takes the K x K taps on biased 16-bit lanes: the filter's weights are too large for "
                    "them (255 x the positive or the negative weights' sum near 2^15) or the divisor is not a power "
                    "of two up to 256");
  if (k.block_x % 32 != 0)
    throw PlanError(fmt::format("block_x={}: a strip's neighbours come through warp shuffles, so block_x must be a "
                                "multiple of 32 (whole warps along a row)",
                                k.block_x));
  if (s.border == PIMG_BORDER_VALID)
    throw PlanError("border=valid: the strip kernel writes every pixel of a row (zero or replicated border)");
  const int bpp = s.planar ? 1 : s.channels;
  if (bpp > 4) throw PlanError(fmt::format("{} interleaved channels: the strip kernel takes at most 4", bpp));
  if ((s.k / 2) * bpp > vec)
    throw PlanError(fmt::format("the halo of {} bytes ({} pixels of {} bytes) is wider than a {}-byte vector",
                                (s.k / 2) * bpp, s.k / 2, bpp, vec));
  if ((s.width * bpp) % vec != 0)
    throw PlanError(fmt::format("rows of {} bytes are not a whole number of {}-byte vectors", s.width * bpp, vec));

  LaunchPlan plan;
  plan.entry = "conv_cuda_stream";
  cuda_add_defines(plan, w, k, kStreamKnobs);
  add_vec_body_defines(plan, vec, rows, separable, separable, separable ? 0 : 1);
  add_define(plan, "DEPTH", std::to_string(depth));

  cuda_set_vec_plan(plan, s, static_cast<std::size_t>(k.block_x), static_cast<std::size_t>(k.block_y), vec, rows, x,
                    "block_y or rows");
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
  params.push_back(int_choice("separable", 0,
                              "0: the K x K taps on biased 16-bit lanes (small signed weights); 1: a row pass and a "
                              "column pass on 16-bit lanes (non-negative factors)",
                              {0, 1}));
  return make_variant({"cuda_stream", "conv", "cuda", "conv/conv_cuda_stream.cu",
                       "CUDA column strips: vec output bytes x rows rows per thread, each input row loaded once with "
                       "depth rows of loads in flight, halo words through warp shuffles, taps on 16-bit lanes",
                       std::move(params), cuda_stream_plan});
}

}  // namespace pimg::conv
