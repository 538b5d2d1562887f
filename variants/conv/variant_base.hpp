// Small helpers shared by the conv variants: the problem's defines and arguments every kernel
// receives, and ceil-division for launch geometry.
#pragma once
#include <fmt/format.h>

#include <string>
#include <vector>

#include "conv_family.hpp"
#include "pimg/variant.hpp"

namespace pimg::conv {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

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

// The knobs cl_read_knobs() and cuda_read_knobs() share, read into `k` through their declarations:
// block_x, block_y, items_x, items_y, filter_mem (0 global, 1 constant, 2 private literals), unroll, arith.
template <class Knobs>
void read_shared_knobs(Knobs& k, const Config& c, const std::vector<ParamDecl>& decls) {
  auto knob = [&](const char* name) { return static_cast<int>(int_value(c, decls, name)); };
  k.block_x = knob("block_x");
  k.block_y = knob("block_y");
  k.items_x = knob("items_x");
  k.items_y = knob("items_y");
  const std::string mem = text_value(c, decls, "filter_mem");
  k.filter_mem = mem == "global" ? 0 : mem == "constant" ? 1 : 2;
  k.unroll = knob("unroll");
  k.arith = text_value(c, decls, "arith") == "lut" ? 1 : 0;
}

// The separable=1, packed=1 and simd=1 knobs of cuda_vec and cl_vec against what the family found for the
// filter (PIMG_SEPARABLE, PIMG_PACKED, PIMG_SIMD: conv_family.cpp): PlanError where the filter does not allow
// them.
inline void check_passes(const Workload& w, int separable, int packed, int simd) {
  auto allows = [&](const char* define) {
    const auto it = w.defines.find(define);
    return it != w.defines.end() && it->second == "1";
  };
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
