// A space file (YAML) loaded and checked: the family's problems, the backends and devices to use,
// each variant's parameter values and constraints, the strategy and the measurement settings.
// Every error names file:line:column and is a UsageError (exit code 2).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/problem.hpp"
#include "pimg/search_space.hpp"

namespace pimg {

class Registry;

struct SourcePos {
  std::string file;
  int line = 0, column = 0;  // 1-based; 0 when unknown
  std::string str() const;   // "file:line:column"
};

struct ParamValues {
  std::string name;
  std::vector<Value> values;
  SourcePos pos;
};

struct Constraint {
  std::string expr;
  SourcePos pos;
};

struct VariantSpace {
  std::string variant;
  std::vector<ParamValues> params;   // every declared parameter; defaults fill the missing ones
  std::vector<Constraint> constraints;
  SourcePos pos;
  // Every valid configuration on a device, in lexicographic order of the parameters.
  // Throws UsageError (with the constraint's position) if a constraint fails to evaluate.
  std::vector<Config> enumerate(const DeviceInfo& device) const;
  // The same points as coordinates, built by pruning the product as a tree (see docs/spaces.md);
  // enumerate() is this space's configurations in point order.
  SearchSpace search_space(const DeviceInfo& device) const;
  std::uint64_t raw_size() const;  // product of value counts
};

struct BackendSelection {
  std::string backend;
  std::vector<std::string> devices;  // index or name substrings; empty = all
  SourcePos pos;
};

struct StrategySpec {
  std::string name = "exhaustive";
  std::map<std::string, std::string> options;  // validated against the strategy's declaration
  std::uint64_t seed = 1;
  SourcePos pos;
};

// How far the confirmation's sessions may move a deciding row before the stage runs more (ConfirmSpec::max_sessions):
// half the tool's resolution (pimg/decision.hpp's kTieResolution, 2%). Two sessions further apart leave a pooled
// median that can move by more than a ratio's 3% tolerance from one run to the next (bench/results/
// 2026-12-02-h200-seven-families-two-machines).
inline constexpr double kSettleSpread = 0.01;

// The confirmation stage (docs/measurement.md): after the search, the `top` best configurations of each
// (problem, device) and every baseline are measured again in interleaved rounds (each round runs each of
// them once, in a shuffled order) until every median's 95% interval is within +-noise, at least `rounds`
// and at most `max_rounds` rounds or `max_time_s` seconds; winners, ties and ratios come from there.
struct ConfirmSpec {
  int top = 5;  // 0 turns the stage off
  // Besides the top ones, every configuration whose search median is within `within` (relative) of the
  // search's best joins, up to `max` tuned candidates in all: the search's own order is not reliable
  // closer than that, and a winner left out of the stage could never be confirmed or called tied.
  double within = 0.04;
  int max = 20;
  int rounds = 10;
  int max_rounds = 60;
  double max_time_s = 20;  // the device class's (NoiseTarget) unless the space gives it: see max_time_given
  // Each candidate is prepared this many times over (its own buffers, allocated while the others live, and
  // its own program), and every round runs every preparation once: the samples of all preparations make
  // the candidate's median and interval, so an order that holds for one allocation only shows as a wide
  // interval (docs/measurement.md). Every session (below) prepares anew, so one is the default.
  int preparations = 1;
  // The whole stage runs this many times on a device, each time in a fresh session (a new worker process
  // when isolated, else a new device context), and a candidate's samples pool all of them: an order that
  // holds in one process only (on the 2-core CPU an OpenMP pair 5% apart with disjoint intervals swapped in
  // the next process; a PoCL configuration measured 0.86 ms in one process and 0.53 ms in the next, with
  // tight intervals in each) then shows as a wide interval. Samples of one session share its drift alike.
  int sessions = 2;             // on every device class (NoiseTarget's comment says why)
  // More sessions where the first ones disagree (confirm_decisive_spread, tuner/src/run/tuner_impl.hpp): a problem
  // whose winner, a candidate within `within` of it or a baseline moved by more than kSettleSpread between sessions
  // gets further fresh sessions, up to this many in all (never fewer than `sessions`). The device class's
  // (NoiseTarget) unless the space gives it: 4 on accelerators, where a kernel of tens of microseconds can move 2-4%
  // from one process to the next and a session costs seconds; 2 on the host's cores, where an order can move with
  // the share of each virtual core the machine gets, second to second: eight sessions narrowed that (19% to 12% of
  // run pairs disagreeing) without removing it, and on PoCL each session reopens PoCL and rebuilds every candidate
  // (NoiseTarget's comment; bench/results/2026-12-02-cpu-pair-order).
  int max_sessions = 4;
  bool max_time_given = false;  // the space set max_time_s: the device class's cap does not replace it
  bool max_sessions_given = false;  // the space set max_sessions: likewise
  bool operator==(const ConfirmSpec&) const = default;
};

// The whole-program stage (docs/observers.md): after the search and confirmation on a device, the `top`
// fastest configurations of each problem each run once as a standalone program would, in a fresh process
// with the compile caches off (device open, build, input, allocation, upload, run, download, release, each
// timed), stored with stage "cold". A space that turns the confirmation stage off (confirm: {top: 0})
// turns this one off too unless it sets `cold` itself.
struct ColdSpec {
  int top = 2;  // 0 turns the stage off
  bool operator==(const ColdSpec&) const = default;
};

// Limits on the counts a space may ask for (a run's count must fit every loop and every store column).
// The largest space file read (16 MiB): a larger one, or one without an end (/dev/zero), is refused.
inline constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
// A variant's valid configurations are listed in memory, one 4-byte index per parameter: at most this many indices
// (64 MiB; listing them evaluates the constraints for each, a few seconds at most). A larger space is searched as a uniform sample of kSampledPoints of its valid configurations
// (VariantSpace::search_space, SearchSpace::sampled_from).
inline constexpr std::size_t kMaxSpaceEntries = std::size_t{1} << 24;
inline constexpr std::size_t kSampledPoints = 100000;
inline constexpr int kMaxWarmups = 1000;
inline constexpr int kMaxRepeats = 100000;

// What a device class's medians can reach, and the time caps that go with it (docs/measurement.md, "Noise targets
// per device class"): a GPU's median settles within 0.5% (NVBench's default) in a few dozen runs; on the host's
// cores (the CPU backends, MPI ranks, PoCL) an interval rarely gets there in 100 runs (bench/results/
// 2026-11-29-cpu-main-job-racing: 0.6-0.7% at the median configuration, 2-7% at the 90th percentile), and the
// tool cannot tell two medians apart closer than its 2% resolution anyway (kTieResolution): half of that is
// the target, with shorter caps. The confirmation stage still decides winners and ties. Four shorter sessions on
// the host's cores instead of two were tried (bench/results/2026-11-30-cpu-main-job-sessions): the four sessions of
// one run took the same level and another run a different one, so they added time (the main job 290-351 s) and
// no agreement (8-9 of 10); with buffers placed alike since, eight sessions narrowed a reversing pair's disagreement
// without removing it, at a cost the main job cannot carry (bench/results/2026-12-02-cpu-pair-order). Both classes
// run ConfirmSpec's two, and accelerators up to two more where they disagree (ConfirmSpec::max_sessions).
struct NoiseTarget {
  double noise;
  double max_time_s;
  double confirm_max_time_s;  // per session
  int confirm_max_sessions;   // ConfirmSpec::max_sessions
};
inline constexpr NoiseTarget kAcceleratorNoise{0.005, 1.0, 20, 4};
inline constexpr NoiseTarget kHostCoresNoise{0.01, 0.3, 8, 2};

struct MeasureSpec {
  int warmups = 1;
  int repeats = 5;        // timed runs at least (exactly, when max_repeats is not above it)
  double timeout_s = 10;
  bool isolation = true;  // evaluate in a supervised worker process (docs/reliability.md)
  // Repetition driven by noise: after `repeats` timed runs, more until the 95% confidence interval of
  // the median is within +-noise of it, or max_repeats runs, or max_time_s seconds of runs.
  // noise and max_time_s (and confirm.max_time_s) are the device class's (NoiseTarget, for_device()) unless the
  // space gives them (noise_given, max_time_given).
  int max_repeats = 100;
  double noise = kAcceleratorNoise.noise;
  double max_time_s = kAcceleratorNoise.max_time_s;
  bool noise_given = false;
  bool max_time_given = false;
  // Racing (docs/measurement.md): once `repeats` timed runs are in, a search configuration stops as soon as the
  // lower end of its median's 95% interval is above (1 + race) times the upper end of the best interval of its
  // (problem, device) so far: it cannot be the winner nor within the confirmation stage's reach. It is stored ok,
  // flagged `raced`, its median honest and its interval wide. 0 turns racing off.
  double race = 0.1;
  TimingMethod timing;    // cold by default, launch latency hidden
  // Seconds of back-to-back runs after every configuration's timed runs, for the observers that need a window
  // that long (Observer::wants_window: NVML's energy); 0, the default, runs none.
  double energy_s = 0;
  ConfirmSpec confirm;
  ColdSpec cold;
  // Every field crosses to a worker (wire::encode_measure; tests/unit/wire_test.cpp round-trips each).
  bool operator==(const MeasureSpec&) const = default;

  // This spec for a device: its class's noise target and caps (NoiseTarget) where the space gave none.
  MeasureSpec for_device(const DeviceCaps& caps) const {
    const NoiseTarget& t = caps.host_cores ? kHostCoresNoise : kAcceleratorNoise;
    MeasureSpec m = *this;
    if (!noise_given) m.noise = t.noise;
    if (!max_time_given) m.max_time_s = t.max_time_s;
    if (!confirm.max_time_given) m.confirm.max_time_s = t.confirm_max_time_s;
    if (!confirm.max_sessions_given) m.confirm.max_sessions = t.confirm_max_sessions;
    return m;
  }

  // Exactly `repeats` timed runs after `warmups`, hot, no confirmation stage: what fixtures and
  // harnesses that check correctness (not speed) ask for; no whole-program stage either.
  static MeasureSpec fixed(int warmups, int repeats, double timeout_s) {
    MeasureSpec m;
    m.warmups = warmups;
    m.repeats = m.max_repeats = repeats;
    m.timeout_s = timeout_s;
    m.timing.cold = false;
    m.confirm.top = 0;
    m.cold.top = 0;
    return m;
  }
};

// A ladder (docs/spaces.md "ladder"): the steps of an optimisation story, in order, each a named
// configuration of one variant (every parameter set), on the selected devices of its backend that
// `device` matches (empty: all of them). The tuner measures them by the confirmation stage's method and
// stores them with stage "ladder"; the report prints each step's time and speed-ups.
struct LadderStep {
  std::string name;
  std::string variant;
  Config config;
  std::string device;  // a device selector (pimg/device_selector.hpp); empty: every selected device
  SourcePos pos;
};

struct Ladder {
  std::string name;  // empty with no steps: the space has no ladder
  std::vector<LadderStep> steps;
};

struct Space {
  std::string file;
  std::string family;
  std::vector<Problem> problems;
  std::vector<SourcePos> problem_pos;  // where each problem's entry is, parallel to problems
  std::vector<BackendSelection> backends;
  std::vector<VariantSpace> variants;
  StrategySpec strategy;
  MeasureSpec measure;
  Ladder ladder;
};

// Loads and validates a space file against the registry (families, variants, strategies).
Space load_space(const std::string& path, const Registry& registry);
Space load_space_text(const std::string& text, const std::string& file_label, const Registry& registry);

// Evaluates one constraint expression (muparser) with the given variables; throws UsageError.
bool eval_constraint(const Constraint& c, const std::map<std::string, double>& vars);

}  // namespace pimg
