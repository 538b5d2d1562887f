// Observers: measurements beside kernel time (the environment's clocks and load, counters, energy,
// footprint). One file per observer under tuner/observers/, one registry line; the evaluator calls them
// around each evaluation and each timed run, and what they return is stored per evaluation in the
// store's `metrics` table (name, unit, run, value), so a new measurement needs no schema change.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/result.hpp"

namespace pimg {

class Observer {
 public:
  virtual ~Observer() = default;
  // Once per measurement of an evaluation, before its first warm-up run: again when a loaded measurement is taken
  // once more (pimg::LoadRetries), so what an observer reports at end() must start here.
  virtual void begin() {}
  // Around each timed run (seq counts from 0). Called outside the timed region; must not disturb the
  // device (no synchronisation, no allocation on it).
  virtual void before_run(int /*seq*/) {}
  virtual void after_run(int /*seq*/, std::vector<Metric>& /*out*/) {}
  // After the last run: values of the whole evaluation, and flags that qualify its timing
  // ("throttled", "loaded", ...).
  virtual void end(std::vector<Metric>& /*out*/, std::vector<std::string>& /*flags*/) {}
  // Observers that count inside the timed region (hardware counters) return true: after the timed runs the
  // evaluator makes one more run, untimed and stored as no sample, and calls region_begin() and region_end()
  // just inside its timed region (after the cache flush, around the launches), before end().
  virtual bool counts_region() const { return false; }
  virtual void region_begin() {}
  virtual void region_end() {}
  // Observers whose counter resolves long windows only (an energy counter that moves in steps) return true:
  // with measure.energy_s above 0, after the timed runs the evaluator runs the configuration back to back for
  // that many seconds (PreparedPlan::back_to_back; no sample stored), calling window_begin() just before the
  // first launch and window_end() once the device finished the last, then validates one more run; before end().
  virtual bool wants_window() const { return false; }
  // Observers whose report is of the machine, not of one configuration (load, clocks) return true: they also
  // observe windows several configurations share, such as the confirmation stage's interleaved rounds (begin()
  // before its warm-ups, end() after its last round; what end() returns goes to every candidate's row).
  virtual bool observes_the_machine() const { return false; }
  virtual void window_begin() {}
  virtual void window_end(std::int64_t /*runs*/, double /*device_ms*/) {}
};

struct ObserverInfo {
  std::string name;
  std::string description;
  // An observer for evaluations on this device, or null when it does not apply there (NVML for CUDA
  // devices only) or cannot work on this machine (counters not permitted); `why` then says so.
  std::function<std::unique_ptr<Observer>(const DeviceInfo& device, std::string& why)> make;
};

}  // namespace pimg
