// How a family's comparison runs on a device with check kernels (docs/measurement.md, "Validation on the
// device"). A family that compares other than byte for byte (a tolerance) implements DeviceComparable beside
// Family; every other family is checked on the device for exact byte equality, which implies its compare().
#pragma once
#include <functional>
#include <optional>
#include <string>

#include "pimg/problem.hpp"

namespace pimg {

// A condition under which the family's compare() passes, so the output need not be downloaded. A run whose
// output fails it is downloaded and compared on the host as before: the condition may be stricter than
// compare(), never weaker. `bytes`: every byte equal to the reference's. `f32`/`f64`: the T1 rule per lane
// of that width (never written: all bytes the run's poison where the reference's are not; NaN on one side only; an error
// above `tolerance`: |a - e|, or |a - e| / max(1, |e|) when `relative`). `detail`: what compare() says of a
// passing output, from the largest error seen; empty: what it says of the reference itself.
struct DeviceCompare {
  enum class Kind { bytes, f32, f64 } kind = Kind::bytes;
  bool relative = true;
  double tolerance = 0;
  std::function<std::string(double worst)> detail = {};
};

class DeviceComparable {
 public:
  virtual ~DeviceComparable() = default;
  // The device form of compare() for `rule`; nullopt: every output is downloaded and compared on the host.
  virtual std::optional<DeviceCompare> device_compare(const Problem& p, const std::string& rule) const = 0;
};

}  // namespace pimg
