// A realistic synthetic store for replay, export and best_config tests: what an exhaustive run on
// two devices of one architecture (and one other) would store, with failures and a baseline.
// Costs follow a smooth landscape with one optimum per device and size, so searches can be judged.
#pragma once
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "pimg/store.hpp"

namespace synthetic {

struct TempDb {
  std::filesystem::path path;
  explicit TempDb(const std::string& name) {
    path = std::filesystem::temp_directory_path() / ("pimg-" + name + "-" + std::to_string(::getpid()) + ".db");
    remove();
  }
  ~TempDb() { remove(); }
  void remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  }
};

inline pimg::DeviceInfo gpu(const std::string& name, double mem_gb) {
  pimg::DeviceInfo d;
  d.backend = "opencl";
  d.name = name;
  d.vendor = "Test Vendor";
  d.driver = "1.0";
  d.platform = "Test Platform";
  d.compute_units = 64;
  d.global_mem_bytes = static_cast<std::uint64_t>(mem_gb * (1ull << 30));
  d.max_work_group_size = 1024;
  return d;
}

inline pimg::EvalResult result(double ms, pimg::Status status = pimg::Status::ok) {
  pimg::EvalResult r;
  r.status = status;
  if (status == pimg::Status::ok) {
    r.kernel_ms = {ms * 1.02, ms, ms * 1.01};
    r.wall_ms = {ms * 1.1, ms * 1.1, ms * 1.1};
    r.kernel = pimg::Stats::of(r.kernel_ms);
    r.validation = "exact";
  } else {
    r.log = "synthetic failure";
  }
  r.compile_ms = 20;
  r.eval_ms = 30 + 3 * ms;
  return r;
}

// tiled: a (block 1..10) x b (0..9) x mode {local, private, global}, constraint a + b <= 14, a = 10
// with b = 9 fails to compile; direct: items pow2 1..16 x unroll 0..5. On device "speed" the whole
// landscape scales; sizes scale with pixels. Optimum: tiled a=6 b=3 mode=local.
inline double landscape(int a, int b, int mode) {
  return 1.0 + 0.08 * (a - 6) * (a - 6) + 0.05 * (b - 3) * (b - 3) + 0.3 * mode;
}

inline void fill(pimg::Store& s, const pimg::DeviceInfo& dev, double speed, const std::vector<int>& sizes) {
  using pimg::Config;
  const auto run = s.begin_run({"test", "2026-11-24T00:00:00Z", "abc", "synthetic", "0"});
  const auto d = s.device_id(dev);
  const auto tiled = s.variant_id({"conv", "cl_tiled", "opencl", "t1"});
  const auto direct = s.variant_id({"conv", "cl_direct", "opencl", "d1"});
  const auto serial = s.variant_id({"conv", "serial", "host", "builtin:serial", true});
  const char* modes[] = {"local", "private", "global"};
  for (int size : sizes) {
    pimg::Problem p{"conv", size, size, 1, {{"filter", "sharpen3"}, {"border", "zero"}}};
    const double scale = speed * size * size / (512.0 * 512.0);
    const auto prob = s.problem_id(p, {static_cast<double>(size) * size, "MPix/s", {2.0 * size * size, 9.0 * size * size}});
    for (int a = 1; a <= 10; ++a)
      for (int b = 0; b <= 9; ++b)
        for (int m = 0; m < 3; ++m) {
          if (a + b > 14) continue;
          Config c;
          c.set("a", std::int64_t{a});
          c.set("b", std::int64_t{b});
          c.set("mode", std::string(modes[m]));
          const bool fails = a == 10 && b == 4;
          s.save(run, d, prob, tiled, c,
                 result(scale * landscape(a, b, m), fails ? pimg::Status::compile_error : pimg::Status::ok));
        }
    for (int items = 1; items <= 16; items *= 2)
      for (int unroll = 0; unroll <= 5; ++unroll) {
        Config c;
        c.set("items", std::int64_t{items});
        c.set("unroll", std::int64_t{unroll});
        s.save(run, d, prob, direct, c, result(scale * (2.0 + 0.1 * std::abs(std::log2(items) - 2) + 0.05 * unroll)));
      }
    s.save(run, s.device_id([] {
      pimg::DeviceInfo h;
      h.backend = "host";
      h.name = "Test CPU";
      return h;
    }()), prob, serial, Config{}, result(scale * 40));
  }
}

}  // namespace synthetic
