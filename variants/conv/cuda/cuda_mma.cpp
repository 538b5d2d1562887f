// cuda_mma: kernels/conv/conv_cuda_mma.cu, the K x K taps as integer matrix products on the tensor cores
// (mma.sync m16n8k32, u8 pixels x s8 weights, s32 sums): a warp computes `tiles` tiles of 128 consecutive
// output bytes for `rows` consecutive rows, one product per input row and tap row. Exact for every filter whose
// weights fit a signed byte and whose span fits a 32-byte window (7 + (K - 1) x bytes per pixel + alignment);
// compute capability 8.0 or later. `stage` 1 takes the input rows through a ring in shared memory filled by
// cp.async (`ahead` rows in flight) instead of registers. The edge tiles (the checked path) are a second launch,
// conv_cuda_mma_edge, over the columns this plan computes with the kernel's own test for a fast tile (written
// twice, here and in mma_fast_tile: a column both missed would fail validation, never pass unnoticed).
#include <algorithm>

#include <fmt/format.h>

#include "conv/conv_rule.h"
#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

constexpr CudaKnobSet kMmaKnobs{false, false};

// The window's alignment bytes in front of a tile's first input byte (MMA_PAD of the kernel).
int window_pad(const ConvSpec& s) {
  const int bpp = s.planar ? 1 : s.channels;
  const int centre = s.border == PIMG_BORDER_VALID ? s.k / 2 : 0;
  const int off = (centre - s.k / 2) * bpp;
  return ((off % 4) + 4) % 4;
}

// PlanError where the tensor cores cannot take the filter or the device has none for u8 x s8.
void check_mma(const ConvSpec& s, const PlanContext& x) {
  const double cc = x.limit("compute_capability", 0);
  if (cc > 0 && cc < 80)
    throw PlanError(fmt::format("compute capability {:.0f}: integer mma.sync m16n8k32 needs 8.0 or later", cc));
  for (int wgt : s.weights)
    if (wgt < -128 || wgt > 127)
      throw PlanError(fmt::format("weight {} does not fit a signed byte (the tensor cores' s8 operand)", wgt));
  const int bpp = s.planar ? 1 : s.channels;
  const int span = 7 + (s.k - 1) * bpp + window_pad(s);
  if (span > 31)
    throw PlanError(fmt::format("a {}x{} filter over {} bytes a pixel spans {} bytes of a 32-byte window (at most 31)",
                                s.k, s.k, bpp, span + 1));
}

// args: in, out, width, height, out_width, out_height
LaunchPlan cuda_mma_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  require_one_image(s);
  check_mma(s, x);
  const int warps = x.int_knob("warps"), rows = x.int_knob("rows"), tiles = x.int_knob("tiles");
  const int ahead = x.int_knob("ahead"), stage = x.int_knob("stage");
  // The common knobs read, and checked against the device, for the block this kernel launches: 32 x warps.
  Config block = x.config;
  block.set("block_x", std::int64_t{32});
  block.set("block_y", std::int64_t{warps});
  const CudaKnobs k = cuda_literal_knobs(cuda_read_knobs(PlanContext{x.problem, x.workload, block, x.device, x.params}));

  LaunchPlan plan;
  plan.entry = "conv_cuda_mma";
  cuda_add_defines(plan, w, k, kMmaKnobs);
  add_define(plan, "ROWS", std::to_string(rows));
  add_define(plan, "TILES", std::to_string(tiles));
  add_define(plan, "AHEAD", std::to_string(ahead));
  add_define(plan, "WARPS", std::to_string(warps));
  add_define(plan, "STAGE", std::to_string(stage));
  if (stage) {
    // The rings: per warp, ahead + 1 rows of 16 x (8 x tiles + 3) bytes, in static shared memory (48 KiB at most).
    const double ring = static_cast<double>(warps) * (ahead + 1) * 16 * (8 * tiles + 3);
    const double max = std::min(48.0 * 1024, x.limit("shared_mem_per_block", 48.0 * 1024));
    if (ring > max)
      throw PlanError(fmt::format("stage: {} warps x {} rows of {} bytes need {} bytes of shared memory (at most {})",
                                  warps, ahead + 1, 16 * (8 * tiles + 3), ring, max));
  }

  // The vector body's geometry with 4 x tiles bytes a lane: a warp's 32 lanes span its tiles of 128 bytes.
  cuda_set_vec_plan(plan, s, 32, static_cast<std::size_t>(warps), 4 * tiles, rows, x, "warps or rows");

  // The edge tiles (conv_cuda_mma_edge, the checked path in a kernel of its own): the row's first tile column and
  // its last `right` columns, every column past the first where rows are not aligned; the kernel skips a fast one.
  const int bpp = s.planar ? 1 : s.channels, width_bytes = 128 * tiles;
  const int in_row = s.width * bpp, out_row = s.out_width * bpp;
  const int columns = (out_row + width_bytes - 1) / width_bytes;
  const int off = ((s.border == PIMG_BORDER_VALID ? s.k / 2 : 0) - s.k / 2) * bpp, pad = window_pad(s);
  const bool aligned = in_row % 4 == 0 && out_row % 2 == 0;
  auto fast = [&](int column) {
    const int x0 = column * width_bytes;
    return aligned && x0 + off - pad >= 0 && x0 + (tiles - 1) * 128 + 8 * 15 + 32 + off - pad <= in_row &&
           x0 + width_bytes <= out_row;
  };
  int right = 0;
  while (right < columns - 1 && !fast(columns - 1 - right)) ++right;
  right = std::min(right + 1, columns - 1);  // one column more than the plan's count: the kernel decides
  LaunchStep edge;
  edge.entry = "conv_cuda_mma_edge";
  edge.dims = plan.dims;
  edge.global = {static_cast<std::size_t>(1 + right) * 32, plan.global[1], 1};
  edge.local = plan.local;
  edge.args = plan.args;
  edge.args.push_back(KernelArg::integer(right));
  plan.steps.push_back(std::move(edge));
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_mma() {
  std::vector<ParamDecl> params;
  for (ParamDecl& d : cuda_knob_params(kMmaKnobs))
    if (d.name == "launch_bounds" || d.name == "maxrregcount" || d.name == "host_mem") params.push_back(std::move(d));
  params.push_back(int_choice("warps", 4, "warps per block (the block is 32 x warps threads), one row group each",
                              {1, 2, 4, 8, 16}));
  params.push_back(int_range("rows", 8, "consecutive output rows per warp (1..32)", 1, 32));
  params.push_back(int_choice("tiles", 1, "tiles of 128 consecutive output bytes of a row per warp", {1, 2, 4}));
  params.push_back(int_range("ahead", 0,
                             "input rows loaded before the current row's products (0: where used; more: bytes in "
                             "flight for registers)",
                             0, 40));
  params.push_back(int_choice("stage", 0,
                              "1: input rows through a ring of ahead + 1 rows in shared memory filled by 16-byte "
                              "cp.async copies; 0: loaded into registers",
                              {0, 1}));
  return make_variant({"cuda_mma", "conv", "cuda", "conv/conv_cuda_mma.cu",
                       "CUDA convolution on the tensor cores: each input row of a 128-byte tile one integer "
                       "mma.sync (u8 x s8 -> s32) per tap row, exact; weights in a signed byte, compute capability 8.0+",
                       std::move(params), cuda_mma_plan});
}

}  // namespace pimg::conv
