// Where the runner has a configuration measured: in its own process, or in a worker process it
// supervises (the default). A worker opens its device once and keeps the device context and the
// compile caches between configurations; a run that never returns is killed at the timeout and a
// worker that dies is reported as `crash`, after which the next evaluation starts a fresh worker.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"
#include "pimg/family.hpp"
#include "pimg/observer.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"
#include "pimg/variant.hpp"

namespace pimg {

class Registry;

// One configuration to measure; the workload and reference belong to the caller.
struct EvalJob {
  const Problem& problem;
  const Workload& workload;
  const std::vector<std::uint8_t>& expected;
  const Variant& variant;
  const Config& config;
  double race_bar_ms = 0;  // EvalContext::race_bar_ms
};

// The confirmation stage's configurations of one problem (executor.hpp's confirm_candidates); the
// references belong to the caller.
struct ConfirmJob {
  const Problem& problem;
  const Workload& workload;
  std::vector<ConfirmCandidate> candidates;
  std::uint64_t seed = 0;
};

// A device ready to evaluate configurations, one at a time.
class DeviceSession {
 public:
  virtual ~DeviceSession() = default;
  virtual EvalResult evaluate(const EvalJob& job) = 0;
  // One result per candidate, stage "confirm"; empty when the worker died on the way (nothing to store).
  virtual std::vector<EvalResult> confirm(const ConfirmJob& job) = 0;
  // A reference computed by a configuration (evaluator.hpp's capture_output; job.expected is ignored), isolated as
  // every evaluation is: when it is ok, its output is written to the compile cache's entry (cache_sub, cache_key),
  // where the family's reference() reads it. A crash, hang, write past the end or unwritten output is the result's
  // status and log.
  virtual EvalResult capture(const EvalJob& job, const std::string& cache_sub, const std::string& cache_key) = 0;
  // The device's bandwidth ceiling of `kind` for a working set of `bytes` (see measure_ceiling); nullopt when
  // unavailable.
  virtual std::optional<Ceiling> ceiling(std::size_t bytes, int repeats, CeilingKind kind) = 0;
};

// Opens the device in this process; a hung or crashing kernel takes the caller with it. `observers` (see
// Registry::make_observers) watch every evaluation of the session.
std::unique_ptr<DeviceSession> open_in_process(const Family& family, const Backend& backend, const DeviceInfo& device,
                                               const MeasureSpec& measure,
                                               std::vector<std::unique_ptr<Observer>> observers = {});

// Runs evaluations in `worker_exe worker` (the pimg-tune binary), which makes the registry's observers of
// the device (Registry::make_observers) when it opens it, started at once so that a device
// that cannot be opened fails here. Throws std::runtime_error when the worker cannot start or open
// the device.
std::unique_ptr<DeviceSession> open_worker(const std::string& worker_exe, const Family& family,
                                           const Backend& backend, const DeviceInfo& device,
                                           const MeasureSpec& measure);

// Time allowed for everything before the first run of a configuration (reference, compile,
// upload) and for a worker to open its device; a run itself gets measure.timeout_s.
inline constexpr double kWorkerSetupTimeoutS = 300;

// The worker side (`pimg-tune worker`): serves requests on stdin and answers on the original
// stdout; whatever kernels or drivers print goes to stderr, which the supervisor keeps. Returns
// the process exit code.
int worker_main(const Registry& registry);

// A compile worker (`pimg-tune compile-worker`, workers/compile_worker.hpp): builds the plans it reads on stdin
// into the backends' disk caches (Backend::precompile) and answers each on the original stdout.
int compile_worker_main(const Registry& registry);

}  // namespace pimg
