// The OpenCL rotate variants over a covering sample of its knobs (blocks, items per work item in both
// directions, neighbouring and spread pixels) on the problem matrix {c1, c3 interleaved, c3 planar} x
// {nearest, bilinear} x {30, -17.5, 123.25, 90 degrees} at 37x23 with fill 11: byte for byte the reference;
// the same for the image2d_t variant.
#include <gtest/gtest.h>

#include "cl_fixture.hpp"
#include "rotate/rotate_fixture.hpp"

namespace pimg::rottest {
namespace {

Config grid(int bx, int by, int ix, int iy, int spread) {
  return config({{"block_x", bx}, {"block_y", by}, {"items_x", ix}, {"items_y", iy}, {"spread", spread}});
}

TEST(RotateOpenCL, ClDirectBitExactWithReference) {
  expect_exact_everywhere(cltest::device(), "cl_direct",
                          {grid(8, 8, 1, 1, 0), grid(16, 4, 4, 2, 0), grid(8, 4, 3, 3, 1)});
}

// The image2d_t path (read_imageui at integer coordinates) gives the same bytes.
TEST(RotateOpenCL, ClImageBitExactWithReference) {
  expect_exact_everywhere(cltest::device(), "cl_image", {grid(16, 4, 2, 2, 0), grid(8, 8, 3, 1, 1)});
}

TEST(RotateOpenCL, LargerImageAcrossManyGroups) {
  const Problem p = make_problem(kShapes[1], "bilinear", "30", 301, 157);
  const EvalResult r = evaluate_on(cltest::device(), p, "cl_direct", grid(16, 8, 2, 2, 1));
  EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
}

// Seed 002's scatter: three launches (clear, atomic-max mark, copy) exact against the rule "scatter".
TEST(RotateOpenCL, ClScatterExactAgainstItsRule) {
  // The two configurations as a Latin square over shape x angle: each meets every shape and both angles.
  for (int s = 0; s < 3; ++s)
    for (int a = 0; a < 2; ++a)
      for (const Config& c : {(s + a) % 2 == 0 ? config({{"block_x", 16}, {"block_y", 4}, {"items_x", 1}})
                                               : config({{"block_x", 8}, {"block_y", 8}, {"items_x", 3}})}) {
        const Shape& shape = kShapes[s];
        const char* angle = a == 0 ? "30" : "123.25";  // holes and collisions both
        const Problem p = make_problem(shape, "nearest", angle);
        const EvalResult r = evaluate_on(cltest::device(), p, "cl_scatter", c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << p.label() << " " << c.brief() << ": " << r.log;
        EXPECT_EQ(r.validation, "exact (rule scatter)");
      }
}

TEST(RotateOpenCL, OversizedGroupIsALaunchError) {
  const Problem p = make_problem(kShapes[0], "nearest", "30");
  const EvalResult r = evaluate_on(cltest::device(), p, "cl_direct", grid(1024, 1024, 1, 1, 0));
  EXPECT_EQ(to_string(r.status), std::string("launch_error")) << r.log;
}

}  // namespace
}  // namespace pimg::rottest
