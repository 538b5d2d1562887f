// The CUDA conv variants' registration and the helpers they share (cuda_common.hpp): parameter
// declarations, knob parsing with device checks, defines and NVRTC options, launch geometry and
// scalar arguments. The variants need no CUDA headers and register in every build.
#include <fmt/format.h>

#include "cuda_common.hpp"
#include "pimg/registry.hpp"

namespace pimg::conv {
namespace {

// Every knob cuda_read_knobs() reads, checked against these declarations (a variant declares a subset).
const std::vector<ParamDecl>& all_knobs() {
  static const std::vector<ParamDecl> decls = cuda_knob_params({true, true});
  return decls;
}

// Not PlanContext::gpu_plan's check: where the device states no limit this one takes CUDA's 65535, and its
// refusal says which knobs to raise.
void check_grid_y(const LaunchPlan& plan, const PlanContext& x, const char* raise = "block_y or items_y") {
  const double max_y = x.limit("max_grid_size_1", 65535);
  const double blocks = static_cast<double>(plan.global[1] / plan.local[1]);
  if (blocks > max_y)
    throw PlanError(fmt::format("{} blocks along y exceed the device's grid limit {} (raise {})", blocks, max_y, raise));
}

}  // namespace

void cuda_set_vec_plan(LaunchPlan& plan, const ConvSpec& s, std::size_t bx, std::size_t by, std::int64_t vec,
                       std::int64_t rows, const PlanContext& x, const char* raise) {
  set_vec_body_geometry(plan, s, bx, by, vec, rows);
  check_grid_y(plan, x, raise);
  plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
  add_scalar_args(plan, s);
}

std::vector<ParamDecl> cuda_knob_params(CudaKnobSet set) {
  const CudaKnobs def;
  std::vector<ParamDecl> out = {
      int_range("block_x", def.block_x, "thread block width", 1, 1024),
      int_range("block_y", def.block_y, "thread block height", 1, 1024),
      int_range("items_x", def.items_x,
                set.wide ? "output pixels per thread along x (wide=1: 16-byte vectors)" : "output pixels per thread along x",
                1, 64),
      int_range("items_y", def.items_y, "output pixels per thread along y", 1, 64),
      text_choice("filter_mem", {"global", "constant", "private"}, "constant",
                  "where the weights live: global memory, __constant__ memory (compile-time data), or literal weights"),
      int_choice("unroll", def.unroll, "1: fully unrolled tap loops; 0: #pragma unroll 1", {0, 1}),
      int_range("launch_bounds", def.launch_bounds,
                "0: none; N: __launch_bounds__(block_x*block_y, N) (N blocks per multiprocessor)", 0, 32),
      int_range("maxrregcount", def.maxrregcount, "0: compiler's choice; N: --maxrregcount=N (16..255)", 0, 255),
      int_choice("inline", def.inline_helper, "1: __forceinline__ per-pixel (wide: per-vector) helper; 0: __noinline__",
                 {0, 1}),
  };
  if (set.arith)
    out.push_back(text_choice("arith", {"mul", "lut"}, "mul",
                              "mul: weight * pixel; lut: a per-weight table of weight * v for every byte v"));
  if (set.wide)
    out.push_back(int_choice("wide", def.wide,
                             "1: each thread computes 16-byte vectors with 16-byte loads and stores where aligned", {0, 1}));
  out.push_back(cuda_host_mem_param());
  return out;
}

ParamDecl cuda_host_mem_param() {
  return text_choice("host_mem", {"pageable", "pinned"}, "pageable",
                     "host memory of uploads and downloads: pageable, or staged through pinned (page-locked) memory");
}

CudaKnobs cuda_read_knobs(const PlanContext& x) {
  const PlanContext all{x.problem, x.workload, x.config, x.device, all_knobs()};
  CudaKnobs k;
  read_shared_knobs(k, all);
  k.launch_bounds = all.int_knob("launch_bounds");
  k.maxrregcount = all.int_knob("maxrregcount");
  if (k.maxrregcount != 0 && k.maxrregcount < 16)  // the declaration's 0..255 less NVRTC's floor
    throw PlanError(fmt::format("maxrregcount={} is neither 0 nor in 16..255", k.maxrregcount));
  k.inline_helper = all.int_knob("inline");
  k.wide = all.int_knob("wide");
  k.pinned = all.text_knob("host_mem") == "pinned";

  const double max_threads = x.limit("max_threads_per_block", static_cast<double>(x.device.max_work_group_size));
  const double threads = static_cast<double>(k.block_x) * k.block_y;
  if (max_threads > 0 && threads > max_threads)
    throw PlanError(fmt::format("block {}x{} = {} threads exceeds max_threads_per_block {}", k.block_x, k.block_y,
                                threads, max_threads));
  if (k.block_x > x.limit("max_work_item_size_0", k.block_x) || k.block_y > x.limit("max_work_item_size_1", k.block_y))
    throw PlanError(fmt::format("block {}x{} exceeds the device's block dimensions {}x{}", k.block_x, k.block_y,
                                x.limit("max_work_item_size_0", 0), x.limit("max_work_item_size_1", 0)));
  return k;
}

void cuda_check_constant_bytes(std::size_t bytes, const PlanContext& x) {
  check_constant_bytes(bytes, x, "__constant__ data");
}

void cuda_add_defines(LaunchPlan& plan, const Workload& w, const CudaKnobs& k, CudaKnobSet set) {
  add_shared_defines(plan, w, k);
  add_define(plan, "LAUNCH_BOUNDS", std::to_string(k.launch_bounds));
  add_define(plan, "INLINE", std::to_string(k.inline_helper));
  if (set.arith) add_define(plan, "ARITH", std::to_string(k.arith));
  if (set.wide) add_define(plan, "WIDE", std::to_string(k.wide));
  if (k.maxrregcount > 0) plan.options.push_back(fmt::format("--maxrregcount={}", k.maxrregcount));
  if (k.pinned) plan.options.push_back(kCudaPinnedOption);
}

void cuda_set_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, const PlanContext& x) {
  require_one_image(s);
  cuda_set_direct_geometry(plan, s, k, 0, x);
}

void cuda_set_direct_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, int channel_z,
                              const PlanContext& x) {
  set_block_geometry(plan, s, k);
  check_grid_y(plan, x);
  set_batch_depth(plan, s, channel_z,
                  x.limit("max_threads_per_block", static_cast<double>(x.device.max_work_group_size)),
                  x.limit("max_grid_size_2", kMaxBatch));
}

void cuda_set_wide_geometry(LaunchPlan& plan, const ConvSpec& s, const CudaKnobs& k, const PlanContext& x) {
  require_one_image(s);
  const auto bx = static_cast<std::size_t>(k.block_x), by = static_cast<std::size_t>(k.block_y);
  const std::size_t bytes_per_pixel = s.planar ? 1 : static_cast<std::size_t>(s.channels);
  const std::size_t rows = static_cast<std::size_t>(s.out_height) * (s.planar ? s.channels : 1);
  const std::size_t vectors = ceil_div(static_cast<std::size_t>(s.out_width) * bytes_per_pixel, 16);
  plan.dims = 2;
  plan.global = {round_up(ceil_div(vectors, static_cast<std::size_t>(k.items_x)), bx),
                 round_up(ceil_div(rows, static_cast<std::size_t>(k.items_y)), by), 1};
  plan.local = {bx, by, 1};
  check_grid_y(plan, x);
}

void register_cuda_variants(Registry& reg) {
  reg.add_variant(make_cuda_direct());
  reg.add_variant(make_cuda_vec());
  reg.add_variant(make_cuda_mma());
  reg.add_variant(make_cuda_stream());
  reg.add_variant(make_cuda_tiled());
  reg.add_variant(make_cuda_texture());
  reg.add_variant(make_npp_filter());
}

}  // namespace pimg::conv
