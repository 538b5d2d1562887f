// The built-in observers (docs/measurement.md, docs/observers.md): `nvml` for CUDA devices (clocks,
// temperature, power, energy, throttle reasons), `cpu_load` for CPU backends (load average, CPU frequency,
// the share of the machine other processes used), `perf` (hardware counters), `footprint` (peak host
// memory) and `rapl` (CPU energy). One file and one registry line each.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pimg/observer.hpp"

namespace pimg {

ObserverInfo nvml_observer();
ObserverInfo cpu_load_observer();
ObserverInfo perf_observer();
ObserverInfo footprint_observer();
ObserverInfo rapl_observer();

// Why perf_event_open refuses hardware counters on this machine, empty when it allows them.
std::string perf_hardware_refusal();
// Why the RAPL energy counters cannot be read here, empty when they can.
std::string rapl_refusal();

// Whether evaluations on `d` run on the host's CPUs in the observing process's reach: DeviceCaps::host_cores
// and not distributed (MPI ranks are processes of their own).
bool runs_on_cpu(const DeviceInfo& d);
// runs_on_cpu(d); where not, `why` says that the observer `name` observes CPU backends only.
bool observes_cpu(const DeviceInfo& d, const std::string& name, std::string& why);

// NVML's clock-event (throttle) reason bits, as nvmlDeviceGetCurrentClocksEventReasons returns them.
// `throttled` when any bit other than GPU idle and the applications-clocks setting is set; `names`
// lists every set bit ("sw_power_cap,hw_thermal_slowdown"), unknown bits as hex.
struct ThrottleReasons {
  bool throttled = false;
  std::string names;
};
ThrottleReasons nvml_throttle_reasons(std::uint64_t mask);

// The energy of the timed runs (docs/observers.md): an energy counter read before the first timed run and
// after each; `energy.timed_j` over `energy.timed_s` (the window from the first run's start to the last
// one's end, the host's work between runs included) gives `energy.avg_w`. rapl and nvml store it alike, so
// that `best --objective energy` (average watts times the median time) reads one name. Over the back-to-back
// window (measure.energy_s, Observer::wants_window) the same names are stored, with the window's runs
// (`energy.window_runs`), the energy of one run (`energy.run_j`) and the share of the window the device was
// busy (`energy.busy_share`).
class EnergyWindow {
 public:
  bool started() const { return started_; }
  // The back-to-back window's runs and the device's time in them.
  void set_runs(std::int64_t runs, double device_ms) {
    runs_ = runs;
    device_ms_ = device_ms;
  }
  void start(double joules) {
    first_ = last_ = joules;
    t0_ = t1_ = std::chrono::steady_clock::now();
    started_ = true;
  }
  void sample(double joules) {
    if (!started_) return;
    last_ = joules;
    t1_ = std::chrono::steady_clock::now();
  }
  // `wrap`: the counter's range (it restarts at zero past it), 0 for none. `min_s`: the shortest window the
  // counter resolves; a shorter one stores only energy.unresolved_s.
  void put(std::vector<Metric>& out, double wrap = 0, double min_s = 0) const {
    if (!started_) return;
    double j = last_ - first_;
    if (j < 0 && wrap > 0) j += wrap;
    const double s = std::chrono::duration<double>(t1_ - t0_).count();
    if (j < 0 || s <= 0) return;
    if (s < min_s) {
      out.push_back({"energy.unresolved_s", "s", -1, s});
      return;
    }
    // A counter that did not move in the window (NVML's updates every few ms; seen on the H100 for windows
    // of short kernels) measured nothing: no energy is stored, only the window it could not resolve.
    if (j == 0) {
      out.push_back({"energy.unresolved_s", "s", -1, s});
      return;
    }
    out.push_back({"energy.timed_j", "J", -1, j});
    out.push_back({"energy.timed_s", "s", -1, s});
    out.push_back({"energy.avg_w", "W", -1, j / s});
    if (runs_ > 0) {
      out.push_back({"energy.window_runs", "runs", -1, static_cast<double>(runs_)});
      out.push_back({"energy.run_j", "J", -1, j / static_cast<double>(runs_)});
      out.push_back({"energy.busy_share", "ratio", -1, device_ms_ / (s * 1000.0)});
    }
  }

 private:
  std::int64_t runs_ = 0;
  double device_ms_ = 0;
  bool started_ = false;
  double first_ = 0, last_ = 0;
  std::chrono::steady_clock::time_point t0_, t1_;
};

// cpu_load flags an evaluation "loaded" when other processes used more than this share of the
// machine's CPU time (all CPUs together) while it ran.
inline constexpr double kLoadedShare = 0.25;

}  // namespace pimg
