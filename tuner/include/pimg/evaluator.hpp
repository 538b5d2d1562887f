// Evaluates one configuration of one variant on an opened device: plan, compile, upload, warm up,
// then N timed runs, each with the output poisoned before and validated against the reference after.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/family.hpp"
#include "pimg/observer.hpp"
#include "pimg/residency.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"
#include "pimg/variant.hpp"

namespace pimg {

// A session's allowance for measuring again what its observers flagged "loaded" (other processes used the
// CPU while it ran, docs/observers.md): such a median says as much about the other processes as about the
// configuration (one run of the main job measured a configuration at 7.7 ms that the next run timed at
// 0.015 ms, and raced it out). A loaded measurement is taken once more, while the session has measured again
// fewer than 4 + 10% of its evaluations: a passing burst is measured around, a load that stays costs at most a
// tenth more time and its measurements keep their flag.
struct LoadRetries {
  std::int64_t evaluations = 0;  // evaluations of the session so far
  std::int64_t retries = 0;      // measurements taken again
  bool allow() const { return retries < 4 + evaluations / 10; }
};

struct EvalContext {
  const Family& family;
  const Problem& problem;
  const Workload& workload;
  const std::vector<std::uint8_t>& expected;  // the reference output
  Device& device;
  MeasureSpec measure;
  // Called before each run, warm-ups included (0-based): a worker reports it to its supervisor,
  // which times each run against measure.timeout_s.
  std::function<void(int run)> on_run = {};
  // Observers of this evaluation (not owned): called around it and around each timed run; what they
  // return lands in EvalResult::metrics and ::flags.
  std::vector<Observer*> observers = {};
  // The device copies of the problem's inputs and reference kept between configurations (not owned; null:
  // this evaluation uploads its own).
  DeviceResidency* resident = nullptr;
  // Racing (MeasureSpec::race): the upper end of the best median interval of this configuration's (problem, device)
  // so far, in ms; 0: nothing to race against (and racing off).
  double race_bar_ms = 0;
  // The session's LoadRetries (not owned; null: a loaded measurement stands as it is).
  LoadRetries* load_retries = nullptr;
};

// The racing rule (MeasureSpec::race, docs/measurement.md): true when a configuration whose timed runs so far are
// `samples` cannot win against a best interval whose upper end is `bar_ms`: the lower end of its median's 95%
// interval above (1 + margin) * bar_ms. Never before `least` runs, never without a bar or a margin.
bool raced(const std::vector<double>& samples, std::size_t least, double bar_ms, double margin);

// The plan of one kernel step of `plan` (LaunchStep without `host`): the plan's compile-time settings
// (defines, options) with the step's entry, geometry and arguments, compiled and launched like a plan.
LaunchPlan step_plan(const LaunchPlan& plan, const LaunchStep& step);

EvalResult evaluate(const EvalContext& ctx, const Variant& variant, const Config& config);

// A reference computed by a configuration (a T1 file's default configuration): `variant` at `config` evaluated
// as every configuration is (compile, canaries, the run timeout), a warm-up and one timed run with the output
// poisoned differently before each, its output kept instead of compared with ctx.expected (ignored). An output
// that differs between the two runs is refused as wrong_result: elements that keep the poison were never written,
// others show a kernel that is not deterministic. Stage "reference"; when ok, the output is written to the compile
// cache's entry (cache_sub, cache_key), where the family's reference() reads it.
EvalResult capture_output(const EvalContext& ctx, const Variant& variant, const Config& config,
                          const std::string& cache_sub, const std::string& cache_key);

// What a bandwidth ceiling measures (docs/measurement.md, "The bandwidth ceiling"): a copy reads every byte of a
// buffer once and writes it once (GB/s count both); a read reads every byte once and writes a few partial sums
// (GB/s count the bytes read): the floor of a kernel that reads far more than it writes.
enum class CeilingKind { copy, read };
const char* ceiling_kind_name(CeilingKind k);  // "copy", "read"
// The sum (modulo 2^32) of the whole 32-bit words of `bytes`: what a read kernel's partial sums add up to.
std::uint32_t word_sum(std::span<const std::uint8_t> bytes);

// The device's bandwidth ceiling of `kind` for a working set of `bytes`: for a copy, the best of the API's own
// device-to-device copy and the backend's copy kernel at several launch geometries; for a read, the best of the
// backend's read kernel's plans and geometries (on bytes rounded down to 16); each timed by `timing` (best of
// `repeats` runs) and checked.
struct Ceiling {
  double gbs = 0;
  std::string how;     // "native copy", "copy_vec 528x256", "read_x4 4096x256", ...
  std::string method;  // the timing method
  CeilingKind kind = CeilingKind::copy;
};
std::optional<Ceiling> measure_ceiling(const Backend& backend, Device& device, std::size_t bytes, int repeats,
                                       const TimingMethod& timing, CeilingKind kind = CeilingKind::copy);
// Every way measure_ceiling() tries, each with its bandwidth: for a copy, the API's device-to-device copy ("native
// copy") and each plan of the backend's copy kernel that builds on the device and copies every byte; for a read,
// each plan of the backend's read kernel whose partial sums add up to the input's. The ceiling is the fastest. For
// benchmarks that show how close each way gets.
struct CopyWay {
  std::string entry;  // "native copy", or the kernel's entry point
  std::string how;    // with its geometry: "copy_vec 528x256"
  double gbs = 0;
};
std::vector<CopyWay> measure_copies(const Backend& backend, Device& device, std::size_t bytes, int repeats,
                                    const TimingMethod& timing, CeilingKind kind = CeilingKind::copy);

}  // namespace pimg
