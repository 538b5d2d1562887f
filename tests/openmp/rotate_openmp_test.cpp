// The OpenMP rotate variants (rows and tiles, every schedule, chunks, threads, tiles not dividing the image,
// with and without the unchecked interior loop, scalar or in AVX2 steps)
// and the host baselines (serial; OpenCV's warpAffine, validated exactly against the family's "opencv" rule)
// over the problem matrix {c1, c3 interleaved, c3 planar} x {nearest, bilinear} x four angles.
#include <gtest/gtest.h>

#include "rotate/rotate_fixture.hpp"

namespace pimg::rottest {
namespace {

Device& open_first(const char* backend) {
  const Backend* b = Registry::builtin().backend(backend);
  return *b->open(b->devices().at(0)).release();  // kept for the process
}
Device& omp() {
  static Device& d = open_first("openmp");
  return d;
}
Device& host() {
  static Device& d = open_first("host");
  return d;
}

TEST(RotateOpenMP, RowsBitExactWithReference) {
  expect_exact_everywhere(omp(), "omp_rows",
                          {config({{"threads", 2}, {"schedule", "static"}, {"chunk", 1}, {"simd", 1}}),
                           config({{"threads", 0}, {"schedule", "dynamic"}, {"chunk", 4}, {"simd", 0}}),
                           config({{"threads", 1}, {"schedule", "guided"}, {"chunk", 1}, {"simd", 1}}),
                           config({{"threads", 2}, {"schedule", "dynamic"}, {"chunk", 8}, {"simd", 2}})});
}

TEST(RotateOpenMP, TilesBitExactWithReference) {
  expect_exact_everywhere(omp(), "omp_tiles",
                          {config({{"tile_x", 8}, {"tile_y", 5}, {"threads", 2}, {"schedule", "static"}, {"chunk", 1}, {"simd", 0}}),
                           config({{"tile_x", 64}, {"tile_y", 64}, {"threads", 2}, {"schedule", "dynamic"}, {"chunk", 2}}),
                           config({{"tile_x", 19}, {"tile_y", 3}, {"threads", 2}, {"schedule", "static"}, {"chunk", 1}, {"simd", 2}})});
}

// Every simd value where the 8-pixel AVX2 steps meet ragged ends: widths that are no multiple of 8 (runs of any
// length, vector steps followed by scalar ones), quarter and half turns of images with w + h odd (nearest ties
// at exactly half a pixel, bilinear weights of exactly 128), a 45-degree turn, and images 2 pixels wide or
// high (an interior run shorter than a vector step, or none).
TEST(RotateOpenMP, EverySimdExactOnRaggedSizesAndHalfPixels) {
  const std::pair<int, int> sizes[] = {{38, 23}, {83, 61}, {2, 9}, {9, 2}};
  const char* const angles[] = {"90", "180", "-90", "45", "30"};
  // A covering array (docs/ci.md): every problem, the three simd paths in turn by (shape, interpolation,
  // angle), so that each kernel (the angle and the layout are compiled in) serves all four sizes: 30 compiles,
  // not 90. Each simd path meets every shape, interpolation, angle and size, every (angle, size) and every
  // (shape, size) pair; of the (shape, angle) pairs it meets two thirds.
  int group = 0;
  for (const Shape& shape : kShapes)
    for (const char* interp : kInterps)
      for (const char* angle : angles)
        for (const int simd = group++ % 3; const auto& [w, h] : sizes) {
          const Problem p = make_problem(shape, interp, angle, w, h);
          const Config c = config({{"threads", 2}, {"schedule", "dynamic"}, {"chunk", 3}, {"simd", simd}});
          SCOPED_TRACE("omp_rows " + c.brief() + " on " + p.label());
          const EvalResult r = evaluate_on(omp(), p, "omp_rows", c);
          EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
          EXPECT_EQ(r.validation.substr(0, 5), "exact") << r.validation;
        }
}

TEST(RotateOpenMP, BadKnobsAreLaunchErrors) {
  const Problem p = make_problem(kShapes[0], "nearest", "30");
  EXPECT_EQ(to_string(evaluate_on(omp(), p, "omp_rows", config({{"chunk", 0}})).status), std::string("launch_error"));
  EXPECT_EQ(to_string(evaluate_on(omp(), p, "omp_tiles", config({{"tile_x", 0}})).status), std::string("launch_error"));
  EXPECT_EQ(to_string(evaluate_on(omp(), p, "omp_rows", config({{"simd", 3}})).status), std::string("launch_error"));
}

// Seed 002's scatter: exact against the rule "scatter" on every shape and angle (nearest; bilinear is refused).
TEST(RotateOpenMP, ScatterExactAgainstItsRule) {
  for (const Shape& shape : kShapes)
    for (const char* angle : {"-17.5", "90"}) {  // holes and collisions; a permutation
      const Problem p = make_problem(shape, "nearest", angle);
      for (const Config& c : {config({{"threads", 2}, {"schedule", std::string("static")}, {"chunk", 1}}),
                              config({{"threads", 0}, {"schedule", std::string("dynamic")}, {"chunk", 3}})}) {
        const EvalResult r = evaluate_on(omp(), p, "omp_scatter", c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << p.label() << " " << c.brief() << ": " << r.log;
        EXPECT_EQ(r.validation, "exact (rule scatter)");
      }
    }
  const Problem bilinear = make_problem(kShapes[0], "bilinear", "30");
  EXPECT_EQ(to_string(evaluate_on(omp(), bilinear, "omp_scatter", Config{}).status), std::string("launch_error"));
}

TEST(RotateHost, SerialIsTheReference) { expect_exact_everywhere(host(), "serial", {Config{}}); }

// OpenCV rounds on its own fixed-point grid: its rows match the "opencv" rule byte for byte. Bilinear weights
// on OpenCV's 1/32 grid differ from the family's 1/256 one, so there the rule is needed (nearest coordinates
// differ only within 2^-10 pixel of a rounding boundary, which a given image may not meet).
TEST(RotateHost, OpencvWarpMatchesItsRuleExactly) {
  if (!Registry::builtin().variant("rotate", "opencv_warp")) GTEST_SKIP() << "built without OpenCV";
  expect_exact_everywhere(host(), "opencv_warp", {Config{}});
  for (const char* interp : kInterps) {
    const Problem p = make_problem(kShapes[1], interp, "30", 640, 480);
    const EvalResult r = evaluate_on(host(), p, "opencv_warp", Config{});
    EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
    EXPECT_EQ(r.validation, "exact (rule opencv)");
    const Workload w = family().make_workload(p);
    if (std::string(interp) == "bilinear") EXPECT_NE(family().reference(p, w, "opencv"), family().reference(p, w));
  }
}

}  // namespace
}  // namespace pimg::rottest
