// The steady clock that the core's own timings read (evaluation, preparation, cold runs, worker deadlines).
#pragma once

#include <chrono>

namespace pimg {

// Milliseconds from t0 to now on the steady clock.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace pimg
