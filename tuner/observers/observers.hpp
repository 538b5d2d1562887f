// The built-in observers of the environment (docs/measurement.md, "Environment observed"): `nvml` for
// CUDA devices (clocks, temperature, power, energy, throttle reasons) and `cpu_load` for CPU backends
// (load average, CPU frequency, the share of the machine other processes used). One registry line each.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "pimg/observer.hpp"

namespace pimg {

ObserverInfo nvml_observer();
ObserverInfo cpu_load_observer();

// NVML's clock-event (throttle) reason bits, as nvmlDeviceGetCurrentClocksEventReasons returns them.
// `throttled` when any bit other than GPU idle and the applications-clocks setting is set; `names`
// lists every set bit ("sw_power_cap,hw_thermal_slowdown"), unknown bits as hex.
struct ThrottleReasons {
  bool throttled = false;
  std::string names;
};
ThrottleReasons nvml_throttle_reasons(std::uint64_t mask);

// cpu_load flags an evaluation "loaded" when other processes used more than this share of the
// machine's CPU time (all CPUs together) while it ran.
inline constexpr double kLoadedShare = 0.25;

}  // namespace pimg
