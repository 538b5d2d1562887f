// Every OpenCL conv variant, over a covering array of its knobs and the problem matrix
// {1ch, 3ch interleaved, 3ch planar} x {zero, valid, replicate} x {sharpen3, gaussian5} at 37x23:
// the output must equal the serial reference byte for byte. Plus the two self-test variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>
#include <tuple>

#include "cl_fixture.hpp"

namespace pimg::cltest {
namespace {

using testcommon::kBorders;
using testcommon::kFilters;
using testcommon::kShapes;
using testcommon::Shape;

// One configuration of the OpenCL knobs; arith is left out when empty (cl_tiled, cl_image).
Config knobs(int bx, int by, int ix, int iy, const char* filter_mem, int unroll, const char* arith = "") {
  Config c = config({{"block_x", bx}, {"block_y", by}, {"items_x", ix}, {"items_y", iy},
                     {"filter_mem", filter_mem}, {"unroll", unroll}});
  if (*arith) c.set("arith", std::string(arith));
  return c;
}

// Each knob value appears at least once, blocks 8x8 and 16x4, items 1 and 2 in both directions;
// for cl_direct every filter_mem x arith pair.
std::vector<Config> direct_configs() {
  return {knobs(8, 8, 1, 1, "global", 1, "mul"),   knobs(16, 4, 2, 2, "constant", 0, "lut"),
          knobs(8, 8, 2, 1, "private", 1, "lut"),  knobs(16, 4, 1, 2, "private", 0, "mul"),
          knobs(16, 4, 2, 1, "global", 0, "lut"),  knobs(8, 8, 1, 2, "constant", 1, "mul")};
}

// For cl_tiled and cl_image (no arith knob).
std::vector<Config> knob_configs() {
  return {knobs(8, 8, 1, 1, "global", 1), knobs(16, 4, 2, 2, "constant", 0), knobs(8, 8, 2, 1, "private", 0),
          knobs(16, 4, 1, 2, "private", 1)};
}

Problem make(const Shape& shape, const char* border, const char* filter, int width = 37, int height = 23) {
  return conv_family().make_problem(width, height, shape.channels,
                                    {{"layout", shape.layout}, {"border", border}, {"filter", filter}});
}

using MatrixParam = std::tuple<const char*, int, const char*, const char*>;  // variant, shape, border, filter

class ConvMatrix : public ::testing::TestWithParam<MatrixParam> {};

// A covering array rather than every configuration on every problem: the 18 problems of a variant each run one
// of its configurations, the k-th with k = 2 * ((border - shape) mod 3) + (filter + shape) mod 2 (modulo the
// number of configurations). That k is one-to-one on the 18 problems, so with six configurations each one meets
// every shape and every border once and both filters; every problem meets a configuration.
std::size_t covering_index(int shape, int border, int filter) {
  return static_cast<std::size_t>(2 * ((border - shape + 3) % 3) + (filter + shape) % 2);
}

TEST_P(ConvMatrix, BitExactWithReference) {
  const auto& [variant, shape, border, filter] = GetParam();
  const Problem p = make(kShapes[shape], border, filter);
  const std::string name = variant;
  const std::vector<Config> configs = name == "cl_direct" ? direct_configs() : knob_configs();
  const int border_index = static_cast<int>(std::find(std::begin(kBorders), std::end(kBorders), std::string_view(border)) -
                                            std::begin(kBorders));
  const int filter_index = static_cast<int>(std::find(std::begin(kFilters), std::end(kFilters), std::string_view(filter)) -
                                            std::begin(kFilters));
  const Config& c = configs[covering_index(shape, border_index, filter_index) % configs.size()];
  SCOPED_TRACE(name + " " + c.brief() + " on " + p.label());
  const EvalResult r = evaluate_on(device(), p, name, c);
  EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
  EXPECT_EQ(r.validation, "exact");
}

std::string matrix_name(const ::testing::TestParamInfo<MatrixParam>& info) {
  const auto& [variant, shape, border, filter] = info.param;
  return std::string(variant) + "_" + kShapes[shape].name + "_" + border + "_" + filter;
}

INSTANTIATE_TEST_SUITE_P(OpenCl, ConvMatrix,
                         ::testing::Combine(::testing::Values("cl_direct", "cl_tiled", "cl_image"),
                                            ::testing::Values(0, 1, 2), ::testing::ValuesIn(kBorders),
                                            ::testing::ValuesIn(kFilters)),
                         matrix_name);

TEST(ConvVariants, DefaultConfigurationsAreExactOnLargerOddImage) {
  const Problem p = make(kShapes[1], "replicate", "gaussian5", 131, 67);
  for (const char* v : {"cl_direct", "cl_tiled", "cl_image"}) {
    SCOPED_TRACE(v);
    const EvalResult r = evaluate_on(device(), p, v, Config{});
    EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
    EXPECT_EQ(r.validation, "exact");
  }
}

TEST(ConvVariants, RegisteredWithTheirParameters) {
  for (const char* v : {"cl_direct", "cl_tiled", "cl_image", "selftest_compile_error", "selftest_wrong_result"}) {
    const Variant* variant = registry().variant("conv", v);
    ASSERT_NE(variant, nullptr) << v;
    EXPECT_EQ(variant->backend(), "opencl");
    EXPECT_EQ(variant->family(), "conv");
    EXPECT_NE(kernel_source(variant->source()), nullptr) << variant->source();
  }
  auto names = [](const Variant* v) {
    std::vector<std::string> out;
    for (const auto& d : v->parameters()) out.push_back(d.name);
    return out;
  };
  EXPECT_EQ(names(registry().variant("conv", "cl_direct")),
            (std::vector<std::string>{"block_x", "block_y", "items_x", "items_y", "filter_mem", "unroll", "arith",
                                      "channel_z"}));
  EXPECT_EQ(names(registry().variant("conv", "cl_tiled")),
            (std::vector<std::string>{"block_x", "block_y", "items_x", "items_y", "filter_mem", "unroll"}));
  EXPECT_EQ(names(registry().variant("conv", "selftest_wrong_result")),
            (std::vector<std::string>{"block_x", "block_y"}));
}

TEST(ConvVariants, PlanRejectsWhatTheDeviceCannotRun) {
  const Problem p = make(kShapes[1], "zero", "sharpen3");
  const Workload w = conv_family().make_workload(p);
  DeviceInfo d = device().info();
  const Variant& direct = *registry().variant("conv", "cl_direct");
  const Variant& tiled = *registry().variant("conv", "cl_tiled");
  const Variant& image = *registry().variant("conv", "cl_image");

  const auto group = static_cast<int>(d.limits.at("max_work_group_size"));
  EXPECT_THROW(plan_for(direct, p, w, config({{"block_x", group}, {"block_y", 2}}), d), PlanError);
  EXPECT_THROW(plan_for(direct, p, w, config({{"filter_mem", "texture"}}), d), PlanError);
  EXPECT_THROW(plan_for(direct, p, w, config({{"items_x", 0}}), d), PlanError);

  DeviceInfo small_local = d;
  small_local.limits["local_mem_size"] = 64;
  EXPECT_THROW(plan_for(tiled, p, w, Config{}, small_local), PlanError);

  DeviceInfo no_images = d;
  no_images.limits["image_support"] = 0;
  EXPECT_THROW(plan_for(image, p, w, Config{}, no_images), PlanError);
  DeviceInfo narrow_images = d;
  narrow_images.limits["image2d_max_width"] = 100;  // 37 pixels x 3 channels = 111 texels
  EXPECT_THROW(plan_for(image, p, w, Config{}, narrow_images), PlanError);

  const LaunchPlan plan = plan_for(tiled, p, w, config({{"block_x", 8}, {"block_y", 4}, {"items_x", 2}}), d);
  EXPECT_EQ(plan.dims, 2);
  EXPECT_EQ(plan.global[0], 24u);  // ceil(37 / 2) = 19, rounded up to 8
  EXPECT_EQ(plan.global[1], 24u);  // 23 rounded up to 4
  EXPECT_EQ(plan.local[0], 8u);
  EXPECT_EQ(plan.local[1], 4u);
}

// Seed 003's batch in one launch on PoCL: cl_direct with the image in the work-group's z, the channel in the
// work-group's z (channel_z 1) or not, every image validated exactly; the one-image variants refuse a batch
// in plan() (the runner then skips the batch problem for them).
TEST(ConvVariants, BatchOfImagesInOneLaunchIsExactInEveryImage) {
  for (int shape : {0, 1, 2})
    for (int b = 0; b < 2; ++b) {
      const char* border = b == 0 ? "zero" : "valid";
      const Problem p = conv_family().make_problem(
          37, 23, kShapes[shape].channels,
          {{"layout", kShapes[shape].layout}, {"border", border}, {"filter", "gaussian5"}, {"batch", "3"}});
      // A covering array (docs/ci.md): both channel_z values and both knob sets on every problem, paired as a Latin
      // square over shape x border, so each (knob set, channel_z) pair meets every shape and both borders.
      const bool first = (shape + b) % 2 == 0;
      for (std::int64_t channel_z : {0, 1})
        for (Config c : {(first == (channel_z == 0)) ? knobs(8, 8, 1, 1, "global", 0, "mul")
                                                     : knobs(16, 4, 2, 2, "private", 1, "lut")}) {
          c.set("channel_z", channel_z);
          SCOPED_TRACE(c.brief() + " on " + p.label());
          const EvalResult r = evaluate_on(device(), p, "cl_direct", c);
          EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
          EXPECT_EQ(r.validation, "exact");
        }
    }
  const Problem p = conv_family().make_problem(37, 23, 3, {{"layout", "planar"}, {"batch", "20"}});
  const Workload w = conv_family().make_workload(p);
  Config c = knobs(16, 4, 1, 1, "constant", 1, "mul");
  c.set("channel_z", std::int64_t{1});
  const LaunchPlan plan = plan_for(*registry().variant("conv", "cl_direct"), p, w, c, device().info());
  EXPECT_EQ(plan.dims, 3);
  EXPECT_EQ(plan.global[2], 60u);  // 20 images x 3 channels
  EXPECT_EQ(plan.local[2], 3u);    // one channel per item
  for (const char* v : {"cl_tiled", "cl_image", "cl_vec"}) {
    try {
      plan_for(*registry().variant("conv", v), p, w, Config{}, device().info());
      ADD_FAILURE() << v << " planned a batch";
    } catch (const PlanError& e) {
      EXPECT_NE(std::string(e.what()).find("batch=20"), std::string::npos) << e.what();
    }
  }
}

// cl_vec, as cuda_vec in tests/cuda/cuda_run_test.cpp: vec 4, 8 and 16 with rows 1, 3, 4, 8 and 16 rotating
// over the problems, and for gaussian5 the separable passes, on ints and on packed 16-bit lanes. 37x23 leaves most work-items on the checked
// path (rows not vec-aligned), 256x40 runs the aligned fast path between the edge work-items, and 260x41
// with the valid border has aligned output rows but input rows aligned only for vec 4.
std::vector<Config> vec_configs() {
  return {
      config({{"block_x", 32}, {"block_y", 4}, {"vec", 4}, {"rows", 16}}),
      config({{"block_x", 64}, {"block_y", 2}, {"vec", 8}, {"rows", 1}}),
      config({{"block_x", 128}, {"block_y", 1}, {"vec", 16}, {"rows", 8}}),
      config({{"block_x", 32}, {"block_y", 2}, {"vec", 16}, {"rows", 16}}),
      config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 4}}),
      config({{"block_x", 16}, {"block_y", 4}, {"vec", 4}, {"rows", 3}}),
  };
}

const std::pair<int, int> kVecSizes[] = {{37, 23}, {256, 40}, {260, 41}};

using VecParam = std::tuple<int, int>;  // size, shape

class VecMatrix : public ::testing::TestWithParam<VecParam> {};

TEST_P(VecMatrix, VecKernelIsExactOnEveryLayoutBorderAndAlignment) {
  const auto& [size, shape] = GetParam();
  const auto& [width, height] = kVecSizes[size];
  const std::vector<Config> configs = vec_configs();
  std::size_t index = static_cast<std::size_t>(size * 3 + shape) * std::size(kBorders) * std::size(kFilters);
  for (const char* border : kBorders)
    for (const char* filter : kFilters) {
      const Problem p = make(kShapes[shape], border, filter, width, height);
      // A covering array: one of the plain configurations per problem, rotating (each meets every size, shape and
      // border over the matrix), and one of the filter's own paths.
      std::vector<Config> run{configs[index % configs.size()]};
      if (std::string(filter) == "sharpen3")  // the K x K taps on biased 16-bit lanes, every vec width
        run.push_back(config({{"block_x", 16}, {"block_y", 2}, {"vec", 4 << static_cast<int>(index % 3)},
                              {"rows", 3 + 5 * static_cast<int>(index % 2)}, {"simd", 1}}));
      if (std::string(filter) == "gaussian5") {
        // The three separable paths in turn: each size and shape meets all three over its three borders.
        // Their vec widths go by the test (size and shape), since within a test each path runs at one index.
        const std::size_t test = index / (std::size(kBorders) * std::size(kFilters));
        const int vec = test % 2 ? 16 : 4;
        switch (index / 2 % 3) {
          case 0:
            run.push_back(config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 8}, {"separable", 1}}));
            break;
          case 1:
            run.push_back(config({{"block_x", 32}, {"block_y", 4}, {"vec", vec}, {"rows", 3}, {"separable", 1}}));
            break;
          default:  // two 16-bit lanes per word: every vec width, so each byte position of a word meets each pair kind
            run.push_back(config({{"block_x", 32}, {"block_y", 2}, {"vec", 4 << (test % 3)}, {"rows", 5},
                                  {"separable", 1}, {"packed", 1}}));
        }
      }
      for (const Config& c : run) {
        SCOPED_TRACE("cl_vec " + c.brief() + " on " + p.label());
        const EvalResult r = evaluate_on(device(), p, "cl_vec", c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
        EXPECT_EQ(r.validation, "exact");
      }
      ++index;
    }
}

std::string vec_name(const ::testing::TestParamInfo<VecParam>& info) {
  const auto& [size, shape] = info.param;
  return std::to_string(kVecSizes[size].first) + "x" + std::to_string(kVecSizes[size].second) + "_" +
         kShapes[shape].name;
}

INSTANTIATE_TEST_SUITE_P(OpenCl, VecMatrix, ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Values(0, 1, 2)),
                         vec_name);

TEST(ConvVariants, VecRegisteredWithItsParameters) {
  const Variant* v = registry().variant("conv", "cl_vec");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->backend(), "opencl");
  EXPECT_NE(kernel_source(v->source()), nullptr) << v->source();
  std::vector<std::string> names;
  for (const auto& d : v->parameters()) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"block_x", "block_y", "vec", "rows", "separable", "packed", "simd"}));
}

// simd=1 with a divisor of 4 (each lane shifted, masked and rebiased before the saturation) and with divisor 1
// on sharpen3 at sizes whose rows are not multiples of the vector (1000 bytes: of 8, not of 16; 17x3: all
// checked), every layout: byte for byte the reference.
// Shape, border, problem (a divisor at 1000x7, sharpen3 at 1000x7 and at 17x3) and vec, three values each: the
// orthogonal array L9 (every pair of values of any two of the four once: 9 runs instead of the product's 81); rows
// 1, 5 and 9 in turn.
TEST(ConvVariants, SimdVecKernelIsExactWithADivisorAndOddSizes) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const Shape& shape = kShapes[i];
      const char* border = kBorders[j];
      const int kind = (i + j) % 3, vec = 4 << ((i + 2 * j) % 3), rows = 1 + 4 * ((2 * i + j) % 3);
      const Problem p = kind == 0 ? conv_family().make_problem(1000, 7, shape.channels,
                                                               {{"layout", shape.layout}, {"border", border},
                                                                {"filter", "custom"}, {"weights", "-1,2,-1;2,9,2;-1,2,-1"},
                                                                {"divisor", "4"}})
                                  : make(shape, border, "sharpen3", kind == 1 ? 1000 : 17, kind == 1 ? 7 : 3);
      const Config c = config({{"block_x", 16}, {"block_y", 2}, {"vec", vec}, {"rows", rows}, {"simd", 1}});
      SCOPED_TRACE("cl_vec " + c.brief() + " on " + p.label());
      const EvalResult r = evaluate_on(device(), p, "cl_vec", c);
      EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
      EXPECT_EQ(r.validation, "exact");
    }
}

TEST(ConvVariants, VecPlanRejectsBadKnobsAndSetsItsGeometry) {
  const Variant& vec = *registry().variant("conv", "cl_vec");
  const DeviceInfo d = device().info();
  const Problem sharpen = make(kShapes[1], "zero", "sharpen3");
  const Workload ws = conv_family().make_workload(sharpen);
  const auto group = static_cast<int>(d.limits.at("max_work_group_size"));
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"block_x", group}, {"block_y", 2}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"block_x", 0}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"vec", 2}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"vec", 32}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"rows", 0}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"rows", 33}}), d), PlanError);
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"separable", 2}}), d), PlanError);
  // sharpen3 has no integer factorisation; gaussian5 has one.
  EXPECT_THROW(plan_for(vec, sharpen, ws, config({{"separable", 1}}), d), PlanError);
  const Problem gauss = make(kShapes[2], "valid", "gaussian5");
  const Workload wg = conv_family().make_workload(gauss);
  EXPECT_NO_THROW(plan_for(vec, gauss, wg, config({{"separable", 1}}), d));
  EXPECT_NO_THROW(plan_for(vec, gauss, wg, config({{"separable", 1}, {"packed", 1}}), d));
  EXPECT_THROW(plan_for(vec, gauss, wg, config({{"packed", 1}}), d), PlanError);  // packed needs separable
  EXPECT_THROW(plan_for(vec, gauss, wg, config({{"separable", 1}, {"packed", 2}}), d), PlanError);
  EXPECT_NO_THROW(plan_for(vec, sharpen, ws, config({{"simd", 1}}), d));
  EXPECT_THROW(plan_for(vec, gauss, wg, config({{"simd", 1}}), d), PlanError);  // 255 x 256 does not fit a lane
  EXPECT_THROW(plan_for(vec, gauss, wg, config({{"separable", 1}, {"simd", 1}}), d), PlanError);

  // 37x23, 3 channels interleaved: 111 row bytes = 14 vectors of 8, rounded up to 16; 23 rows = 6 groups of
  // 4, rounded up to 8.
  const LaunchPlan interleaved =
      plan_for(vec, sharpen, ws, config({{"block_x", 16}, {"block_y", 4}, {"vec", 8}, {"rows", 4}}), d);
  EXPECT_EQ(interleaved.dims, 2);
  EXPECT_EQ(interleaved.global[0], 16u);
  EXPECT_EQ(interleaved.global[1], 8u);
  EXPECT_EQ(interleaved.local[0], 16u);
  EXPECT_EQ(interleaved.local[1], 4u);
  // Planar with the valid border: 33x19 per plane; 33 bytes = 3 vectors of 16, rounded up to 8; 3 planes x
  // 5 groups of 4 rows = 15, rounded up to 16.
  const LaunchPlan planar =
      plan_for(vec, gauss, wg, config({{"block_x", 8}, {"block_y", 8}, {"vec", 16}, {"rows", 4}}), d);
  EXPECT_EQ(planar.global[0], 8u);
  EXPECT_EQ(planar.global[1], 16u);
  EXPECT_EQ(planar.entry, "conv_vec");
}

TEST(Selftest, CompileErrorVariantFailsWithABuildLog) {
  const Problem p = make(kShapes[0], "zero", "sharpen3");
  const EvalResult r = evaluate_on(device(), p, "selftest_compile_error", Config{});
  EXPECT_EQ(to_string(r.status), std::string("compile_error"));
  EXPECT_FALSE(r.log.empty());
  EXPECT_NE(r.log.find("undeclared_accumulator"), std::string::npos) << r.log;
}

TEST(Selftest, WrongResultVariantIsCaught) {
  for (const char* filter : kFilters) {
    const Problem p = make(kShapes[1], "replicate", filter);
    const EvalResult r = evaluate_on(device(), p, "selftest_wrong_result", config({{"block_x", 8}, {"block_y", 8}}));
    EXPECT_EQ(to_string(r.status), std::string("wrong_result")) << filter << ": " << r.log;
  }
}

}  // namespace
}  // namespace pimg::cltest
