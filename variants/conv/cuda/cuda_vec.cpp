// cuda_vec: kernels/conv/conv_cuda_vec.cu, every thread computes `vec` consecutive output bytes (pixels and
// channels together) of `rows` consecutive rows, loading each input row's segment once as aligned vectors
// and storing each output row's bytes with one vector store; literal weights, unrolled taps. Threads at the
// image's left and right edges, and every thread of rows that are not vec-aligned, take a checked byte path.
#include <fmt/format.h>

#include "conv/cuda_common.hpp"

namespace pimg::conv {
namespace {

// Literal weights and full unrolling: the knob set's arith and wide are not declared.
constexpr CudaKnobSet kVecKnobs{false, false};

// args: in, out, width, height, out_width, out_height
LaunchPlan cuda_vec_plan(const PlanContext& x) {
  const Workload& w = x.workload;
  const ConvSpec s = spec_of(x.problem);
  require_one_image(s);
  const CudaKnobs k = cuda_literal_knobs(cuda_read_knobs(x));
  const int vec = x.int_knob("vec"), rows = x.int_knob("rows");
  const int separable = x.int_knob("separable"), shfl = x.int_knob("shfl");
  const int packed = x.int_knob("packed"), simd = x.int_knob("simd");
  check_passes(w, separable, packed, simd);
  if (shfl && k.block_x % 32 != 0)
    throw PlanError(fmt::format("shfl=1 needs block_x to be a multiple of 32 (whole warps), not {}", k.block_x));

  LaunchPlan plan;
  plan.entry = "conv_cuda_vec";
  cuda_add_defines(plan, w, k, kVecKnobs);
  add_vec_body_defines(plan, vec, rows, separable, packed, simd);
  add_define(plan, "SHFL", std::to_string(shfl));

  cuda_set_vec_plan(plan, s, static_cast<std::size_t>(k.block_x), static_cast<std::size_t>(k.block_y), vec, rows, x,
                    "block_y or rows");
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cuda_vec() {
  std::vector<ParamDecl> params;
  for (ParamDecl& d : cuda_knob_params(kVecKnobs))
    if (d.name == "block_x" || d.name == "block_y" || d.name == "launch_bounds" || d.name == "maxrregcount" ||
        d.name == "host_mem")
      params.push_back(std::move(d));
  for (ParamDecl& d : vec_body_params("thread")) params.push_back(std::move(d));
  params.push_back(int_choice("shfl", 0,
                              "1: neighbours' vectors from the lanes beside through __shfl_sync (block_x a multiple of "
                              "32)",
                              {0, 1}));
  return make_variant({"cuda_vec", "conv", "cuda", "conv/conv_cuda_vec.cu",
                       "CUDA vectorised convolution: vec output bytes x rows rows per thread, each input row loaded "
                       "once as aligned vectors, one vector store per output row",
                       std::move(params), cuda_vec_plan});
}

}  // namespace pimg::conv
