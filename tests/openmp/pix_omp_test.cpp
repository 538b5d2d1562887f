// The OpenMP variants of bgr2rgba (every shuffle and stream), flip (out of place and in place) and
// maxpool (chain and tree), rows and tiles over every schedule, and the host baselines (serial, OpenCV
// cvtColor and flip), on 1 and 3 channels, interleaved and planar, odd and even sizes: every output equal
// to the reference byte for byte after the output was poisoned.
#include <gtest/gtest.h>

#include "pix_eval.hpp"

namespace pimg::pixtest {
namespace {

void expect_exact(const Problem& p, const std::string& variant, const std::vector<Config>& configs) {
  const std::string backend = registry().variant(p.family, variant)->backend();
  for (const Config& c : configs) {
    SCOPED_TRACE(variant + " " + c.brief() + " on " + p.label());
    const EvalResult r = evaluate_variant(open_device(backend), p, variant, c);
    EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
    EXPECT_EQ(r.validation, "exact");
  }
}

// Rows and tiles with each schedule, thread count 1 and 2, tiles smaller than, and larger than, the image.
std::vector<Config> omp_configs(const std::string& variant, const char* extra, std::vector<Value> extra_values) {
  std::vector<Config> out;
  const bool tiles = variant == "omp_tiles";
  const char* schedules[] = {"static", "dynamic", "guided"};
  for (std::size_t i = 0; i < 3; ++i) {
    Config c = config({{"schedule", schedules[i]}, {"chunk", static_cast<std::int64_t>(i + 1)},
                       {"threads", static_cast<std::int64_t>(i % 2 + 1)}});
    if (tiles) {
      c.set("tile_x", std::int64_t{i == 2 ? 512 : 8});
      c.set("tile_y", std::int64_t{i == 1 ? 3 : 64});
    }
    c.set(extra, extra_values[i % extra_values.size()]);
    out.push_back(c);
  }
  return out;
}

TEST(PixOpenmp, Bgr2RgbaVariantsAndBaselinesExact) {
  for (const auto& [w, h] : {std::pair{37, 23}, std::pair{64, 16}}) {
    const Problem p = problem("bgr2rgba", w, h, 3);
    for (const char* v : {"omp_rows", "omp_tiles"}) expect_exact(p, v, omp_configs(v, "shuffle", {Value{0}, Value{1}}));
    expect_exact(p, "serial", {Config{}});
    if (registry().variant("bgr2rgba", "opencv_cvtcolor")) expect_exact(p, "opencv_cvtcolor", {Config{}});
  }
  const Problem alpha = problem("bgr2rgba", 19, 7, 3, {{"alpha", "0"}});
  expect_exact(alpha, "omp_rows", {config({{"shuffle", 0}}), config({{"shuffle", 1}})});
}

// Every shuffle x stream, rows and tiles, exact on widths around the vector widths (4, 8 and 16 pixels),
// 1-pixel-wide and 1-row images, tiles that start rows at unaligned outputs, and alpha 0. shuffle 2 and 3
// compile only where the host compiler targets AVX2 and AVX-512 VBMI (-march=native on such a CPU) and
// are compile errors elsewhere; stream 1 with shuffle 0 or 1 is a launch error.
TEST(PixOpenmp, Bgr2RgbaEveryShuffleAndStreamExact) {
  const bool avx2 = __builtin_cpu_supports("avx2");
  const bool vbmi = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
  std::vector<Problem> problems;
  for (const auto& [w, h] : {std::pair{1, 9}, std::pair{3, 1}, std::pair{7, 5}, std::pair{15, 4}, std::pair{16, 3},
                             std::pair{17, 6}, std::pair{31, 2}, std::pair{33, 7}, std::pair{67, 5}, std::pair{130, 3}})
    problems.push_back(problem("bgr2rgba", w, h, 3));
  problems.push_back(problem("bgr2rgba", 45, 4, 3, {{"alpha", "0"}}));
  for (std::int64_t shuffle : {0, 1, 2, 3})
    for (std::int64_t stream : {0, 1})
      for (const char* v : {"omp_rows", "omp_tiles"}) {
        Config c = config({{"shuffle", shuffle}, {"stream", stream}, {"threads", 2}, {"schedule", "dynamic"}});
        if (std::string(v) == "omp_tiles") {
          c.set("tile_x", std::int64_t{5 + 6 * shuffle});
          c.set("tile_y", std::int64_t{2});
        }
        const bool isa = (shuffle != 2 || avx2) && (shuffle != 3 || vbmi);
        const char* want = stream && shuffle < 2 ? "launch_error" : isa ? "ok" : "compile_error";
        for (const Problem& p : problems) {
          SCOPED_TRACE(std::string(v) + " " + c.brief() + " on " + p.label());
          const EvalResult r = evaluate_variant(open_device("openmp"), p, v, c);
          EXPECT_EQ(to_string(r.status), std::string(want)) << r.log;
          if (std::string(want) == "ok") EXPECT_EQ(r.validation, "exact");
        }
      }
  for (const Config& c : {config({{"shuffle", 4}}), config({{"shuffle", -1}}), config({{"stream", 2}})})
    EXPECT_EQ(to_string(evaluate_variant(open_device("openmp"), problems[0], "omp_rows", c).status),
              std::string("launch_error"))
        << c.brief();
}

using testcommon::kShapes;
using testcommon::Shape;

TEST(PixOpenmp, FlipVariantsAndBaselinesExact) {
  for (const Shape& s : kShapes)
    for (const auto& [w, h] : {std::pair{37, 23}, std::pair{64, 16}, std::pair{1, 5}}) {
      const Problem p = problem("flip", w, h, s.channels, {{"layout", s.layout}});
      for (const char* v : {"omp_rows", "omp_tiles"}) {
        expect_exact(p, v, omp_configs(v, "inplace", {Value{0}, Value{1}}));
        expect_exact(p, v, omp_configs(v, "shuffle", {Value{0}, Value{1}}));
      }
      expect_exact(p, "serial", {Config{}});
      if (registry().variant("flip", "opencv_flip")) expect_exact(p, "opencv_flip", {Config{}});
    }
}

TEST(PixOpenmp, MaxpoolVariantsAndBaselinesExact) {
  for (const Shape& s : kShapes)
    for (const auto& [w, h] : {std::pair{37, 23}, std::pair{64, 16}, std::pair{2, 3}}) {
      const Problem p = problem("maxpool", w, h, s.channels, {{"layout", s.layout}});
      for (const char* v : {"omp_rows", "omp_tiles"})
        expect_exact(p, v, omp_configs(v, "form", {Value{std::string("chain")}, Value{std::string("tree")}}));
      expect_exact(p, "serial", {Config{}});
    }
}

// Windows of 3 and 4 (stride = window): both forms, rows and tiles, and the serial baseline.
TEST(PixOpenmp, MaxpoolLargerWindowsExact) {
  for (const char* window : {"3", "4"})
    for (const Shape& s : kShapes) {  // 37x23: columns and rows after the last window
      const Problem p = problem("maxpool", 37, 23, s.channels, {{"layout", s.layout}, {"window", window}});
      for (const char* v : {"omp_rows", "omp_tiles"})
        expect_exact(p, v, {config({{"form", "chain"}, {"threads", 2}}), config({{"form", "tree"}, {"threads", 2}})});
      expect_exact(p, "serial", {Config{}});
    }
}

TEST(PixOpenmp, OpencvCvtColorRefusesOtherAlpha) {
  const Variant* v = registry().variant("bgr2rgba", "opencv_cvtcolor");
  if (!v) GTEST_SKIP() << "built without OpenCV";
  const Problem p = problem("bgr2rgba", 8, 8, 3, {{"alpha", "128"}});
  const EvalResult r = evaluate_variant(open_device("host"), p, "opencv_cvtcolor", Config{});
  EXPECT_EQ(to_string(r.status), std::string("launch_error"));
}

TEST(PixOpenmp, KnobsOutOfRangeAreLaunchErrors) {
  const Problem p = problem("flip", 16, 4, 1);
  for (const Config& c : {config({{"chunk", 0}}), config({{"threads", -1}}), config({{"schedule", "auto"}}),
                          config({{"inplace", 2}})}) {
    const EvalResult r = evaluate_variant(open_device("openmp"), p, "omp_rows", c);
    EXPECT_EQ(to_string(r.status), std::string("launch_error")) << c.brief();
  }
}

}  // namespace
}  // namespace pimg::pixtest
