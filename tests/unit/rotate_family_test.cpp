// The rotate family's contract on the CPU: the fixed-point rule against exact rotations (0, 90, 180, 270,
// 360 degrees), against the real-valued geometry, bilinear blending by hand, the fill, layouts, OpenCV's rule
// at exact angles, problem validation and the comparison message.
#include <gtest/gtest.h>

#include <cmath>

#include "pimg/errors.hpp"
#include "rotate/rotate_family.hpp"
#include "rotate/rotate_fixture.hpp"

extern "C" {
#include "rotate/rotate_rule.h"
}

namespace pimg::rotate {
namespace {

const RotateFamily& family() {
  static const RotateFamily f;
  return f;
}

Problem make(int w, int h, int ch, const std::string& angle, const std::string& interp = "nearest",
             const std::string& layout = "interleaved", const std::string& fill = "0") {
  return family().make_problem(w, h, ch, {{"angle", angle}, {"interp", interp}, {"layout", layout}, {"fill", fill}});
}

struct Rotated {
  std::vector<std::uint8_t> in, out;
};

Rotated run(const Problem& p, const std::string& rule = "") {
  const Workload w = family().make_workload(p);
  return {w.input("in").bytes, family().reference(p, w, rule)};
}

std::uint8_t at(const std::vector<std::uint8_t>& img, const Problem& p, int x, int y, int c) {
  return img[pimg_rot_index(x, y, c, p.width, p.height, p.channels, p.attr("layout") == "planar")];
}

TEST(RotateRule, FixedCosSin) {
  EXPECT_EQ(fixed_cos_sin(0), (std::array<int, 2>{65536, 0}));
  EXPECT_EQ(fixed_cos_sin(90), (std::array<int, 2>{0, 65536}));
  EXPECT_EQ(fixed_cos_sin(-90), (std::array<int, 2>{0, -65536}));
  EXPECT_EQ(fixed_cos_sin(540), (std::array<int, 2>{-65536, 0}));
  EXPECT_EQ(fixed_cos_sin(30), (std::array<int, 2>{56756, 32768}));  // 0.866025 * 65536 = 56755.84
  EXPECT_EQ(fixed_cos_sin(45)[0], 46341);
}

TEST(RotateRule, ZeroAndFullTurnsAreTheIdentity) {
  for (const char* interp : {"nearest", "bilinear"})
    for (const char* angle : {"0", "360", "-720"}) {
      const Problem p = make(13, 7, 3, angle, interp);
      const Rotated r = run(p);
      EXPECT_EQ(r.out, r.in) << interp << " " << angle;
    }
}

// Quarter turns map pixel centres onto pixel centres: exact permutations of the input, by either rule.
TEST(RotateRule, QuarterTurnsArePermutations) {
  for (const char* interp : {"nearest", "bilinear"}) {
    const Problem sq = make(9, 9, 1, "90", interp);
    const Rotated r90 = run(sq);
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < 9; ++x) ASSERT_EQ(at(r90.out, sq, x, y, 0), at(r90.in, sq, 8 - y, x, 0)) << interp;
    const Problem sq270 = make(8, 8, 3, "-90", interp, "planar");
    const Rotated r270 = run(sq270);
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(at(r270.out, sq270, x, y, c), at(r270.in, sq270, y, 7 - x, c)) << interp;
    const Problem rect = make(10, 7, 3, "180", interp);
    const Rotated r180 = run(rect);
    for (int y = 0; y < 7; ++y)
      for (int x = 0; x < 10; ++x)
        for (int c = 0; c < 3; ++c) ASSERT_EQ(at(r180.out, rect, x, y, c), at(r180.in, rect, 9 - x, 6 - y, c)) << interp;
  }
}

// Nearest picks the pixel nearest to the real-valued source point, except within the fixed point's error of
// a rounding boundary (at most 2^-16 * the distance to the centre, in pixels).
TEST(RotateRule, NearestFollowsTheRealGeometry) {
  for (const char* angle : {"30", "-17.5", "123.25"}) {
    const Problem p = make(101, 64, 1, angle, "nearest", "interleaved", "255");
    const RotateSpec s = spec_of(p);
    int checked = 0;
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) {
        const int real = rottest::real_nearest(s, x, y, 0.01);  // nearer a boundary: too close to say
        if (real == -2) continue;
        const int n = pimg_rot_nearest_pixel(pimg_rot_px(x, y, s.width, s.height, s.cs, s.sn),
                                             pimg_rot_py(x, y, s.width, s.height, s.cs, s.sn), s.width, s.height);
        ASSERT_EQ(n, real) << angle << " at " << x << "," << y;
        ++checked;
      }
    EXPECT_GT(checked, p.width * p.height * 9 / 10);
  }
}

TEST(RotateRule, FillOutsideAndCornersOfA45DegreeTurn) {
  const Problem p = make(32, 32, 3, "45", "nearest", "planar", "7");
  const Rotated r = run(p);
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(at(r.out, p, 0, 0, c), 7);
    EXPECT_EQ(at(r.out, p, 31, 31, c), 7);
  }
  const Problem b = make(32, 32, 1, "45", "bilinear", "interleaved", "200");
  EXPECT_EQ(at(run(b).out, b, 0, 31, 0), 200);
}

TEST(RotateRule, BilinearBlendByHand) {
  EXPECT_EQ(pimg_rot_blend(0, 255, 0, 255, 128, 0), 128);      // (255 * 128 * 256 + 32768) >> 16 = 128 (127.5 up)
  EXPECT_EQ(pimg_rot_blend(10, 20, 30, 40, 64, 192), 28);      // rows 12.5 and 32.5, then 27.5 rounds up
  EXPECT_EQ(pimg_rot_blend(100, 100, 100, 100, 77, 201), 100);  // equal taps stay equal
  // Source x = -0.5: q8 = (0.5 rounded to 1/256) -> x0 = -1, fx = 128: half fill, half the edge pixel.
  const int q = pimg_rot_q8(-(1 << 16));
  EXPECT_EQ((q >> 8) - 1, -1);
  EXPECT_EQ(q & 255, 128);
  EXPECT_EQ(pimg_rot_q8(-(1 << 17) - 257), -1);  // below -1 - 1/512: every tap outside
}

TEST(RotateRule, PlanarAndInterleavedAgree) {
  for (const char* interp : {"nearest", "bilinear"}) {
    const Problem pi = make(23, 17, 3, "-33", interp, "interleaved", "9");
    const Problem pp = make(23, 17, 3, "-33", interp, "planar", "9");
    const Rotated ri = run(pi), rp = run(pp);
    // Same random bytes, read in different layouts: compare through the inputs' own pixel positions.
    for (int y = 0; y < 17; ++y)
      for (int x = 0; x < 23; ++x) {
        const RotateSpec s = spec_of(pi);
        const int px = pimg_rot_px(x, y, 23, 17, s.cs, s.sn), py = pimg_rot_py(x, y, 23, 17, s.cs, s.sn);
        for (int c = 0; c < 3; ++c) {
          EXPECT_EQ(at(ri.out, pi, x, y, c), pimg_rot_sample(ri.in.data(), px, py, c, 23, 17, 3, 0, s.interp, 9));
          EXPECT_EQ(at(rp.out, pp, x, y, c), pimg_rot_sample(rp.in.data(), px, py, c, 23, 17, 3, 1, s.interp, 9));
        }
      }
  }
}

TEST(RotateRule, OpencvRuleAtExactAngles) {
  for (const char* interp : {"nearest", "bilinear"}) {
    const Problem id = make(15, 6, 3, "0", interp);
    const Rotated r0 = run(id, "opencv");
    EXPECT_EQ(r0.out, r0.in) << interp;
    const Problem q = make(9, 9, 1, "90", interp);
    EXPECT_EQ(run(q, "opencv").out, run(q).out) << interp;
  }
}

// The rule "scatter" (seed 002's kernel): quarter and half turns move every pixel onto a pixel, so the scatter
// equals the gather; a turn of 1 radian leaves holes (the fill) and collisions, and a collision goes to the
// last source in raster order.
TEST(RotateRule, ScatterByHand) {
  for (const char* angle : {"0", "90", "180", "-90"}) {
    const Problem p = make(12, 12, 3, angle, "nearest", "planar", "7");
    EXPECT_EQ(run(p, "scatter").out, run(p).out) << angle;
  }
  const Problem p = make(40, 30, 1, "57.29578", "nearest", "interleaved", "7");
  const Rotated r = run(p, "scatter");
  const RotateSpec s = spec_of(p);
  std::vector<int> last(40 * 30, -1), hits(40 * 30, 0);
  for (int n = 0; n < 40 * 30; ++n) {
    const int d = pimg_rot_scatter_target(n % 40, n / 40, 40, 30, s.cs, s.sn);
    if (d >= 0) {
      last[d] = n;
      ++hits[d];
    }
  }
  int holes = 0, collisions = 0;
  for (int d = 0; d < 40 * 30; ++d) {
    holes += hits[d] == 0;
    collisions += hits[d] > 1;
    EXPECT_EQ(r.out[d], last[d] < 0 ? 7 : r.in[last[d]]) << d;
  }
  EXPECT_GT(holes, 0);
  EXPECT_GT(collisions, 0);
  // The destination of the centre's neighbour one pixel right, turned by a quarter: one pixel up (y down).
  const RotateSpec q = spec_of(make(5, 5, 1, "90"));
  EXPECT_EQ(pimg_rot_scatter_target(3, 2, 5, 5, q.cs, q.sn), 1 * 5 + 2);
}

TEST(RotateFamilyTest, ProblemValidation) {
  EXPECT_THROW(make(8, 8, 2, "30"), AttrError);
  EXPECT_THROW(make(8, 8, 1, "thirty"), AttrError);
  EXPECT_THROW(make(8, 8, 1, "nan"), AttrError);
  EXPECT_THROW(make(8, 8, 1, "30", "nearest", "interleaved", "256"), AttrError);
  EXPECT_THROW(make(8, 8, 1, "30", "nearest", "interleaved", "-1"), AttrError);
  EXPECT_THROW(make(12000, 8000, 1, "30"), AttrError);  // fixed-point range
  EXPECT_NO_THROW(make(8192, 8192, 3, "30"));
  EXPECT_EQ(make(8, 8, 1, "30.0").attr("angle"), "30");
  EXPECT_EQ(make(8, 8, 1, "-12.50").attr("angle"), "-12.5");
  try {
    make(8, 8, 1, "30", "nearest", "interleaved", "300");
  } catch (const AttrError& e) {
    EXPECT_EQ(e.key(), "fill");
  }
}

TEST(RotateFamilyTest, CompareNamesTheFirstMismatch) {
  const Problem p = make(6, 4, 3, "30", "nearest", "planar");
  const Workload w = family().make_workload(p);
  std::vector<std::uint8_t> expected = family().reference(p, w), actual = expected;
  EXPECT_EQ(family().compare(p, expected, actual).detail, "exact");
  actual[24 + 6 + 2] ^= 1;  // plane 1, row 1, x 2
  const Validation v = family().compare(p, expected, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("x=2 y=1 c=1"), std::string::npos) << v.detail;
  EXPECT_DOUBLE_EQ(family().traffic(p).bytes, 2.0 * 6 * 4 * 3);
  EXPECT_DOUBLE_EQ(family().work(p), 24.0);
}

}  // namespace
}  // namespace pimg::rotate
