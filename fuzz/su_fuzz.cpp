// Fuzz target: the Seismic Unix reader. Every input must parse into traces that agree with the file
// (same ns and dt everywhere, ns samples each, all finite, bytes accounted for) or be refused with a
// UsageError.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "pimg/errors.hpp"
#include "pimg/su.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const pimg::SuData su = pimg::parse_su(std::span(data, size), "fuzz");
    if (su.traces.empty() || su.ns == 0 || su.dt == 0) std::abort();
    if (su.traces.size() * (pimg::kSuHeaderBytes + 4 * std::size_t{su.ns}) != size) std::abort();
    for (const pimg::SuTrace& t : su.traces) {
      if (t.header.ns != su.ns || t.header.dt != su.dt || t.samples.size() != su.ns) std::abort();
      for (float v : t.samples)
        if (!std::isfinite(v)) std::abort();
    }
  } catch (const pimg::UsageError&) {
  }
  return 0;
}
