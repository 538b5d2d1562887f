// cl_outpart and cuda_outpart: kernels/hist/hist_outpart_gpu.h (one text for OpenCL and CUDA), output
// partition (seed 002's fourth variant): each work-group owns BPG bins, reads the whole input and writes its
// bins; no global atomics, no clear, a single kernel.
#include "gpu_common.hpp"

namespace pimg::hist {
namespace {

// The outpart stored without the vec knob: ported to CUDA with 16-byte loads only before the one text, its
// configurations keep the knobs they were stored with, so it keeps VEC 16 and declares no vec.
bool has_vec_knob(const std::string& name) { return name != "cuda_outpart"; }

}  // namespace

std::unique_ptr<Variant> make_outpart(const pix::PortableTarget& gpu) {
  const bool vec_knob = has_vec_knob(pix::gpu_name(gpu, "outpart"));
  std::vector<ParamDecl> params = {
      int_range("block", 256, "work-group (block) size", 1, 1024),
      int_choice("bpg", 64, "bins per group, dividing 256; groups = 256 x channels / bpg", {1, 2, 4, 8, 16, 32, 64, 128, 256})};
  if (vec_knob) params.push_back(int_choice("vec", 4, "bytes per load: 1 (uchar), 4 (uint) or 16 (uint4)", {1, 4, 16}));
  return make_variant(gpu_variant(
      gpu, "outpart",
      vec_knob ? "output partition: each group owns BPG bins and reads the whole input in VEC-byte loads; no "
                 "global atomics (seed 002)"
               : "output partition: each block owns BPG bins and reads the whole input in 16-byte loads; no "
                 "global atomics (seed 002)",
      params, [vec_knob](const PlanContext& x) {
        const Problem& p = x.problem;
        const int block = x.int_knob("block");
        const int bpg = x.int_knob("bpg");
        check_group(x.device, static_cast<std::size_t>(block), static_cast<std::size_t>(bpg) * 4);
        const int vec = vec_knob ? x.int_knob("vec") : 16;
        GpuKernel k{"hist_outpart",
                    {{"BLOCK", std::to_string(block)}, {"BPG", std::to_string(bpg)}, {"VEC", std::to_string(vec)}},
                    1};
        const std::size_t groups = static_cast<std::size_t>(256 / bpg) * p.channels;
        k.global = {groups * block, 1, 1};
        k.local = {static_cast<std::size_t>(block), 1, 1};
        k.count = static_cast<std::int64_t>(spec_of(p).samples());
        return gpu_hist_plan(x.workload, k, false, "");
      }));
}

}  // namespace pimg::hist
