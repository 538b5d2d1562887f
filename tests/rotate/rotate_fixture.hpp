// Shared by the rotate tests of every backend: the problem matrix (shapes x interpolations x angles, odd sizes,
// a non-zero fill) and one evaluation through pimg::evaluate, the output poisoned and compared with the
// family's reference under the variant's own validation rule.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "common/variant_matrix.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "rotate/rotate_family.hpp"

namespace pimg::rottest {

using testcommon::kShapes;
using testcommon::Shape;
inline const char* const kInterps[] = {"nearest", "bilinear"};
// An acute angle, a negative one, one past 90 degrees, and a quarter turn of a non-square image.
inline const char* const kAngles[] = {"30", "-17.5", "123.25", "90"};

inline const Family& family() { return *Registry::builtin().family("rotate"); }

inline Problem make_problem(const Shape& shape, const char* interp, const char* angle, int width = 37,
                            int height = 23) {
  return family().make_problem(width, height, shape.channels,
                               {{"layout", shape.layout}, {"interp", interp}, {"angle", angle}, {"fill", "11"}});
}

using testcommon::config;

// One warm-up and one timed run, each poisoned and validated.
inline EvalResult evaluate_on(Device& device, const Problem& p, const std::string& variant, const Config& c) {
  const Variant* v = Registry::builtin().variant("rotate", variant);
  if (!v) throw std::runtime_error("no variant rotate/" + variant);
  const Workload w = family().make_workload(p);
  const std::vector<std::uint8_t> expected = family().reference(p, w, v->validation_rule());
  EvalContext ctx{family(), p, w, expected, device, MeasureSpec::fixed(1, 1, 60)};
  return evaluate(ctx, *v, c);
}

// Every configuration over the whole problem matrix must validate exactly.
// A covering array over the 24 problems (shapes x interpolations x angles): each problem runs one of the
// configurations, in turn, so each configuration meets every shape and interpolation and most angles, and every
// problem is run (not every configuration on every problem: docs/ci.md).
inline void expect_exact_everywhere(Device& device, const std::string& variant, const std::vector<Config>& configs) {
  std::size_t index = 0;
  for (const Shape& shape : kShapes)
    for (const char* interp : kInterps)
      for (const char* angle : kAngles) {
        const Problem p = make_problem(shape, interp, angle);
        const Config& c = configs[index++ % configs.size()];
        SCOPED_TRACE(variant + " " + c.brief() + " on " + p.label());
        const EvalResult r = evaluate_on(device, p, variant, c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
        EXPECT_EQ(r.validation.substr(0, 5), "exact") << r.validation;
      }
}

// The pixel nearest to output (x, y)'s real-valued source point (cos and sin in double, the family's centre):
// y w + x, -1 outside the image, or -2 when the point lies within `margin` of a rounding boundary.
inline int real_nearest(const rotate::RotateSpec& s, int x, int y, double margin) {
  const double a = s.angle * std::numbers::pi / 180.0, cx = (s.width - 1) / 2.0, cy = (s.height - 1) / 2.0;
  const double sx = cx + std::cos(a) * (x - cx) - std::sin(a) * (y - cy);
  const double sy = cy + std::sin(a) * (x - cx) + std::cos(a) * (y - cy);
  const double fx = sx + 0.5 - std::floor(sx + 0.5), fy = sy + 0.5 - std::floor(sy + 0.5);
  if (std::min({fx, 1 - fx, fy, 1 - fy}) < margin) return -2;
  const int ix = static_cast<int>(std::floor(sx + 0.5)), iy = static_cast<int>(std::floor(sy + 0.5));
  return ix >= 0 && iy >= 0 && ix < s.width && iy < s.height ? iy * s.width + ix : -1;
}

}  // namespace pimg::rottest
