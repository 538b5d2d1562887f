// Shared by the CUDA conv variants (cuda_*.cpp, npp.cpp): their parameters, the knobs read from a
// configuration and checked against the device (PlanError when they cannot run there), the defines and
// NVRTC options they become, and the launch geometry and scalar arguments every conv kernel takes.
#pragma once
#include <memory>
#include <vector>

#include "conv_family.hpp"
#include "pimg/registry.hpp"
#include "variant_base.hpp"

namespace pimg::conv {

// The plan option the CUDA backend reads as "stage uploads and downloads through pinned host memory"
// (kPinnedOption of tuner/nvrtc/nvrtc_compiler.hpp); it never reaches the compiler.
inline constexpr const char* kCudaPinnedOption = "pimg:pinned";

// A configuration's knobs, as the CUDA kernels' defines and the backend's options take them.
struct CudaKnobs {
  int block_x = 32, block_y = 4;  // thread block
  int items_x = 1, items_y = 1;   // output pixels (wide: 16-byte vectors along x) per thread
  int filter_mem = 1;             // FILTER_MEM: 0 global, 1 __constant__, 2 literal weights
  int unroll = 1;                 // UNROLL: 1 full unrolling of the tap loops, 0 none
  int arith = 0;                  // ARITH: 0 multiply, 1 lookup table (cuda_direct only)
  int launch_bounds = 0;          // LAUNCH_BOUNDS: 0 none, N: __launch_bounds__(threads, N)
  int maxrregcount = 0;           // NVRTC --maxrregcount; 0 leaves registers to the compiler
  int inline_helper = 1;          // INLINE: 1 __forceinline__, 0 __noinline__ per-pixel helper
  int wide = 0;                   // WIDE: 16-byte loads and stores (cuda_direct only)
  bool pinned = false;            // host_mem: pinned staging for uploads and downloads
};

// What a variant declares beyond the common knobs.
struct CudaKnobSet {
  bool arith = false;
  bool wide = false;
};

// block_x, block_y, items_x, items_y, filter_mem, unroll, launch_bounds, maxrregcount, inline,
// host_mem, and arith and wide when the set has them.
std::vector<ParamDecl> cuda_knob_params(CudaKnobSet set);
// host_mem alone (the NPP baseline).
ParamDecl cuda_host_mem_param();

// The knobs of the configuration (declared defaults for parameters it leaves out), checked for range and
// against the device's block limits. Throws PlanError. Not PlanContext::check_group: a CUDA block is limited
// by max_threads_per_block (check_group reads max_work_group_size) and its refusals say so.
CudaKnobs cuda_read_knobs(const PlanContext& x);
// The knobs of the kernels with literal weights and unrolled taps (cuda_vec, cuda_mma, cuda_stream): one output item
// a thread in the knobs' sense, FILTER_MEM 2, UNROLL 1, no lookup table, the helpers inlined.
inline CudaKnobs cuda_literal_knobs(CudaKnobs k) {
  k.items_x = k.items_y = 1;
  k.filter_mem = 2;
  k.unroll = 1;
  k.arith = 0;
  k.inline_helper = 1;
  return k;
}
// Throws PlanError when `bytes` of __constant__ data exceed max_constant_buffer_size.
void cuda_check_constant_bytes(std::size_t bytes, const PlanContext& x);

// The problem's defines, then BLOCK_X, BLOCK_Y, ITEMS_X, ITEMS_Y, FILTER_MEM, UNROLL, LAUNCH_BOUNDS,
// INLINE (and ARITH, WIDE for the sets that have them); --maxrregcount and the pinned switch as options.
void cuda_add_defines(LaunchPlan& plan, const Workload& w, const CudaKnobs& k, CudaKnobSet set);
// dims 2; global = ceil(out / ITEMS) rounded up to the block; local = the block. Throws PlanError when
// the grid's y extent exceeds the device's, or for a batch.
void cuda_set_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, const PlanContext& x);
// cuda_direct's (wide 0): the same in x and y, the batch's images in the grid's z (blockIdx.z), with
// channel_z 1 the channels in the block's z (threadIdx.z), as seed 003 launched them.
void cuda_set_direct_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, int channel_z,
                              const PlanContext& x);
// The wide kernel's geometry: x over 16-byte vectors of an output row, y over rows of every plane; PlanError
// for a batch.
void cuda_set_wide_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, const PlanContext& x);

// The vector body's geometry (set_vec_body_geometry: vec-byte vectors along x, groups of `rows` rows along y, bx x by
// blocks), refused where its blocks along y pass the device's grid limit (CUDA's 65535 where it states none; the
// refusal says to raise `raise`), and the in, out and scalar arguments of the kernels built on it (cuda_vec,
// cuda_mma, cuda_stream).
void cuda_set_vec_plan(LaunchPlan& plan, const ConvSpec& s, std::size_t bx, std::size_t by, std::int64_t vec,
                       std::int64_t rows, const PlanContext& x, const char* raise);

std::unique_ptr<Variant> make_cuda_direct();
std::unique_ptr<Variant> make_cuda_vec();
std::unique_ptr<Variant> make_cuda_mma();
std::unique_ptr<Variant> make_cuda_stream();
std::unique_ptr<Variant> make_cuda_tiled();
std::unique_ptr<Variant> make_cuda_texture();
std::unique_ptr<Variant> make_npp_filter();

// Adds cuda_direct, cuda_vec, cuda_mma, cuda_stream, cuda_tiled, cuda_texture and npp_filter.
void register_cuda_variants(Registry& reg);

}  // namespace pimg::conv
