// NVRTC as the CUDA backend uses it, without CUDA headers (nvrtc_loader.hpp): the options a plan
// compiles with and a source-to-cubin compile for a compute capability. Needs no driver, no GPU and no
// toolkit at build time, so CI compiles CUDA kernel sources through the path the backend takes.
#pragma once
#include <string>
#include <vector>

#include "pimg/backend.hpp"

namespace pimg::cuda {

// Plan options starting with this prefix are switches for the backend, never passed to NVRTC.
inline constexpr const char* kHarnessOptionPrefix = "pimg:";
// The plan option that asks for pinned (page-locked) host staging of uploads and downloads.
inline constexpr const char* kPinnedOption = "pimg:pinned";

struct NvrtcResult {
  bool ok = false;
  std::string log;                   // NVRTC's program log, or why NVRTC could not run
  std::vector<unsigned char> cubin;  // the device code when ok
  // NVRTC_ERROR_COMPILATION: these source and options do not compile (a property of them, which a cache may
  // keep), not NVRTC failing to run (out of memory, no library), which another try may not repeat.
  bool rejected = false;
};

// Empty when NVRTC loads, else the reason (libraries tried and dlerror's text).
std::string nvrtc_status();
// "13.0"; empty when NVRTC is unavailable.
std::string nvrtc_version();
// The file NVRTC was loaded from; empty when it is unavailable.
std::string nvrtc_library();

// --gpu-architecture=sm_<cc>, -std=c++17 (unless the plan names its own -std), -default-device, one
// -DNAME=VALUE per plan define, then the plan's own options (--maxrregcount=N, ...) without the
// harness switches. With the `source` it compiles, a define that source cannot read is left out
// (define_is_read), so that configurations differing only in such a parameter share one compile.
std::vector<std::string> nvrtc_options(const LaunchPlan& plan, int compute_capability,
                                       const std::string* source = nullptr);
// False only where a -D of `name` provably cannot change what `source` compiles to: the source includes no
// file (whose text could read it), pastes no tokens (##, which could make the name) and never spells the name
// as an identifier (comments included, to stay on the safe side). The T1 kernel of the hub's 15x15
// convolution never reads its `use_shmem` parameter, for one.
bool define_is_read(const std::string& source, const std::string& name);
// True when the plan carries kPinnedOption.
bool plan_wants_pinned(const LaunchPlan& plan);

// Compiles source.text to a cubin. Compile errors are a result (ok false, log), never an exception.
NvrtcResult nvrtc_compile(const KernelSource& source, const std::vector<std::string>& options);

}  // namespace pimg::cuda
