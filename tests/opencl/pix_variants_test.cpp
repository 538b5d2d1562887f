// The OpenCL variants of bgr2rgba, flip and maxpool on PoCL, over samples of their knobs in which each
// value appears, on odd sizes (partial groups, unaligned rows: the byte paths) and on sizes whose rows
// are 16-byte aligned (the vector paths), 1 and 3 channels, interleaved and planar: every output must
// equal the serial reference byte for byte after the output was poisoned.
#include <gtest/gtest.h>

#include <tuple>

#include "cl_fixture.hpp"
#include "pix_eval.hpp"

namespace pimg::pixtest {
namespace {

using testcommon::kShapes;
using testcommon::Shape;
// width x height: odd, 16-aligned rows (flip vec), 32-aligned rows (maxpool vec: output rows aligned too).
const std::pair<int, int> kSizes[] = {{37, 23}, {48, 5}, {128, 6}};

void expect_exact(const Problem& p, const std::string& variant, const std::vector<Config>& configs) {
  for (const Config& c : configs) {
    SCOPED_TRACE(variant + " " + c.brief() + " on " + p.label());
    const EvalResult r = evaluate_variant(cltest::device(), p, variant, c);
    EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
    EXPECT_EQ(r.validation, "exact");
  }
}

// A covering array instead of every configuration on every problem (docs/ci.md): the `count` configurations of
// `configs` that problem number `index` runs, in turn, so that over the problems each configuration runs.
std::vector<Config> in_turn(const std::vector<Config>& configs, std::size_t index, std::size_t count = 1) {
  std::vector<Config> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(configs[(index * count + i) % configs.size()]);
  return out;
}

TEST(PixOpenCl, Bgr2RgbaEveryVariantExact) {
  std::size_t index = 0;
  for (const auto& [w, h] : kSizes) {
    const Problem p = problem("bgr2rgba", w, h, 3, {{"alpha", w == 37 ? "200" : "255"}});
    expect_exact(p, "cl_grid",
                 in_turn({config({{"dims", 2}, {"block_x", 16}, {"block_y", 4}, {"pixels", 1}, {"temp", 0}}),
                          config({{"dims", 2}, {"block_x", 8}, {"block_y", 8}, {"pixels", 3}, {"temp", 1}}),
                          config({{"dims", 1}, {"block_x", 64}, {"block_y", 1}, {"pixels", 1}, {"temp", 1}}),
                          config({{"dims", 1}, {"block_x", 32}, {"block_y", 1}, {"pixels", 2}, {"temp", 0}})},
                         index, 2));
    expect_exact(p, "cl_staged",
                 in_turn({config({{"block_x", 64}, {"pixels", 1}}), config({{"block_x", 32}, {"pixels", 4}}),
                          config({{"block_x", 16}, {"pixels", 3}})},
                         index));
    expect_exact(p, "cl_vec16",
                 in_turn({config({{"block_x", 64}, {"groups", 1}}), config({{"block_x", 16}, {"groups", 3}})}, index));
    // Staged through local memory: a whole block then one past the image's end (48 groups a block at 37x23; 4 at
    // 48x5), whole blocks only (48 at 128x6).
    expect_exact(p, "cl_vec16",
                 in_turn({config({{"block_x", 16}, {"groups", 3}, {"stage", 1}}),
                          config({{"block_x", 4}, {"groups", 1}, {"stage", 1}})},
                         index));
    ++index;
  }
}

using ShapeSize = std::tuple<int, int>;
class PixLayouts : public ::testing::TestWithParam<ShapeSize> {
 protected:
  Problem make(const std::string& family) const {
    const Shape& s = kShapes[std::get<0>(GetParam())];
    const auto [w, h] = kSizes[std::get<1>(GetParam())];
    return problem(family, w, h, s.channels, {{"layout", s.layout}});
  }
  // This layout and size's share of the configurations (in_turn). Up to three configurations: a Latin square
  // (layout + size), each meets every layout and every size; four: each meets at least two of each.
  std::vector<Config> ours(const std::vector<Config>& configs) const {
    const auto [shape, size] = GetParam();
    return in_turn(configs, static_cast<std::size_t>(configs.size() <= 3 ? shape + size : shape * 3 + size));
  }
};

TEST_P(PixLayouts, FlipEveryVariantExact) {
  const Problem p = make("flip");
  const std::vector<Config> configs = {
      config({{"block_x", 16}, {"block_y", 4}, {"vec", 0}, {"per_thread", 1}}),
      config({{"block_x", 8}, {"block_y", 2}, {"vec", 0}, {"per_thread", 3}}),
      config({{"block_x", 32}, {"block_y", 2}, {"vec", 1}, {"per_thread", 1}}),
      config({{"block_x", 2}, {"block_y", 4}, {"vec", 1}, {"per_thread", 2}})};
  expect_exact(p, "cl_flip", ours(configs));
  // Staged through local memory (a Latin square of layouts and sizes): whole spans with 3 interleaved samples and
  // rows past the image in the last block (2x4 at 128x6), a whole span then a partial one (2x4 at 48x5 planar),
  // two groups per thread (4x2 at 128x6 planar), blocks with no whole span (48 wide: 3 groups), odd widths.
  expect_exact(p, "cl_flip",
               ours({config({{"block_x", 2}, {"block_y", 4}, {"vec", 1}, {"per_thread", 1}, {"stage", 1}}),
                     config({{"block_x", 4}, {"block_y", 2}, {"vec", 1}, {"per_thread", 2}, {"stage", 1}}),
                     config({{"block_x", 8}, {"block_y", 1}, {"vec", 1}, {"per_thread", 1}, {"stage", 1}})}));
  expect_exact(p, "cl_flip_inplace",
               ours({config({{"block_x", 16}, {"block_y", 2}, {"vec", 0}}), config({{"block_x", 4}, {"block_y", 4}, {"vec", 1}}),
                     config({{"block_x", 1}, {"block_y", 1}, {"vec", 1}})}));
}

TEST_P(PixLayouts, MaxpoolEveryVariantExact) {
  const Problem p = make("maxpool");
  expect_exact(p, "cl_direct",
               ours({config({{"block_x", 16}, {"block_y", 4}, {"pixels", 1}}),
                     config({{"block_x", 8}, {"block_y", 8}, {"pixels", 3}})}));
  expect_exact(p, "cl_vec16",
               ours({config({{"block_x", 16}, {"block_y", 2}, {"groups", 1}}),
                     config({{"block_x", 2}, {"block_y", 4}, {"groups", 2}})}));
  expect_exact(p, "cl_tree",
               ours({config({{"block_x", 16}, {"block_y", 4}}), config({{"block_x", 8}, {"block_y", 8}}),
                     config({{"block_x", 2}, {"block_y", 2}})}));
}

// cl_rgb (3 channels interleaved only): rows not 16-byte aligned (byte path), widths that are multiples
// of 32 with whole tiles (vector path), a whole tile then a partial one in the same row (both paths in one
// launch), odd heights, and blocks whose last rows fall past the output.
TEST(PixOpenCl, MaxpoolRgbExact) {
  const std::vector<Config> configs = {
      config({{"block_x", 2}, {"block_y", 1}, {"units", 1}}), config({{"block_x", 4}, {"block_y", 4}, {"units", 1}}),
      config({{"block_x", 2}, {"block_y", 2}, {"units", 3}}), config({{"block_x", 16}, {"block_y", 2}, {"units", 2}}),
      config({{"block_x", 1}, {"block_y", 3}, {"units", 4}})};
  for (const auto& [w, h] : {std::pair{37, 23}, std::pair{64, 6}, std::pair{96, 5}, std::pair{200, 9},
                             std::pair{33, 2}, std::pair{1024, 7}, std::pair{2, 3}})
    expect_exact(problem("maxpool", w, h, 3, {{"layout", "interleaved"}}), "cl_rgb", configs);
}

std::string layout_name(const ::testing::TestParamInfo<ShapeSize>& info) {
  const auto [w, h] = kSizes[std::get<1>(info.param)];
  return std::string(kShapes[std::get<0>(info.param)].name) + "_" + std::to_string(w) + "x" + std::to_string(h);
}

INSTANTIATE_TEST_SUITE_P(OpenCl, PixLayouts, ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(0, 1, 2)),
                         layout_name);

// Windows of 3 and 4: the direct kernel and seed 003's tree (blocks multiples of the window); the 2x2-only
// kernels refuse them in their plans.
TEST(PixOpenCl, MaxpoolLargerWindowsExact) {
  // A covering array: each (window, layout) problem runs one configuration of each kernel, in turn, so each
  // configuration meets both windows and every layout.
  int index = 0;
  for (const auto& [window, k] : {std::pair{"3", 3}, std::pair{"4", 4}})
    for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}}) {
      // 37x23: partial groups, columns and rows after the last window.
      const Problem p = problem("maxpool", 37, 23, channels, {{"layout", layout}, {"window", window}});
      const bool first = index++ % 2 == 0;
      expect_exact(p, "cl_direct",
                   {first ? config({{"block_x", 16}, {"block_y", 4}, {"pixels", 1}})
                          : config({{"block_x", 8}, {"block_y", 8}, {"pixels", 3}})});
      expect_exact(p, "cl_tree", {first ? config({{"block_x", 8 * k}, {"block_y", 2 * k}})
                                        : config({{"block_x", 4 * k}, {"block_y", k}})});
    }
  const Problem p = problem("maxpool", 64, 16, 3, {{"layout", "interleaved"}, {"window", "3"}});
  const Workload w = registry().family("maxpool")->make_workload(p);
  const DeviceInfo d = cltest::device().info();
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_tree"), p, w, config({{"block_x", 16}, {"block_y", 6}}), d), PlanError);
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_vec16"), p, w, Config{}, d), PlanError);
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_rgb"), p, w, Config{}, d), PlanError);
}

TEST(PixOpenCl, PlansRejectWhatCannotRun) {
  const DeviceInfo d = cltest::device().info();
  const Problem bgr = problem("bgr2rgba", 37, 23, 3);
  const Workload wb = registry().family("bgr2rgba")->make_workload(bgr);
  EXPECT_THROW(plan_for(*registry().variant("bgr2rgba", "cl_grid"), bgr, wb, config({{"dims", 1}, {"block_y", 2}}), d),
               PlanError);
  EXPECT_THROW(plan_for(*registry().variant("bgr2rgba", "cl_grid"), bgr, wb, config({{"pixels", 0}}), d), PlanError);
  DeviceInfo small = d;
  small.limits["local_mem_size"] = 64;
  EXPECT_THROW(plan_for(*registry().variant("bgr2rgba", "cl_staged"), bgr, wb, Config{}, small), PlanError);
  EXPECT_THROW(plan_for(*registry().variant("bgr2rgba", "cl_vec16"), bgr, wb, config({{"stage", 1}}), small), PlanError);
  const Problem fl = problem("flip", 37, 23, 3);
  const Workload wf = registry().family("flip")->make_workload(fl);
  EXPECT_THROW(plan_for(*registry().variant("flip", "cl_flip"), fl, wf, config({{"vec", 0}, {"stage", 1}}), d), PlanError);
  EXPECT_THROW(plan_for(*registry().variant("flip", "cl_flip"), fl, wf, config({{"vec", 1}, {"stage", 1}}), small), PlanError);
  EXPECT_NO_THROW(plan_for(*registry().variant("flip", "cl_flip"), fl, wf, config({{"vec", 1}, {"stage", 1}}), d));
  const Problem mp = problem("maxpool", 37, 23, 1);
  const Workload wm = registry().family("maxpool")->make_workload(mp);
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_tree"), mp, wm, config({{"block_x", 15}}), d), PlanError);
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_rgb"), mp, wm, Config{}, d), PlanError);  // 1 channel
  const Problem planar = problem("maxpool", 64, 8, 3, {{"layout", "planar"}});
  const Workload wp = registry().family("maxpool")->make_workload(planar);
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_rgb"), planar, wp, Config{}, d), PlanError);
  const Problem rgb = problem("maxpool", 64, 8, 3);
  const Workload wr = registry().family("maxpool")->make_workload(rgb);
  EXPECT_NO_THROW(plan_for(*registry().variant("maxpool", "cl_rgb"), rgb, wr, Config{}, d));
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_rgb"), rgb, wr, config({{"block_x", 3}, {"units", 1}}), d),
               PlanError);
  const auto group = static_cast<int>(d.limits.at("max_work_group_size"));
  EXPECT_THROW(plan_for(*registry().variant("maxpool", "cl_direct"), mp, wm, config({{"block_x", group}, {"block_y", 2}}), d),
               PlanError);
}

}  // namespace
}  // namespace pimg::pixtest
