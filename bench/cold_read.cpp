// What a cold CPU run's reads cost after each way of emptying the caches (docs/measurement.md, "Timing
// methods"): reading a buffer hot, after its lines were evicted by address (pimg::flush_cache_lines, the host
// backends' `cold-evict`), and after a 512 MiB sweep (the `cold-llc` fallback at the CI machine's reported size).
// Prints, per buffer size, the best of 9 reads of each kind and what the eviction itself took.
// Usage: pimg_cold_read [MiB ...] (default 1 4 16).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "pimg/cache_flush.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

// Reads one word per 64-byte line; returns microseconds.
double read_lines(const std::vector<std::uint64_t>& a, std::uint64_t& sink) {
  const auto t = Clock::now();
  std::uint64_t s = 0;
  for (std::size_t i = 0; i < a.size(); i += 8) s += a[i];
  sink += s;
  return us_since(t);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(static_cast<std::size_t>(std::strtoul(argv[i], nullptr, 10)));
  if (sizes.empty()) sizes = {1, 4, 16};
  std::vector<std::uint8_t> sweep(std::size_t{512} << 20, 0);
  std::uint64_t sink = 0;
  std::printf("MiB,hot_us,after_evict_us,evict_us,after_sweep_us\n");
  for (std::size_t mib : sizes) {
    std::vector<std::uint64_t> a((mib << 20) / 8, 1);
    double hot = 1e300, evicted = 1e300, evict = 1e300, swept = 1e300;
    for (int r = 0; r < 9; ++r) {
      read_lines(a, sink);
      hot = std::min(hot, read_lines(a, sink));
      const auto t = Clock::now();
      pimg::flush_cache_lines(a.data(), a.size() * 8);
      evict = std::min(evict, us_since(t));
      evicted = std::min(evicted, read_lines(a, sink));
      read_lines(a, sink);
      std::memset(sweep.data(), r, sweep.size());
      swept = std::min(swept, read_lines(a, sink));
    }
    std::printf("%zu,%.1f,%.1f,%.1f,%.1f\n", mib, hot, evicted, evict, swept);
  }
  return sink == 42 ? 1 : 0;
}
