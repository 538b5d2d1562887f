// Shared by the GPU hist variants: the portable ones' identity, the knobs they declare alike, and the plan
// every one builds: the problem's defines plus the knobs, a 1-D or 2-D range, the (in, bins, n) arguments and,
// for variants that add into the bins with atomics, a clear kernel launched first.
#pragma once
#include <array>
#include <string>
#include <vector>

#include "common/pix_common.hpp"
#include "hist_common.hpp"

namespace pimg::hist {

// A portable GPU hist variant (kernels/hist/hist_<stem>_gpu.h, one text for OpenCL and CUDA) on one target:
// named <prefix>_<stem> (cl_global, cuda_global), its source kernels/hist/hist_<stem><extension>.
inline VariantSpec gpu_variant(const pix::PortableTarget& gpu, const std::string& stem, std::string help,
                               std::vector<ParamDecl> params, PlanFn plan) {
  return {pix::gpu_name(gpu, stem), "hist", gpu.backend, "hist/hist_" + stem + gpu.extension, std::move(help),
          std::move(params), std::move(plan)};
}

// PlanError for a planar problem: the CUDA libraries (CUB, NPP) and cuda_shared count interleaved channels
// only, so a planar problem is skipped on them (docs/families.md, hist).
void interleaved_only(const Problem& p, const std::string& variant);

// One GPU hist kernel launch as a variant describes it.
struct GpuKernel {
  std::string entry;
  std::vector<std::pair<std::string, std::string>> defines;  // knobs, beside the problem's
  int dims = 1;
  std::array<std::size_t, 3> global{1, 1, 1};
  std::array<std::size_t, 3> local{0, 0, 0};
  std::int64_t count = 0;  // the kernel's last argument: pixels or samples
};

// The plan of kernel k on the problem: (in, out, count) arguments. With `clear`, the plan's own
// entry is `clear_entry` zeroing the output's bins and k runs after it as a step.
LaunchPlan gpu_hist_plan(const Workload& w, const GpuKernel& k, bool clear, const std::string& clear_entry);

// The GROUPS knob: the number of work-groups (blocks), 0 for `per_unit` per compute unit.
std::size_t groups_of(const PlanContext& x, int per_unit);

// The `layout` knob of the shared/local sub-histograms (also histeq's): `blocked` keeps each copy's
// bins contiguous (copy r of bin b at r * bins + b), `interleaved` interleaves the copies word by word
// (b * copies + r) with thread t counting into copy t % copies, so that with 32 copies the lanes of a
// warp hit 32 distinct banks instead of bank b % 32.
ParamDecl layout_param();
// The kernels' INTERLEAVED define for the layout knob: "1" for interleaved, "0" for blocked.
std::string interleaved_of(const PlanContext& x);

// The portable variants, one per target (register_hist), and those of one backend that its plug-in
// (variants/hist/<backend>/) registers.
std::unique_ptr<Variant> make_global(const pix::PortableTarget& gpu);
std::unique_ptr<Variant> make_packed(const pix::PortableTarget& gpu);
std::unique_ptr<Variant> make_outpart(const pix::PortableTarget& gpu);
std::unique_ptr<Variant> make_cl_local();
std::unique_ptr<Variant> make_cuda_shared();
std::unique_ptr<Variant> make_cub_histogram();
std::unique_ptr<Variant> make_npp_histogram();

}  // namespace pimg::hist
