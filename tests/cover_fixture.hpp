// Stores for the covering set's tests (tests/unit/cover_test.cpp, tests/e2e/cover_test.cpp): one kernel under two
// family names in two stores, configurations a=1..4 x b=0..1 whose fastest differs between devices.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "pimg/result.hpp"
#include "pimg/store.hpp"
#include "synthetic_db.hpp"

namespace cover_fixture {

// Times by (a, b): a time in ms, or nothing for a compile error.
using Times = std::map<std::pair<int, int>, std::optional<double>>;

// X = (1,0), Y = (2,0), Z = (3,0) at these times; the rest at 4 ms.
inline Times times(double x, double y, double z) {
  Times t{{{1, 0}, x}, {{2, 0}, y}, {{3, 0}, z}};
  for (int a = 1; a <= 4; ++a)
    for (int b = 0; b <= 1; ++b) t.try_emplace({a, b}, 4.0);
  return t;
}

inline const pimg::Problem kConv{"conv", 256, 256, 1, {{"filter", "sharpen3"}}};
inline const pimg::Problem kT1{"t1-k", 4096, 4096, 1, {{"problem", "4096x4096"}}};

// One device's rows of one variant and problem (of `family`, whatever `shape`'s is); `writer` adds the metric an
// imported file's own time is stored as.
inline void put(pimg::Store& s, const std::string& family, const std::string& variant, const pimg::DeviceInfo& dev,
                const pimg::Problem& shape, const Times& ms, const Times& writer = {}) {
  pimg::Problem p = shape;
  p.family = family;
  const auto run = s.begin_run({"test", "2026-11-30T00:00:00Z", "abc", "synthetic", "0"});
  const auto d = s.device_id(dev);
  const auto v = s.variant_id({family, variant, dev.backend, "src-" + variant});
  const auto prob = s.problem_id(p, {static_cast<double>(p.width) * p.height, "MPix/s", {1, 1}});
  for (const auto& [ab, t] : ms) {
    pimg::Config c;
    c.set("a", std::int64_t{ab.first});
    c.set("b", std::int64_t{ab.second});
    pimg::EvalResult r = t ? synthetic::result(*t) : synthetic::result(1, pimg::Status::compile_error);
    if (auto w = writer.find(ab); w != writer.end() && w->second)
      r.metrics.push_back({pimg::kWriterObjectiveMetric, "ms", -1, *w->second});
    s.save(run, d, prob, v, c, r);
  }
}

// conv (its variant cl_tiled) on GPU A and B in `a`, fastest with X; t1-k (its variant kern) on GPU C in `b`,
// fastest with Y; Z gives each 0.8 of its optimum.
inline void fill_two_stores(pimg::Store& a, pimg::Store& b) {
  put(a, "conv", "cl_tiled", synthetic::gpu("GPU A", 16), kConv, times(1.0, 2.0, 1.25));
  put(a, "conv", "cl_tiled", synthetic::gpu("GPU B", 16), kConv, times(1.0, 2.0, 1.25));
  put(b, "t1-k", "kern", synthetic::gpu("GPU C", 16), kT1, times(2.0, 1.0, 1.25));
}

}  // namespace cover_fixture
