// Fuzz target: the Seismic Unix reader. Every input must parse into traces that agree with the file
// (same ns and dt everywhere, ns samples each, all finite, bytes accounted for) or be refused with a
// UsageError.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "pimg/errors.hpp"
#include "pimg/su.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const pimg::SuData su = pimg::parse_su(std::span(data, size), "fuzz");
    FUZZ_CHECK(!su.traces.empty() && su.ns != 0 && su.dt != 0, "an empty file read");
    FUZZ_CHECK(su.traces.size() * (pimg::kSuHeaderBytes + 4 * std::size_t{su.ns}) == size, "bytes left unaccounted");
    for (const pimg::SuTrace& t : su.traces) {
      FUZZ_CHECK(t.header.ns == su.ns && t.header.dt == su.dt && t.samples.size() == su.ns, "a trace unlike the file");
      for (float v : t.samples)
        FUZZ_CHECK(std::isfinite(v), "a sample not finite");
    }
  } catch (const pimg::UsageError&) {
  }
  return 0;
}
