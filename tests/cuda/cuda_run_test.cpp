// On a machine with a CUDA GPU: every CUDA conv variant, over a rotating sample of its configurations,
// on the matrix {1ch, 3ch interleaved, 3ch planar} x {zero, valid, replicate} x {sharpen3, gaussian5} at
// 37x23, must equal the serial reference byte for byte through pimg::evaluate; NPP's rounding rule is
// identified against alternatives. Every test skips where the CUDA backend is unavailable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <string>
#include <vector>
#include <tuple>

#include "cuda_backend.hpp"
#include "cuda_fixture.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"
#include "pimg/residency.hpp"

namespace pimg::cudatest {
namespace {

const Backend& backend() {
  static const std::unique_ptr<Backend> b = make_cuda_backend();
  return *b;
}

// The first CUDA device, opened once for the whole process; null when CUDA is unavailable.
Device* device() {
  static const std::unique_ptr<Device> dev = []() -> std::unique_ptr<Device> {
    if (!backend().status().available) return nullptr;
    const auto devices = backend().devices();
    return devices.empty() ? nullptr : backend().open(devices.front());
  }();
  return dev.get();
}

#define REQUIRE_CUDA()                                                                     \
  do {                                                                                     \
    if (!device()) GTEST_SKIP() << "CUDA unavailable: " << backend().status().reason;      \
  } while (0)

// One evaluation with a single validated run (the output poisoned before it).
EvalResult evaluate_on(const Problem& p, const std::string& name, const Config& c) {
  const Family& family = conv_family();
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w, variant(name).validation_rule());
  MeasureSpec measure = MeasureSpec::fixed(0, 1, 10);
  EvalContext ctx{family, p, w, expected, *device(), measure};
  return evaluate(ctx, variant(name), c);
}

void expect_exact(const Problem& p, const std::string& name, const Config& c) {
  SCOPED_TRACE(name + " " + c.brief() + " on " + p.label());
  const EvalResult r = evaluate_on(p, name, c);
  EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
  EXPECT_EQ(r.validation.rfind("exact", 0), 0u) << r.validation;
}

using MatrixParam = std::tuple<const char*, int, int, int>;  // variant, shape, border, filter

class CudaMatrix : public ::testing::TestWithParam<MatrixParam> {};

// Two configurations per problem, rotating through the variant's sample so that over the 18 problems
// every configuration (hence every knob value) meets several layouts, borders and filters.
TEST_P(CudaMatrix, BitExactWithReference) {
  REQUIRE_CUDA();
  const auto& [name, shape, border, filter] = GetParam();
  const Problem p = make_problem(kShapes[shape], kBorders[border], kFilters[filter]);
  const std::vector<Config> configs = configs_for(name);
  const std::size_t index = static_cast<std::size_t>(shape * 6 + border * 2 + filter);
  for (std::size_t i = 0; i < 2; ++i) {
    const Config& c = configs[(index + i) % configs.size()];
    if (std::string(name) == "npp_filter" && std::string(kBorders[border]) == "zero") {
      const EvalResult r = evaluate_on(p, name, c);
      EXPECT_EQ(to_string(r.status), std::string("launch_error")) << "NPP has no zero border: " << r.log;
      continue;
    }
    expect_exact(p, name, c);
  }
}

std::string matrix_name(const ::testing::TestParamInfo<MatrixParam>& info) {
  const auto& [variant, shape, border, filter] = info.param;
  return std::string(variant) + "_" + kShapes[shape].name + "_" + kBorders[border] + "_" + kFilters[filter];
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaMatrix,
                         ::testing::Combine(::testing::Values("cuda_direct", "cuda_tiled", "cuda_texture",
                                                              "npp_filter"),
                                            ::testing::Values(0, 1, 2), ::testing::Values(0, 1, 2),
                                            ::testing::Values(0, 1)),
                         matrix_name);

// Validation on the device (kernels/check/check.cu, docs/measurement.md): the check kernels find what the
// host comparison finds, and an evaluation with a residency downloads nothing and uploads its inputs once.
TEST(CudaDeviceCheck, CheckKernelsFindWrongBytesFloatErrorsCanariesAndScribbles) {
  REQUIRE_CUDA();
  std::string why;
  auto checker = DeviceChecker::make(*device(), &why);
  ASSERT_TRUE(checker) << why;
  Device& d = *device();
  auto put = [&](const std::vector<std::uint8_t>& bytes, std::size_t extra, std::uint8_t poison) {
    auto b = d.alloc(bytes.size() + extra);
    d.fill(*b, poison);
    d.upload(*b, bytes);
    return b;
  };
  std::vector<std::uint8_t> ref(1000037);
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<std::uint8_t>(i * 7 + 3);
  std::vector<std::uint8_t> out = ref;
  out[500001] ^= 1;
  out[ref.size() - 1] ^= 2;
  auto dref = put(ref, 0, 0x5A);
  DeviceCheck c = checker->check(*put(out, kCanaryBytes, 0x5A), *dref, ref.size(), kCanaryBytes, DeviceCompare{}, 0x5A, {});
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.first, 500001u);
  EXPECT_EQ(c.canaries.at(0).bad, 0u);
  auto over = put(ref, kCanaryBytes, 0xA5);
  std::vector<std::uint8_t> past(ref);
  past.push_back(0x11);  // the first canary byte overwritten
  d.upload(*over, past);
  c = checker->check(*over, *dref, ref.size(), kCanaryBytes, DeviceCompare{}, 0xA5, {});
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_EQ(c.canaries.at(0).bad, 1u);
  EXPECT_EQ(c.canaries.at(0).first, 0u);
  // Float lanes, the T1 rule: relative 1e-5, NaN on one side, a lane never written (0xA5 bytes).
  std::vector<float> fr{1.0f, 2.0f, 3.0f, 4.0f, 5.0f}, fo{1.0f + 5e-6f, 2.0f, 3.0f * (1 + 3e-5f), std::nanf(""), 5.0f};
  std::uint32_t poison_bits = 0xA5A5A5A5u;
  std::memcpy(&fo[4], &poison_bits, 4);
  auto as_bytes = [](const std::vector<float>& v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  DeviceCompare f32;
  f32.kind = DeviceCompare::Kind::f32;
  f32.tolerance = 1e-5;
  c = checker->check(*put(as_bytes(fo), kCanaryBytes, 0xA5), *put(as_bytes(fr), 0, 0), 20, kCanaryBytes, f32, 0xA5, {});
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_EQ(c.first, 2u);
  EXPECT_GT(c.worst, 4e-6);
  const std::uint32_t sum = checker->checksum(*dref, ref.size());
  std::vector<std::uint8_t> changed = ref;
  changed[777777] ^= 0x80;
  d.upload(*dref, changed);
  EXPECT_NE(checker->checksum(*dref, ref.size()), sum);
}

TEST(CudaDeviceCheck, EvaluationsValidateOnTheDeviceAndShareTheirInputs) {
  REQUIRE_CUDA();
  const Problem p = make_problem(kShapes[1], "replicate", "gaussian5", 1031, 677);
  const Family& family = conv_family();
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w);
  DeviceResidency resident(*device());
  for (int k = 0; k < 2; ++k) {
    EvalContext ctx{family, p, w, expected, *device(), MeasureSpec::fixed(1, 5, 10)};
    ctx.resident = &resident;
    const EvalResult r = evaluate(ctx, variant("cuda_direct"), Config{});
    ASSERT_EQ(to_string(r.status), std::string("ok")) << r.log;
    EXPECT_EQ(r.validation, "exact");
    std::map<std::string, double> m;
    for (const Metric& x : r.metrics)
      if (x.seq == -1) m[x.name] = x.value;
    EXPECT_EQ(m["time.runs"], 6);
    EXPECT_EQ(m["time.downloads"], 0) << "a correct output is not downloaded";
    EXPECT_EQ(m["transfer.h2d_shared"], k) << "the second configuration uses the inputs the first uploaded";
  }
}

TEST(CudaRun, DefaultConfigurationsAreExactOnLargerOddImages) {
  REQUIRE_CUDA();
  for (int shape : {1, 2}) {
    const Problem p = make_problem(kShapes[shape], "replicate", "gaussian5", 131, 67);
    for (const char* v : {"cuda_direct", "cuda_tiled", "cuda_texture", "cuda_vec", "npp_filter"})
      expect_exact(p, v, Config{});
  }
}

// Seed 003's batch in one launch on the GPU: cuda_direct with the image in the grid's z, the channel in the
// block's z (channel_z 1, the seed's launch) or not, every image validated exactly (on the device, and on the
// host where the output differs); the seed's own 20 images of 4096x2304 once.
TEST(CudaRun, BatchOfImagesInOneLaunchIsExactInEveryImage) {
  REQUIRE_CUDA();
  for (int shape : {0, 1, 2})
    for (const char* border : {"zero", "valid", "replicate"}) {
      const Problem p = conv_family().make_problem(
          131, 67, kShapes[shape].channels,
          {{"layout", kShapes[shape].layout}, {"border", border}, {"filter", "gaussian5"}, {"batch", "5"}});
      for (std::int64_t channel_z : {0, 1}) {
        Config c = config({{"block_x", 32}, {"block_y", 4}, {"filter_mem", "private"}, {"arith", "mul"}});
        c.set("channel_z", channel_z);
        expect_exact(p, "cuda_direct", c);
        c.set("filter_mem", std::string("global"));
        c.set("arith", std::string("lut"));
        c.set("items_x", std::int64_t{2});
        expect_exact(p, "cuda_direct", c);
      }
    }
  const Problem seed = conv_family().make_problem(4096, 2304, 3, {{"layout", "planar"}, {"filter", "gaussian5"},
                                                                  {"border", "zero"}, {"batch", "20"}});
  expect_exact(seed, "cuda_direct",
               config({{"block_x", 32}, {"block_y", 4}, {"filter_mem", "private"}, {"unroll", 1}, {"channel_z", 1}}));
}

// Rows of 256 pixels are 16-byte aligned, so the wide kernel takes its vector loads and stores inside
// the image and byte access only at the edges (and everywhere for the valid border's 252-pixel rows).
TEST(CudaRun, WideKernelIsExactOnAlignedRows) {
  REQUIRE_CUDA();
  for (const Shape& shape : kShapes)
    for (const char* border : kBorders)
      for (const char* filter : kFilters) {
        const Problem p = make_problem(shape, border, filter, 256, 40);
        for (const Config& c : direct_configs())
          if (c.integer("wide") == 1) expect_exact(p, "cuda_direct", c);
      }
}

// cuda_vec over the whole matrix, with vec 4/8/16 and rows 1/4/8/16 rotating: at 37 wide every thread takes
// the checked path; 256-pixel rows are vector-aligned, so interior threads take the fast path (the valid
// border's 254/252-byte rows fall back except for vec 4 with gaussian5); 260 wide makes the valid gaussian5
// output 256 pixels, aligned for every vec; 23, 40 and 41 rows leave partial row groups.
std::vector<Config> run_vec_configs() {
  return {
      config({{"block_x", 32}, {"block_y", 4}, {"vec", 4}, {"rows", 16}}),
      config({{"block_x", 64}, {"block_y", 2}, {"vec", 8}, {"rows", 1}, {"launch_bounds", 2}, {"host_mem", "pinned"}}),
      config({{"block_x", 128}, {"block_y", 1}, {"vec", 16}, {"rows", 8}}),
      config({{"block_x", 32}, {"block_y", 2}, {"vec", 16}, {"rows", 16}, {"maxrregcount", 128}}),
      config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 4}, {"launch_bounds", 1}}),
      config({{"block_x", 16}, {"block_y", 4}, {"vec", 4}, {"rows", 3}}),
  };
}

TEST(CudaRun, VecKernelIsExactOnEveryLayoutBorderAndAlignment) {
  REQUIRE_CUDA();
  const std::pair<int, int> sizes[] = {{37, 23}, {256, 40}, {260, 41}};
  std::size_t index = 0;
  for (const auto& [width, height] : sizes)
    for (const Shape& shape : kShapes)
      for (const char* border : kBorders)
        for (const char* filter : kFilters) {
          const Problem p = make_problem(shape, border, filter, width, height);
          const std::vector<Config> configs = run_vec_configs();
          for (std::size_t i = 0; i < 3; ++i) expect_exact(p, "cuda_vec", configs[(index + i) % configs.size()]);
          // Neighbours through shuffles (warp-edge lanes load, lanes past the row only share), and the
          // separable passes of gaussian5 with and without them.
          const int vec = index % 2 ? 16 : 4;
          expect_exact(p, "cuda_vec", config({{"block_x", 32}, {"block_y", 2}, {"vec", vec}, {"rows", 4}, {"shfl", 1}}));
          if (std::string(filter) == "sharpen3")  // the K x K taps on biased 16-bit lanes
            expect_exact(p, "cuda_vec", config({{"block_x", 32}, {"block_y", 2}, {"vec", 4 << static_cast<int>(index % 3)},
                                                {"rows", 3 + static_cast<int>(index % 2) * 5}, {"simd", 1},
                                                {"shfl", static_cast<int>(index % 2)}}));
          if (std::string(filter) == "gaussian5") {
            expect_exact(p, "cuda_vec", config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 8}, {"separable", 1}}));
            expect_exact(p, "cuda_vec",
                         config({{"block_x", 32}, {"block_y", 4}, {"vec", vec}, {"rows", 3}, {"separable", 1}, {"shfl", 1}}));
          }
          ++index;
        }
}

// simd=1 (sharpen3's taps on biased 16-bit lanes, saturated by PRMT sign selectors) at odd sizes, where rows
// are not vector-aligned (1000x7: 1000 bytes a row, a multiple of 8 but not of 16; 17x3: every thread on the
// checked path), on the 8192x8192 problem it is tuned at (every thread but the edge ones on the fast path),
// and on a custom filter with a divisor of 4 (the lane shift) and 3 channels.
TEST(CudaRun, SimdVecKernelIsExactAtOddSizesAndAt8192) {
  REQUIRE_CUDA();
  const std::pair<int, int> sizes[] = {{1000, 7}, {17, 3}, {1024, 33}, {8192, 8192}};
  for (const auto& [width, height] : sizes)
    for (const char* border : kBorders) {
      if (width == 8192 && std::string(border) != "zero") continue;
      const Problem p = make_problem(kShapes[0], border, "sharpen3", width, height);
      for (int vec : {4, 8, 16})
        expect_exact(p, "cuda_vec", config({{"block_x", 64}, {"block_y", 2}, {"vec", vec}, {"rows", 8}, {"simd", 1}}));
      expect_exact(p, "cuda_vec",
                   config({{"block_x", 32}, {"block_y", 4}, {"vec", 16}, {"rows", 16}, {"simd", 1}, {"shfl", 1}}));
    }
  for (const Shape& shape : kShapes) {
    const Problem p = conv_family().make_problem(
        1000, 7, shape.channels,
        {{"layout", shape.layout}, {"border", "replicate"}, {"filter", "custom"}, {"weights", "-1,2,-1;2,9,2;-1,2,-1"},
         {"divisor", "4"}});
    for (int vec : {4, 16})
      expect_exact(p, "cuda_vec", config({{"block_x", 32}, {"block_y", 2}, {"vec", vec}, {"rows", 5}, {"simd", 1}}));
  }
}

// cuda_stream (column strips, halo words through shuffles, the warp's and the row's edge lanes by the border rule):
// rows of 1000 bytes (125 vectors of 8: the last warp's lanes past the row; 250 of 4), 200 (a second, partial warp)
// and 96 (one partial warp), a single row, strips longer than the image, shorter ones with a partial last strip,
// depths below, at and above K, both borders it takes; three interleaved channels with the taps and with the packed
// separable passes; planar planes with a custom filter (divisor 4, the lane shift); both 8192x8192 bar problems.
TEST(CudaRun, StreamKernelIsExactAtEveryEdgeOfRowsAndStrips) {
  REQUIRE_CUDA();
  const std::pair<int, int> sizes[] = {{1000, 7}, {200, 33}, {96, 1}};
  const Config configs[] = {
      config({{"block_x", 32}, {"block_y", 4}, {"rows", 1}, {"depth", 1}}),
      config({{"block_x", 128}, {"block_y", 1}, {"rows", 3}, {"depth", 2}}),
      config({{"block_x", 64}, {"block_y", 2}, {"rows", 16}, {"depth", 5}}),
      config({{"block_x", 32}, {"block_y", 1}, {"rows", 64}, {"depth", 8}, {"launch_bounds", 4}}),
      config({{"block_x", 32}, {"block_y", 2}, {"rows", 5}, {"depth", 3}}),
  };
  std::size_t index = 0;
  for (const auto& [width, height] : sizes)
    for (const char* border : {"zero", "replicate"})
      for (int vec : {4, 8, 16}) {
        if (width % vec != 0) continue;
        for (std::size_t i = 0; i < 2; ++i, ++index) {
          Config c = configs[index % std::size(configs)];
          c.set("vec", std::int64_t{vec});
          expect_exact(make_problem(kShapes[0], border, "sharpen3", width, height), "cuda_stream", c);
        }
      }
  // Three interleaved channels: 96 and 200 pixels are 288 and 600 bytes a row (16-byte vectors fit the first
  // only); sharpen3's taps (a 3-byte halo) and gaussian5's packed separable passes (6 bytes, two halo words).
  for (const auto& [width, height] : {std::pair<int, int>{96, 9}, std::pair<int, int>{200, 33}})
    for (const char* border : {"zero", "replicate"})
      for (int vec : {4, 8, 16}) {
        if ((width * 3) % vec != 0) continue;
        Config c = configs[index++ % std::size(configs)];
        c.set("vec", std::int64_t{vec});
        expect_exact(make_problem(kShapes[1], border, "sharpen3", width, height), "cuda_stream", c);
        if (vec == 4) continue;  // gaussian5's halo is wider than 4 bytes
        c.set("separable", std::int64_t{1});
        expect_exact(make_problem(kShapes[1], border, "gaussian5", width, height), "cuda_stream", c);
      }
  const Problem planar = conv_family().make_problem(
      200, 21, 3,
      {{"layout", "planar"}, {"border", "zero"}, {"filter", "custom"}, {"weights", "-1,2,-1;2,9,2;-1,2,-1"},
       {"divisor", "4"}});
  expect_exact(planar, "cuda_stream", config({{"block_x", 32}, {"block_y", 4}, {"vec", 8}, {"rows", 4}, {"depth", 3}}));
  expect_exact(planar, "cuda_stream", config({{"block_x", 64}, {"block_y", 1}, {"vec", 4}, {"rows", 16}, {"depth", 6}}));
  expect_exact(make_problem(kShapes[0], "replicate", "sharpen3", 8192, 8192), "cuda_stream",
               config({{"block_x", 128}, {"block_y", 1}, {"vec", 8}, {"rows", 12}, {"depth", 5}}));
  expect_exact(make_problem(kShapes[1], "replicate", "gaussian5", 8192, 8192), "cuda_stream",
               config({{"block_x", 128}, {"block_y", 1}, {"vec", 16}, {"rows", 16}, {"depth", 4}, {"separable", 1}}));
}

// cuda_mma (the taps on the tensor cores) over the matrix at widths where every tile takes the checked path
// (37), where interior tiles are fast and the row's end is a partial tile (300 = 2 x 128 + 44 bytes, and 900 on
// 3 channels), at rows of 1,000 bytes (8 tiles minus 24 bytes), and at 1040 (rows of 16-byte multiples: stage 1's
// tiles go through shared memory, the row's last 16 or 48 bytes a partial tile); 23, 41 and 7 rows leave partial
// row groups; stage 1 with no rows ahead, with two, and with more than the group's 3 or 5 input rows (the tuner
// found 8 ahead of 6 rows wrong before the fix), over 1, 2 and 4 tiles. Then the box filter (a divisor of 9: a
// division, not a shift), a custom filter with negative weights and a divisor of 4, and both bar problems at
// 8192x8192.
TEST(CudaRun, MmaKernelIsExactOnEveryLayoutBorderAndAlignment) {
  REQUIRE_CUDA();
  const std::vector<Config> configs = {
      config({{"warps", 4}, {"rows", 8}, {"tiles", 1}}),
      config({{"warps", 1}, {"rows", 1}, {"tiles", 2}, {"ahead", 1}}),
      config({{"warps", 2}, {"rows", 5}, {"tiles", 4}, {"ahead", 3}}),
      config({{"warps", 8}, {"rows", 16}, {"tiles", 1}, {"ahead", 20}, {"launch_bounds", 1}}),
      config({{"warps", 2}, {"rows", 3}, {"tiles", 1}, {"ahead", 0}, {"stage", 1}}),
      config({{"warps", 4}, {"rows", 8}, {"tiles", 4}, {"ahead", 2}, {"stage", 1}}),
      config({{"warps", 2}, {"rows", 1}, {"tiles", 2}, {"ahead", 6}, {"stage", 1}}),  // more rows ahead than it has
  };
  const std::pair<int, int> sizes[] = {{37, 23}, {300, 41}, {1000, 7}, {1040, 33}};
  std::size_t index = 0;
  for (const auto& [width, height] : sizes)
    for (const Shape& shape : kShapes)
      for (const char* border : kBorders) {
        for (const char* filter : kFilters) {
          const Problem p = make_problem(shape, border, filter, width, height);
          for (std::size_t i = 0; i < 2; ++i) expect_exact(p, "cuda_mma", configs[(index + i) % configs.size()]);
          ++index;
        }
        const Problem box = conv_family().make_problem(width, height, shape.channels,
                                                       {{"layout", shape.layout}, {"border", border}, {"filter", "box3"}});
        expect_exact(box, "cuda_mma", configs[index % configs.size()]);
        const Problem custom = conv_family().make_problem(
            width, height, shape.channels,
            {{"layout", shape.layout}, {"border", border}, {"filter", "custom"}, {"weights", "-1,2,-1;2,9,-7;-1,2,-1"},
             {"divisor", "4"}});
        expect_exact(custom, "cuda_mma", configs[(index + 1) % configs.size()]);
      }
  expect_exact(make_problem(kShapes[0], "replicate", "sharpen3", 8192, 8192), "cuda_mma", configs[0]);
  expect_exact(make_problem(kShapes[1], "replicate", "gaussian5", 8192, 8192), "cuda_mma", configs[3]);
  const Config staged = config({{"warps", 4}, {"rows", 16}, {"tiles", 1}, {"ahead", 6}, {"stage", 1}});
  expect_exact(make_problem(kShapes[0], "zero", "sharpen3", 8192, 8192), "cuda_mma", staged);
  expect_exact(make_problem(kShapes[1], "replicate", "gaussian5", 8192, 8192), "cuda_mma", staged);
}

TEST(CudaRun, CopyKernelCopiesEveryByte) {
  REQUIRE_CUDA();
  // The ceiling is the best of cuMemcpyDtoDAsync and the copy kernel at several geometries, each checked
  // byte for byte, timed with the L2 emptied by the read sweep and the launches held behind the spin kernel.
  const auto ceiling = measure_ceiling(backend(), *device(), (1u << 20) + 5, 3, TimingMethod{});
  ASSERT_TRUE(ceiling.has_value());
  EXPECT_GT(ceiling->gbs, 0.0);
  EXPECT_EQ(ceiling->method, "cuda-events spin cold-l2-read");
  const auto call = measure_ceiling(backend(), *device(), (1u << 20) + 5, 3, TimingMethod{false, false});
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->method, "cuda-events call hot");
}

TEST(CudaRun, EveryCopyPlanCopiesEveryByte) {
  REQUIRE_CUDA();
  // measure_ceiling() skips a plan whose copy is wrong; here each plan of whole rows (the 2-D ones too)
  // must copy every byte itself.
  const std::size_t bytes = 1u << 20;
  const auto copy = backend().copy_kernel(bytes);
  ASSERT_TRUE(copy.has_value());
  auto in = device()->alloc(bytes);
  auto out = device()->alloc(bytes);
  std::vector<std::uint8_t> pattern(bytes), check(bytes);
  for (std::size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
  device()->upload(*in, pattern);
  std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
  int rows_plans = 0, bulk_plans = 0;
  const bool hopper = device()->info().limits.at("compute_capability") >= 90;
  for (const LaunchPlan& p : copy->more) {
    const bool bulk = p.entry.rfind("copy_bulk", 0) == 0;
    const auto program = device()->compile(copy->source, p).program;
    if (bulk && !hopper) {  // the bulk-copy engine's entries exist from sm_90 on
      EXPECT_FALSE(program) << p.entry;
      continue;
    }
    ASSERT_TRUE(program) << p.entry;
    bulk_plans += bulk;
    device()->fill(*out, 0);
    ASSERT_TRUE(device()->launch(*program, p, buffers).ok) << p.entry;
    device()->download(*out, check);
    EXPECT_TRUE(check == pattern) << p.entry << " " << p.global[0] << "x" << p.global[1] << " / " << p.local[0] << "x"
                                  << p.local[1];
    rows_plans += p.entry.rfind("copy_rows", 0) == 0;
  }
  EXPECT_EQ(rows_plans, 36);
  if (hopper) EXPECT_GT(bulk_plans, 0);
}

// Each read plan's block sums add up to the input's 32-bit words, one that reads a vector fewer's do not, and the
// read ceiling counts the bytes read once (kernels/copy/read.cu).
TEST(CudaRun, EveryReadPlanSumsEveryVector) {
  REQUIRE_CUDA();
  const std::size_t bytes = 1u << 20;
  const auto read = backend().read_kernel(bytes);
  ASSERT_TRUE(read.has_value());
  auto in = device()->alloc(bytes);
  auto out = device()->alloc(bytes);
  std::vector<std::uint8_t> pattern(bytes), check(bytes);
  for (std::size_t i = 0; i < bytes; ++i) pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
  device()->upload(*in, pattern);
  const auto sum = [](const std::vector<std::uint8_t>& b) { return word_sum(b); };
  std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
  std::vector<LaunchPlan> plans{read->plan};
  plans.insert(plans.end(), read->more.begin(), read->more.end());
  LaunchPlan short_by_one = read->plan;
  short_by_one.args.at(2).i -= 1;
  plans.push_back(short_by_one);
  const bool hopper = device()->info().limits.at("compute_capability") >= 90;
  int bulk_plans = 0;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const LaunchPlan& p = plans[k];
    const bool bulk = p.entry.find("_bulk_") != std::string::npos;
    const auto program = device()->compile(read->source, p).program;
    if (bulk && !hopper) {  // the bulk-copy engine's entries exist from sm_90 on
      EXPECT_FALSE(program) << p.entry;
      continue;
    }
    ASSERT_TRUE(program) << p.entry;
    bulk_plans += bulk;
    device()->fill(*out, 0);
    ASSERT_TRUE(device()->launch(*program, p, buffers).ok) << p.entry;
    device()->download(*out, check);
    EXPECT_EQ(sum(check) == sum(pattern), k + 1 < plans.size()) << p.entry << " " << p.global[0] << " / " << p.local[0];
  }
  if (hopper)
    EXPECT_EQ(bulk_plans, std::count_if(read->more.begin(), read->more.end(), [](const LaunchPlan& p) {
                return p.entry.find("_bulk_") != std::string::npos;
              }));
  const auto ceiling = measure_ceiling(backend(), *device(), 64u << 20, 5, TimingMethod{}, CeilingKind::read);
  ASSERT_TRUE(ceiling.has_value());
  EXPECT_EQ(ceiling->how.rfind("read_", 0), 0u) << ceiling->how;
  EXPECT_GT(ceiling->gbs, 0);
  std::printf("read ceiling at 64 MiB: %.1f GB/s (%s, %s)\n", ceiling->gbs, ceiling->how.c_str(), ceiling->method.c_str());
}

// The conv reference with the division's rounding as a parameter: NPP's output is compared with each
// rule to say which one NPP follows.
using Rounding = std::function<int(int acc, int divisor)>;

std::vector<std::uint8_t> reference_with(const conv::ConvSpec& s, const std::uint8_t* in, const Rounding& round) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(s.out_width) * s.out_height * s.channels);
  const int r = s.k / 2;
  auto index = [&](int x, int y, int c, int w, int h) {
    return s.planar ? (static_cast<std::size_t>(c) * h + y) * w + x : (static_cast<std::size_t>(y) * w + x) * s.channels + c;
  };
  for (int c = 0; c < s.channels; ++c)
    for (int oy = 0; oy < s.out_height; ++oy)
      for (int ox = 0; ox < s.out_width; ++ox) {
        const int cx = s.border == 1 ? ox + r : ox, cy = s.border == 1 ? oy + r : oy;
        int acc = 0;
        for (int ky = 0; ky < s.k; ++ky)
          for (int kx = 0; kx < s.k; ++kx) {
            int x = cx + kx - r, y = cy + ky - r;
            if (s.border == 0 && (x < 0 || y < 0 || x >= s.width || y >= s.height)) continue;
            x = std::clamp(x, 0, s.width - 1);
            y = std::clamp(y, 0, s.height - 1);
            acc += s.weights[ky * s.k + kx] * in[index(x, y, c, s.width, s.height)];
          }
        out[index(ox, oy, c, s.out_width, s.out_height)] =
            static_cast<std::uint8_t>(std::clamp(round(acc, s.divisor), 0, 255));
      }
  return out;
}

std::vector<std::uint8_t> run_npp(const Problem& p, const Workload& w) {
  Device& dev = *device();
  const LaunchPlan plan = plan_for(variant("npp_filter"), p, w, Config{}, dev.info());
  const KernelSource source = native_source(*variant("npp_filter").native());
  const CompileResult compiled = dev.compile(source, plan);
  if (!compiled.program) throw std::runtime_error("NPP program: " + compiled.log);
  auto in = dev.alloc(w.input("in").bytes.size());
  dev.upload(*in, w.input("in").bytes);
  auto out = dev.alloc(w.output_bytes);
  dev.fill(*out, kPoisonValues[0]);
  const LaunchResult l = dev.launch(*compiled.program, plan, {{"in", in.get()}, {"out", out.get()}});
  if (!l.ok) throw std::runtime_error("NPP launch: " + l.error);
  std::vector<std::uint8_t> result(w.output_bytes);
  dev.download(*out, result);
  return result;
}

// Which rounding NPP's FilterBorder applies to the divisor; npp_filter declares the rule it found
// (validation_rule "truncate": toward zero), and this keeps that declaration honest.
TEST(CudaRun, NppRoundingRuleMatchesItsDeclaredRule) {
  REQUIRE_CUDA();
  const std::vector<std::pair<std::string, Rounding>> rules = {
      {"half away from zero (ours)", [](int a, int d) { return a >= 0 ? (a + d / 2) / d : -((-a + d / 2) / d); }},
      {"toward zero (truncation)", [](int a, int d) { return a / d; }},
      {"half to even",
       [](int a, int d) {
         const int q = a >= 0 ? a / d : -((-a) / d), rem = a - q * d;
         if (2 * std::abs(rem) > d || (2 * std::abs(rem) == d && q % 2 != 0)) return q + (a >= 0 ? 1 : -1);
         return q;
       }},
  };
  for (const char* filter : kFilters)
    for (int shape : {0, 1}) {
      const Problem p = make_problem(kShapes[shape], "replicate", filter, 64, 48);
      const Workload w = conv_family().make_workload(p);
      const std::vector<std::uint8_t> npp = run_npp(p, w);
      const conv::ConvSpec s = conv::spec_of(p);
      std::string matches;
      for (const auto& [rule, round] : rules)
        if (reference_with(s, w.input("in").bytes.data(), round) == npp) matches += (matches.empty() ? "" : ", ") + rule;
      std::printf("NPP FilterBorder on %s rounds like: %s\n", p.label().c_str(), matches.empty() ? "none of the rules" : matches.c_str());
      EXPECT_NE(matches.find("toward zero (truncation)"), std::string::npos)
          << "NPP on " << p.label() << " rounds like: " << (matches.empty() ? "none of the rules" : matches);
      EXPECT_EQ(variant("npp_filter").validation_rule(), "truncate");
    }
}

}  // namespace
}  // namespace pimg::cudatest
