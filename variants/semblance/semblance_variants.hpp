// What the semblance variants share: checked parameter reading, the scalar arguments every kernel
// takes, the OpenCL/CUDA knobs of kernels/semblance/semblance_device.h and the plan built from them,
// and the factories register.cpp lists.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pimg/variant.hpp"
#include "semblance_family.hpp"

namespace pimg::semblance {

// The most ranks the MPI variants (mpi_grid, mpi_cuda_grid) declare.
inline constexpr int kMaxRanks = 64;

// t0, m0, h0, idt as real arguments (every kernel's last four).
void add_real_args(LaunchPlan& plan, const SembSpec& s);
// The host kernels' arguments (omp_grid's, mpi_cuda_grid's ranks'): samples, geom, hdr, axes, out, then the real ones.
void add_host_grid_args(LaunchPlan& plan, const SembSpec& s);
// The workload's defines (PIMG_NTR, PIMG_NS, PIMG_TAU, PIMG_W, PIMG_NA..PIMG_NE).
void add_problem_defines(LaunchPlan& plan, const Workload& w);

enum class DeviceApi { opencl, cuda };

// The knobs of the OpenCL and CUDA kernels (semblance_device.h).
struct DeviceKnobs {
  int dims = 3;
  int block_x = 32, block_y = 1, block_z = 1;
  int ppi = 1;           // grid points per item along E
  int precomp = 1;       // per-trace geometry from the host (1) or computed in the kernel (0)
  int inline_helpers = 1;
  int interp = 0;        // 0 the seed's interpolation, 1 simplified
  int geom_mem = 0;      // 0 global, 1 constant
  int window = 0;        // 0 private arrays, 1 num in local/shared memory
  int ldg = 0;           // CUDA: samples through __ldg
  int launch_bounds = 0; // CUDA: minimum blocks per multiprocessor, 0 none
  int final_block = 256; // arg-max: the final reduction's work-group size
  // Build options, not a define: 0 the compiler's defaults, 1 multiply-add contraction (OpenCL
  // -cl-mad-enable, CUDA --fmad=true), 2 fast relaxed math (-cl-fast-relaxed-math, --use_fast_math).
  int math = 0;
  int seed_map = 0;  // 1: seed 004's mappings (a define only when set)
};

std::vector<ParamDecl> device_params(DeviceApi api, bool argmax);
// A configuration's knobs (the `map` and `math` knobs where the variant declares them), checked against each
// other, the problem and the device. Throws PlanError.
DeviceKnobs read_device_knobs(const PlanContext& x, DeviceApi api, bool argmax);
// The knobs as the kernels' defines (DIMS, BLOCK_X, ..., ARGMAX, and LDG, LAUNCH_BOUNDS for CUDA), and
// back: the MPI worker that runs the kernel on each rank's GPU receives them this way. knobs_from_defines
// throws PlanError naming a missing or non-integer define; it checks nothing else (device_plan does).
std::vector<std::pair<std::string, std::string>> knob_defines(const DeviceKnobs& k, DeviceApi api, bool argmax);
DeviceKnobs knobs_from_defines(const std::map<std::string, std::string>& defines, DeviceApi api);
// The plan of semb_grid (argmax = false: every point's semblance and stack) or of semb_grid with
// per-group maxima into scratch and the step semb_argmax_final (argmax = true).
LaunchPlan device_plan(const SembSpec& s, const Workload& w, const DeviceKnobs& k, const DeviceInfo& d, DeviceApi api,
                       bool argmax);

// The OpenCL and CUDA variants differ only by these (cl_grid.cpp, cl_argmax.cpp, cuda_*.cpp).
struct DeviceVariantSpec {
  std::string name, backend, source;
  DeviceApi api;
  bool argmax;
  std::string help;
};
std::unique_ptr<Variant> make_device_variant(DeviceVariantSpec spec);

std::unique_ptr<Variant> make_omp_grid();
std::unique_ptr<Variant> make_cl_grid();
std::unique_ptr<Variant> make_cl_argmax();
std::unique_ptr<Variant> make_cuda_grid();
std::unique_ptr<Variant> make_cuda_argmax();
std::unique_ptr<Variant> make_mpi_grid();
std::unique_ptr<Variant> make_mpi_cuda_grid();

}  // namespace pimg::semblance
