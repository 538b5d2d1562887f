// The whole-program run, the seeds' way (docs/observers.md): one configuration run once as a standalone
// program would, in a fresh process with the compile caches off; process start, device open, input, build,
// allocation, upload, run, download and release each timed, and the program's and the kernel's memory
// footprint (seed 002) measured. The runner's post-search stage runs it for the top configurations.
#pragma once
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/family.hpp"
#include "pimg/result.hpp"
#include "pimg/variant.hpp"

namespace pimg {

class Registry;

struct ColdRequest {
  const Family& family;
  const Backend& backend;
  const DeviceInfo& device;
  const Problem& problem;
  const Variant& variant;
  const Config& config;
  double timeout_s = 60;  // the whole child process
  // Non-empty: the child also writes the output its run downloaded (validated or not) to this file, and no
  // Nsight Compute run follows (the picture stage, pimg/picture.hpp).
  std::string output_path = {};
};

// The parts of a cold run, in the order a program meets them; metric "cold.<part>_ms" each, and
// "cold.total_ms" their sum.
inline constexpr const char* kColdParts[] = {"process_start", "device_open", "input", "build", "alloc",
                                             "upload",        "run",         "download", "release"};

// Runs `exe cold` (the pimg-tune binary) in a fresh process for one configuration. The result has stage
// "cold": status ok with the parts as metrics (cold.*), the run's time as its one sample; a child that fails,
// dies or outlives timeout_s gives its status (compile_error, crash, timeout, ...) and what it printed.
// With PIMG_NCU=1 in the environment, a CUDA device and Nsight Compute's `ncu` on the PATH, the same program
// is run once more under `ncu --csv` and its counters are added as ncu.* metrics (seq: the kernel launch).
EvalResult run_cold(const std::string& exe, const ColdRequest& req);

// The ncu.* metrics in the CSV that `ncu --csv --metrics ...` writes (one row per kernel launch and
// metric; seq numbers the launches); rows of other metrics and values ncu gives as "n/a" are left out.
std::vector<Metric> parse_ncu_csv(const std::string& text);

// The child (`pimg-tune cold`, hidden): reads its request on stdin, writes the result to the file the
// request names. Returns the process exit code.
int cold_main(const Registry& registry);

}  // namespace pimg
