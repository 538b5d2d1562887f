// The rotate family's rule "npp" (NPP's nearest-neighbour rotation as modelled on the CPU) and the plan of the
// npp_rotate baseline: the shift turns NPP's origin rotation about the family's centre, the rule picks the real
// nearest pixel away from rounding boundaries, quarter and half turns are the family's permutations, every
// probe candidate is distinct, bilinear blends by hand, and the plan. NPP itself runs in tests/cuda RotateNppProbe.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "rotate/rotate_common.hpp"
#include "rotate/rotate_fixture.hpp"
#include "rotate/rotate_rule.h"

namespace pimg::rotate {
namespace {

Problem npp_problem(int w, int h, int ch, const std::string& angle, const std::string& layout = "interleaved",
             const char* interp = "nearest") {
  return rottest::make_problem({"", ch, layout.c_str()}, interp, angle.c_str(), w, h);
}

std::vector<std::uint8_t> rule(const Problem& p, const std::string& name) {
  return rottest::family().reference(p, rottest::family().make_workload(p), name);
}

TEST(RotateNppRule, ShiftKeepsTheCentreForEveryConvention) {
  for (const NppConvention& conv : npp_conventions())
    for (double angle : {30.0, -17.5, 123.25, 90.0, 200.0}) {
      if (conv.round == NppConvention::kFloor) continue;  // floor(4 - 1e-15) is 3: the centre sits on a boundary
      const Problem p = npp_problem(9, 7, 1, fmt::format("{}", angle));
      const NppModel m = npp_model(spec_of(p), conv);
      EXPECT_EQ(npp_pick(m, 4, 3), 3 * 9 + 4) << conv.name() << " at " << angle;
    }
}

TEST(RotateNppRule, PicksTheRealNearestPixelAwayFromBoundaries) {
  for (const char* angle : {"30", "-17.5", "123.25"}) {
    const Problem p = npp_problem(101, 64, 1, angle);
    const RotateSpec s = spec_of(p);
    const NppModel m = npp_model(s);
    int checked = 0;
    for (int y = 0; y < p.height; ++y)
      for (int x = 0; x < p.width; ++x) {
        const int real = rottest::real_nearest(s, x, y, 1e-6);
        if (real == -2) continue;
        // NPP's measured edge (H100 probe): a point past the last column or row is left to the fill.
        const auto [sx, sy] = npp_point(m, x, y);
        const bool past_end = sx > p.width - 1 || sy > p.height - 1;
        ASSERT_EQ(npp_pick(m, x, y), past_end ? -1 : real) << angle << " at " << x << "," << y;
        ++checked;
      }
    EXPECT_GT(checked, p.width * p.height * 99 / 100);
  }
}

TEST(RotateNppRule, QuarterAndHalfTurnsAreTheFamilysPermutations) {
  for (const Problem& p : {npp_problem(9, 9, 1, "90"), npp_problem(8, 8, 3, "-90", "planar"), npp_problem(10, 7, 3, "180"),
                           npp_problem(12, 5, 1, "0")})
    EXPECT_EQ(rule(p, "npp"), rule(p, "")) << p.label();
}

TEST(RotateNppRule, LayoutsAgree) {
  const Problem inter = npp_problem(23, 17, 3, "30");
  const std::vector<std::uint8_t> in = rottest::family().make_workload(inter).input("in").bytes, a = rule(inter, "npp");
  std::vector<std::uint8_t> planar_in(in.size()), b(in.size());
  for (int i = 0; i < 23 * 17; ++i)
    for (int c = 0; c < 3; ++c) planar_in[c * 23 * 17 + i] = in[i * 3 + c];
  RotateSpec planar = spec_of(inter);
  planar.planar = true;
  reference_npp(planar, planar_in.data(), b.data());
  int fills = 0;
  for (int i = 0; i < 23 * 17; ++i) {
    for (int c = 0; c < 3; ++c) ASSERT_EQ(a[i * 3 + c], b[c * 23 * 17 + i]) << "pixel " << i << " channel " << c;
    if (npp_pick(npp_model(spec_of(inter)), i % 23, i / 23) < 0) {
      ++fills;
      EXPECT_EQ(a[i * 3], 11);
    }
  }
  EXPECT_GT(fills, 0);  // a 30 degree turn leaves corners to the fill
}

// A quarter turn of a 4x3 image puts source points half way between pixels: out(1, 0) reads (2.5, 0.5), the mean
// of four pixels; out(0, 0) reads (2.5, -0.5), outside. No turn at all is the identity.
TEST(RotateNppRule, BilinearBlendByHand) {
  const std::vector<std::uint8_t> in = {10, 20, 30, 41, 50, 60, 70, 80, 90, 100, 110, 120};
  std::vector<std::uint8_t> out(in.size());
  RotateSpec s = spec_of(npp_problem(4, 3, 1, "90", "interleaved", "bilinear"));
  reference_npp(s, in.data(), out.data());
  EXPECT_EQ(out[1], 55);  // (30 + 41 + 70 + 80) / 4 = 55.25
  EXPECT_EQ(out[0], 11);  // the fill
  s = spec_of(npp_problem(4, 3, 1, "0", "interleaved", "bilinear"));
  reference_npp(s, in.data(), out.data());
  EXPECT_EQ(out, in);
}

TEST(RotateNppRule, ConventionsAreDistinct) {
  std::set<std::string> names;
  for (const NppConvention& c : npp_conventions()) names.insert(c.name());
  EXPECT_EQ(names.size(), npp_conventions().size());
  EXPECT_EQ(names.count(kNppConvention.name()), 1u);
}

TEST(RotateNppRule, PlanCarriesAngleAndShift) {
  const Problem p = npp_problem(100, 30, 3, "30", "planar");
  const LaunchPlan plan = npp_plan(spec_of(p), 1);
  ASSERT_EQ(plan.args.size(), 13u);
  EXPECT_EQ(plan.args[12].i, 1);  // the fill inside the timed region by default
  EXPECT_EQ(npp_plan(spec_of(p), 1, false).args[12].i, 0);
  EXPECT_EQ(plan.args[4].i, 3);  // planes
  EXPECT_EQ(plan.args[5].i, 1);  // samples per pixel
  EXPECT_EQ(plan.args[7].i, 11);  // fill
  EXPECT_EQ(plan.args[8].i, 1);  // bytes per sample
  const auto shift = npp_shift(100, 30, 30, kNppConvention.centre);
  EXPECT_EQ(plan.args[9].f, 30.0);
  EXPECT_EQ(plan.args[10].f, shift[0]);
  EXPECT_EQ(plan.args[11].f, shift[1]);
  EXPECT_EQ(npp_plan(spec_of(npp_problem(100, 30, 1, "30", "interleaved", "bilinear")), 1).args[6].i, 1);
  EXPECT_THROW(npp_plan(spec_of(p), 4), PlanError);
}

// NPP's float ties (tolerance of rule npp, nearest): an output that takes the other neighbour at every tie is
// accepted (and says how many), one differing pixel away from a tie is refused, and so is a tie pixel holding a
// value that none of its candidates has.
TEST(RotateNppRule, CompareAcceptsTheOtherNeighbourOnlyAtTies) {
  for (const auto& [ch, layout] : {std::pair{1, "interleaved"}, std::pair{3, "planar"}}) {
    const Problem p = npp_problem(511, 383, ch, "30", layout);  // odd: the centre column gives exact ties
    const Workload w = rottest::family().make_workload(p);
    const std::vector<std::uint8_t> expected = rottest::family().reference(p, w, "npp");
    const RotateSpec s = spec_of(p);
    const NppModel m = npp_model(s);
    const double eps = npp_tie_eps(s.width, s.height);
    const std::uint8_t* in = w.input("in").bytes.data();
    auto idx = [&](int x, int y, int c) { return pimg_rot_index(x, y, c, s.width, s.height, s.channels, s.planar); };
    std::vector<std::uint8_t> npp = expected;
    int ties = 0, tx = -1, ty = -1, plain_x = -1, plain_y = -1;
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const std::vector<int> picks = npp_picks_within(m, x, y, eps);
        ASSERT_EQ(picks.front(), npp_pick(m, x, y));
        if (picks.size() == 1) {
          if (plain_x < 0 && picks[0] >= 0) plain_x = x, plain_y = y;
          continue;
        }
        const int other = picks.back();
        bool differs = false;
        for (int c = 0; c < s.channels; ++c) {
          const std::uint8_t v = other < 0 ? s.fill : in[idx(other % s.width, other / s.width, c)];
          differs = differs || v != npp[idx(x, y, c)];
          npp[idx(x, y, c)] = v;
        }
        if (differs) ++ties, tx = x, ty = y;
      }
    ASSERT_GT(ties, 10) << "ties: sin 30 = 1/2 on the centre column, and points within eps of k + 1/2";
    const Validation ok = rottest::family().compare_rule(p, w, expected, npp, "npp");
    EXPECT_TRUE(ok.ok) << ok.detail;
    EXPECT_EQ(ok.detail.rfind(fmt::format("within NPP's float ties: {} pixels", ties), 0), 0u) << ok.detail;
    // The family's own rule (no tolerance) and the plain comparison refuse the same output.
    EXPECT_FALSE(rottest::family().compare_rule(p, w, expected, npp, "").ok);
    EXPECT_FALSE(rottest::family().compare(p, expected, npp).ok);

    std::vector<std::uint8_t> off = npp;
    ASSERT_GE(plain_x, 0);
    off[idx(plain_x, plain_y, 0)] ^= 1;
    const Validation away = rottest::family().compare_rule(p, w, expected, off, "npp");
    EXPECT_FALSE(away.ok);
    EXPECT_EQ(away.detail.rfind("1 pixels differ away from NPP's float ties", 0), 0u) << away.detail;

    off = npp;
    std::set<int> seen;
    for (int n : npp_picks_within(m, tx, ty, eps)) seen.insert(n < 0 ? s.fill : in[idx(n % s.width, n / s.width, 0)]);
    int v = 0;
    while (seen.count(v)) ++v;
    off[idx(tx, ty, 0)] = static_cast<std::uint8_t>(v);
    EXPECT_FALSE(rottest::family().compare_rule(p, w, expected, off, "npp").ok);
  }
}

}  // namespace
}  // namespace pimg::rotate
