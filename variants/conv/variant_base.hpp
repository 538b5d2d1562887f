// Small helpers shared by the conv variants: the problem's defines and arguments every kernel
// receives, and the knobs, defines and launch geometry the OpenCL and CUDA kernels have in common
// (each API's own knobs and device checks: cl_common.hpp, cuda_common.hpp).
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

#include "common/pix_common.hpp"
#include "conv_family.hpp"
#include "pimg/variant.hpp"

namespace pimg::conv {

using pix::ceil_div;
using pix::round_up;

// PlanError for a batch of images (problem attribute batch > 1) in a variant that computes one image: the
// runner then skips the batch problem for that variant, said once.
inline void require_one_image(const ConvSpec& s) {
  if (s.batch > 1)
    throw PlanError(fmt::format("batch={}: this variant computes one image per launch", s.batch));
}

// The workload's defines (PIMG_K, PIMG_CHANNELS, ...) into a plan.
inline void add_problem_defines(LaunchPlan& plan, const Workload& w) {
  for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
}

// A configuration's integer parameter as -D<PREFIX><NAME>=value (names upper-cased).
inline void add_define(LaunchPlan& plan, const std::string& name, const std::string& value) {
  plan.defines.emplace_back(name, value);
}

// Throws PlanError when `bytes` of constant data (`what`: each API's name for it) exceed max_constant_buffer_size.
inline void check_constant_bytes(std::size_t bytes, const PlanContext& x, const char* what) {
  const double max_constant = x.limit("max_constant_buffer_size", 0);
  if (max_constant > 0 && static_cast<double>(bytes) > max_constant)
    throw PlanError(fmt::format("{} bytes of {} exceed max_constant_buffer_size {}", bytes, what, max_constant));
}

// width, height, out_width, out_height (the last arguments of every conv kernel).
inline void add_scalar_args(LaunchPlan& plan, const ConvSpec& s) {
  plan.args.push_back(KernelArg::integer(s.width));
  plan.args.push_back(KernelArg::integer(s.height));
  plan.args.push_back(KernelArg::integer(s.out_width));
  plan.args.push_back(KernelArg::integer(s.out_height));
}

// The direct kernels' arguments (cl_direct's, cuda_direct's): in, weights, taps, lut, out, then the sizes.
inline void add_direct_args(LaunchPlan& plan, const ConvSpec& s) {
  plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("taps"), KernelArg::buf("lut"),
               KernelArg::buf("out")};
  add_scalar_args(plan, s);
}

// The host kernels' arguments (omp_selftest's, mpi_rows'): in, out, weights, then the workload's width,
// height, out_width and out_height.
inline std::vector<KernelArg> host_image_args(const Workload& w) {
  return {KernelArg::buf("in"),
          KernelArg::buf("out"),
          KernelArg::buf("weights"),
          KernelArg::integer(w.scalars.at("width")),
          KernelArg::integer(w.scalars.at("height")),
          KernelArg::integer(w.scalars.at("out_width")),
          KernelArg::integer(w.scalars.at("out_height"))};
}

// channel_z of the direct kernels (cl_direct, cuda_direct): 1 puts the channel in the block's z dimension,
// one channel per thread (seed 003's block z = channel); 0: every thread computes all channels.
inline ParamDecl channel_z_param() {
  return int_choice("channel_z", 0,
                    "1: block z = channel, one channel per thread (seed 003); 0: each thread computes every channel",
                    {0, 1});
}

// A direct kernel's z extent: the images of a batch in the grid's z (seed 003's grid z = image) and, with
// channel_z, the channels in the block's z. dims 3 where either is above 1; PlanError where the block's
// threads exceed `max_threads` (0: unknown) or the batch the grid's z limit `max_grid_z` (0: unknown).
inline void set_batch_depth(LaunchPlan& plan, const ConvSpec& s, int channel_z, double max_threads, double max_grid_z) {
  const std::size_t depth = channel_z ? static_cast<std::size_t>(s.channels) : 1;
  const double threads = static_cast<double>(plan.local[0] * plan.local[1] * depth);
  if (max_threads > 0 && threads > max_threads)
    throw PlanError(fmt::format("block {}x{}x{} = {} threads exceeds the device's {}", plan.local[0], plan.local[1],
                                depth, threads, max_threads));
  if (max_grid_z > 0 && s.batch > max_grid_z)
    throw PlanError(fmt::format("batch={} exceeds the device's grid z extent {}", s.batch, max_grid_z));
  if (s.batch == 1 && depth == 1) return;
  plan.dims = 3;
  plan.global[2] = static_cast<std::size_t>(s.batch) * depth;
  plan.local[2] = depth;
}

// The knobs of the portable vector body (kernels/conv/conv_vec_body.h) that cuda_vec and cl_vec both
// declare: vec, rows, separable, packed; `item` says what computes them ("thread", "work-item").
inline std::vector<ParamDecl> vec_body_params(const std::string& item) {
  return {int_choice("vec", 16, "output bytes per " + item + " along a row (4, 8 or 16): one vector", {4, 8, 16}),
          int_range("rows", 8, "consecutive output rows per " + item + " (1..32)", 1, 32),
          int_choice("separable", 0, "1: filter each row along x, then the rows along y (only for a separable filter)",
                     {0, 1}),
          int_choice("packed", 0,
                     "1 (with separable=1): two 16-bit lanes per 32-bit word in both passes (where the filter's "
                     "sums fit 16 bits)",
                     {0, 1}),
          int_choice("simd", 0,
                     "1 (with separable=0): the KxK taps on two biased 16-bit lanes per 32-bit word, saturated from "
                     "sign bits (small signed weights, divisor a power of two up to 256)",
                     {0, 1})};
}

// The knobs cl_read_knobs() and cuda_read_knobs() share, read into `k` through the declarations of `all`
// (every knob of the API, not the variant's subset): block_x, block_y, items_x, items_y, filter_mem (0 global,
// 1 constant, 2 private literals), unroll, arith.
template <class Knobs>
void read_shared_knobs(Knobs& k, const PlanContext& all) {
  k.block_x = all.int_knob("block_x");
  k.block_y = all.int_knob("block_y");
  k.items_x = all.int_knob("items_x");
  k.items_y = all.int_knob("items_y");
  const std::string mem = all.text_knob("filter_mem");
  k.filter_mem = mem == "global" ? 0 : mem == "constant" ? 1 : 2;
  k.unroll = all.int_knob("unroll");
  k.arith = all.text_knob("arith") == "lut" ? 1 : 0;
}

// The problem's defines, then the shared knobs' BLOCK_X, BLOCK_Y, ITEMS_X, ITEMS_Y, FILTER_MEM, UNROLL.
template <class Knobs>
void add_shared_defines(LaunchPlan& plan, const Workload& w, const Knobs& k) {
  add_problem_defines(plan, w);
  add_define(plan, "BLOCK_X", std::to_string(k.block_x));
  add_define(plan, "BLOCK_Y", std::to_string(k.block_y));
  add_define(plan, "ITEMS_X", std::to_string(k.items_x));
  add_define(plan, "ITEMS_Y", std::to_string(k.items_y));
  add_define(plan, "FILTER_MEM", std::to_string(k.filter_mem));
  add_define(plan, "UNROLL", std::to_string(k.unroll));
}

// dims 2; global = ceil(out / ITEMS) rounded up to the block in x and y; local = the block.
template <class Knobs>
void set_block_geometry(LaunchPlan& plan, const ConvSpec& s, const Knobs& k) {
  const auto bx = static_cast<std::size_t>(k.block_x), by = static_cast<std::size_t>(k.block_y);
  plan.dims = 2;
  plan.global = {round_up(ceil_div(static_cast<std::size_t>(s.out_width), static_cast<std::size_t>(k.items_x)), bx),
                 round_up(ceil_div(static_cast<std::size_t>(s.out_height), static_cast<std::size_t>(k.items_y)), by),
                 1};
  plan.local = {bx, by, 1};
}

// The bytes of the input tile a tiled kernel's block stages: its output pixels plus the halo of R = K / 2
// on every side, every channel.
template <class Knobs>
double tile_bytes(const ConvSpec& s, const Knobs& k) {
  const int r = s.k / 2;
  return static_cast<double>(s.channels) * (k.block_x * k.items_x + 2 * r) * (k.block_y * k.items_y + 2 * r);
}

// PlanError when a tiled kernel's tile exceeds the device's `limit` (local_mem_size, shared_mem_per_block; the
// device's local_mem_bytes where it is not stated, unchecked where that is 0): PlanContext::check_local_bytes
// reads local_mem_size alone, and its refusal does not name the tile (`what`: "local", "shared").
template <class Knobs>
void check_tile(const ConvSpec& s, const Knobs& k, const PlanContext& x, const char* limit, const char* what) {
  const double tile = tile_bytes(s, k);
  const double max = x.limit(limit, static_cast<double>(x.device.local_mem_bytes));
  if (max > 0 && tile > max) throw PlanError(fmt::format("{} tile of {} bytes exceeds {} {}", what, tile, limit, max));
}

// The input read as 2-D texels of one byte (cl_image's image, cuda_texture's texture): width*channels wide
// interleaved, height*channels tall planar. PlanError past the device's image2d_max_width x
// image2d_max_height (`input`, `limit`: each API's words for the image and its limit).
struct Texels {
  int x, y;
};
inline Texels input_texels(const ConvSpec& s, const PlanContext& x, const char* input, const char* limit) {
  const Texels t{s.planar ? s.width : s.width * s.channels, s.planar ? s.height * s.channels : s.height};
  const double max_w = x.limit("image2d_max_width", 0), max_h = x.limit("image2d_max_height", 0);
  if (t.x > max_w || t.y > max_h)
    throw PlanError(fmt::format("{} of {}x{} texels exceeds the device's {} limit {}x{}", input, t.x, t.y, limit,
                                max_w, max_h));
  return t;
}

// The vector body's VEC, ROWS, SEPARABLE, PACKED, SIMD.
inline void add_vec_body_defines(LaunchPlan& plan, std::int64_t vec, std::int64_t rows, int separable, int packed,
                                 int simd) {
  add_define(plan, "VEC", std::to_string(vec));
  add_define(plan, "ROWS", std::to_string(rows));
  add_define(plan, "SEPARABLE", std::to_string(separable));
  add_define(plan, "PACKED", std::to_string(packed));
  add_define(plan, "SIMD", std::to_string(simd));
}

// The vector body's geometry: x over vec-byte vectors of an output row, y over groups of `rows` rows of
// every plane; dims 2, local = the bx x by block.
inline void set_vec_body_geometry(LaunchPlan& plan, const ConvSpec& s, std::size_t bx, std::size_t by, std::int64_t vec,
                                  std::int64_t rows) {
  const std::size_t row_bytes = static_cast<std::size_t>(s.out_width) * (s.planar ? 1 : s.channels);
  const std::size_t planes = s.planar ? static_cast<std::size_t>(s.channels) : 1;
  const std::size_t groups = ceil_div(static_cast<std::size_t>(s.out_height), static_cast<std::size_t>(rows));
  plan.dims = 2;
  plan.global = {ceil_div(ceil_div(row_bytes, static_cast<std::size_t>(vec)), bx) * bx,
                 ceil_div(planes * groups, by) * by, 1};
  plan.local = {bx, by, 1};
}

// Whether the family found the filter allows an arithmetic path: its define (PIMG_SEPARABLE, PIMG_PACKED,
// PIMG_SIMD: conv_family.cpp) is "1".
inline bool filter_allows(const Workload& w, const char* define) {
  const auto it = w.defines.find(define);
  return it != w.defines.end() && it->second == "1";
}

// The separable=1, packed=1 and simd=1 knobs of cuda_vec and cl_vec against what the family found for the
// filter: PlanError where the filter does not allow them.
inline void check_passes(const Workload& w, int separable, int packed, int simd) {
  auto allows = [&](const char* define) { return filter_allows(w, define); };
  if (separable && !allows("PIMG_SEPARABLE"))
    throw PlanError("separable=1 but the filter has no integer factorisation into a column and a row");
  if (packed && !separable) throw PlanError("packed=1 needs separable=1");
  if (packed && !allows("PIMG_PACKED"))
    throw PlanError("packed=1 but the filter's factors are negative, their sums pass 16 bits, or the divisor "
                    "is not a power of two up to 256");
  if (simd && separable) throw PlanError("simd=1 takes the KxK taps: it needs separable=0");
  if (simd && !allows("PIMG_SIMD"))
    throw PlanError("simd=1 but the filter's weights are too large for biased 16-bit lanes (255 x the positive or "
                    "the negative weights' sum near 2^15) or the divisor is not a power of two up to 256");
}

}  // namespace pimg::conv
