// CI without a GPU: kernels/rotate/rotate_cuda.cu compiles through NVRTC for sm_90 over a sample in which every
// knob value of cuda_direct and cuda_texture appears (blocks, items, spread, ldg, incr, pack, gather), for every shape and both
// interpolations, planned by the variant itself for an H100-like device; plus its plan checks and the GPU
// space file.
#include <gtest/gtest.h>

#include "common/h100.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/space.hpp"
#include "rotate/rotate_fixture.hpp"

namespace pimg::rottest {
namespace {

// What plans read of an H100 (compute capability 9.0).
DeviceInfo h100() {
  return testcommon::h100_device("NVIDIA H100 (rotate test description)",
                                 {{"max_threads_per_block", 1024}, {"max_work_item_size_0", 1024},
                                  {"max_work_item_size_1", 1024}, {"max_grid_size_1", 65535},
                                  {"compute_capability", 90}, {"image2d_max_width", 131072},
                                  {"image2d_max_height", 65536}});
}

// cuda_texture has no ldg knob.
std::vector<Config> cuda_configs(bool with_ldg) {
  auto c = [with_ldg](int bx, int by, int ix, int iy, int spread, int ldg, int incr, int pack) {
    Config out = config({{"block_x", bx}, {"block_y", by}, {"items_x", ix}, {"items_y", iy}, {"spread", spread},
                         {"incr", incr}, {"pack", pack}});
    if (with_ldg) out.set("ldg", ldg);
    return out;
  };
  return {c(32, 8, 1, 1, 0, 1, 1, 0), c(64, 4, 4, 2, 0, 1, 1, 1), c(32, 4, 16, 1, 0, 0, 0, 1),
          c(128, 2, 8, 4, 0, 1, 0, 1), c(32, 8, 2, 2, 1, 0, 1, 0), c(16, 16, 4, 1, 1, 1, 0, 0)};
}

TEST(RotateNvrtc, EveryConfigurationCompilesForSm90) {
  ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status();
  for (const char* name : {"cuda_direct", "cuda_texture"}) {
    const Variant& v = *Registry::builtin().variant("rotate", name);
    const KernelSource* source = kernel_source(v.source());
    ASSERT_NE(source, nullptr);
    for (const Shape& shape : kShapes)
      for (const char* interp : kInterps) {
        const Problem p = make_problem(shape, interp, "30", 256, 64);
        const Workload w = family().make_workload(p);
        for (const Config& c : cuda_configs(std::string(name) == "cuda_direct")) {
          const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan_for(v, p, w, c, h100()), 90));
          EXPECT_TRUE(r.ok) << name << " " << c.brief() << " on " << p.label() << "\n" << r.log;
          EXPECT_FALSE(r.cubin.empty());
        }
      }
  }
}

// gather=1 (whole 3-byte pixels from two aligned words): nearest on 3 interleaved channels only.
std::vector<Config> gather_configs() {
  return {config({{"block_x", 64}, {"block_y", 4}, {"items_x", 4}, {"items_y", 4}, {"pack", 1}, {"gather", 1}}),
          config({{"block_x", 128}, {"block_y", 2}, {"items_x", 16}, {"items_y", 1}, {"pack", 1}, {"gather", 1}}),
          config({{"block_x", 32}, {"block_y", 8}, {"items_x", 2}, {"items_y", 2}, {"spread", 1}, {"pack", 0},
                  {"incr", 0}, {"gather", 1}})};
}

TEST(RotateNvrtc, GatherCompilesForSm90AndIsRefusedElsewhere) {
  ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status();
  const Variant& v = *Registry::builtin().variant("rotate", "cuda_direct");
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr);
  const Problem p = make_problem(kShapes[1], "nearest", "30", 1000, 7);
  const Workload w = family().make_workload(p);
  for (const Config& c : gather_configs()) {
    const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan_for(v, p, w, c, h100()), 90));
    EXPECT_TRUE(r.ok) << c.brief() << "\n" << r.log;
  }
  for (const auto& [shape, interp] : {std::pair{0, "nearest"}, std::pair{2, "nearest"}, std::pair{1, "bilinear"}}) {
    const Problem q = make_problem(kShapes[shape], interp, "30", 64, 16);
    EXPECT_THROW(plan_for(v, q, family().make_workload(q), gather_configs()[0], h100()), PlanError) << q.label();
  }
}

// On the GPU: gather=1 exact at odd sizes (the last pixels of the buffer take the byte path), every angle of
// the matrix, and at 8192x8192 where it is tuned.
TEST(RotateOnGpu, GatherIsExactAtOddSizesAndAt8192) {
  const Backend* b = Registry::builtin().backend("cuda");
  if (!b || !b->status().available || b->devices().empty()) GTEST_SKIP() << "no CUDA device";
  static const std::unique_ptr<Device> dev = b->open(b->devices().front());
  const std::pair<int, int> sizes[] = {{1000, 7}, {17, 3}, {37, 23}, {8192, 8192}};
  for (const auto& [width, height] : sizes)
    for (const char* angle : kAngles) {
      if (width == 8192 && std::string(angle) != "30") continue;
      const Problem p = make_problem(kShapes[1], "nearest", angle, width, height);
      for (const Config& c : gather_configs()) {
        const EvalResult r = evaluate_on(*dev, p, "cuda_direct", c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << c.brief() << " on " << p.label() << "\n" << r.log;
        EXPECT_EQ(r.validation.substr(0, 5), "exact") << c.brief() << " on " << p.label() << ": " << r.validation;
      }
    }
}

// Seed 002's scatter: its three kernels compile for sm_90 on every shape; where a CUDA device is present they
// run there and must equal the rule "scatter" exactly.
TEST(RotateNvrtc, ScatterCompilesAndRunsExact) {
  ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status();
  const Variant& v = *Registry::builtin().variant("rotate", "cuda_scatter");
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr);
  const Backend* cuda = Registry::builtin().backend("cuda");
  std::unique_ptr<Device> gpu;
  if (cuda && cuda->status().available && !cuda->devices().empty()) gpu = cuda->open(cuda->devices().front());
  for (const Shape& shape : kShapes)
    for (const Config& c : {config({{"block_x", 32}, {"block_y", 8}, {"items_x", 1}}),
                            config({{"block_x", 128}, {"block_y", 2}, {"items_x", 4}})}) {
      const Problem p = make_problem(shape, "nearest", "57.29578", 640, 640);
      const cuda::NvrtcResult r =
          cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan_for(v, p, family().make_workload(p), c, h100()), 90));
      EXPECT_TRUE(r.ok) << c.brief() << " on " << p.label() << "\n" << r.log;
      if (!gpu) continue;
      const EvalResult e = evaluate_on(*gpu, p, "cuda_scatter", c);
      EXPECT_EQ(to_string(e.status), std::string("ok")) << p.label() << " " << c.brief() << ": " << e.log;
      EXPECT_EQ(e.validation, "exact (rule scatter)");
    }
}

TEST(RotateNvrtc, TexturePlanTakesTheInputAsAnImage) {
  const Variant& v = *Registry::builtin().variant("rotate", "cuda_texture");
  const Problem planar = make_problem(kShapes[2], "bilinear", "30", 100, 30);
  const LaunchPlan plan = plan_for(v, planar, family().make_workload(planar), Config{}, h100());
  ASSERT_EQ(plan.args.size(), 4u);
  EXPECT_EQ(plan.args[0].kind, ArgKind::Image2D);
  EXPECT_EQ(plan.args[0].image_width, 100);
  EXPECT_EQ(plan.args[0].image_height, 90);  // three planes stacked
  const Problem wide = make_problem(kShapes[1], "nearest", "30", 9000, 16);
  DeviceInfo small = h100();
  small.limits["image2d_max_width"] = 16384;  // 27000 texels of interleaved bytes do not fit
  EXPECT_THROW(plan_for(v, wide, family().make_workload(wide), Config{}, small), PlanError);
}

TEST(RotateNvrtc, PlanGeometryAndRefusals) {
  const Variant& v = *Registry::builtin().variant("rotate", "cuda_direct");
  const Problem p = make_problem(kShapes[1], "nearest", "30", 100, 30);
  const Workload w = family().make_workload(p);
  const LaunchPlan plan =
      plan_for(v, p, w, config({{"block_x", 8}, {"block_y", 2}, {"items_x", 4}, {"items_y", 4}, {"pack", 1}}), h100());
  EXPECT_EQ(plan.entry, "rotate_cuda");
  EXPECT_EQ(plan.global[0], 32u);  // ceil(100 / 4) = 25, rounded up to 8
  EXPECT_EQ(plan.global[1], 8u);   // ceil(30 / 4) = 8
  ASSERT_EQ(plan.args.size(), 4u);
  EXPECT_THROW(plan_for(v, p, w, config({{"block_x", 64}, {"block_y", 32}}), h100()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"spread", 1}, {"pack", 1}}), h100()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"items_x", 65}}), h100()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"ldg", 2}}), h100()), PlanError);
  const Problem tall = make_problem(kShapes[0], "nearest", "30", 16, 9000);
  EXPECT_THROW(plan_for(v, tall, family().make_workload(tall), config({{"block_y", 1}, {"items_y", 1}, {"pack", 0}}),
                      DeviceInfo{.limits = {{"max_grid_size_1", 8000}}}),
               PlanError);
}

TEST(RotateNvrtc, GpuSpaceLoads) {
  EXPECT_NO_THROW(load_space(std::string(PIMG_SOURCE_DIR) + "/spaces/rotate-gpu.yaml", Registry::builtin()));
}

}  // namespace
}  // namespace pimg::rottest
