// Issue 21's CUDA kernels through NVRTC for sm_90 on the CPU (CI's Debian libnvrtc, no toolkit needed): seed
// 002's scatter rotation (cuda_scatter's three kernels) and seed 003's pooling windows beyond 2x2
// (cuda_direct and cuda_tree with PIMG_WINDOW 3 and 4), seed 003's batch of images in one launch (conv's
// cuda_direct, grid z = image, block z = channel), each planned by its variant for an H100-like device.
// tests/cuda runs them on a GPU where there is one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "cuda/cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/errors.hpp"
#include "pimg/space.hpp"

namespace pimg::cudatest {
namespace {

void expect_compiles(const Problem& p, const std::string& name, const Config& c) {
  const Registry& reg = Registry::builtin();
  const Variant* v = reg.variant(p.family, name);
  ASSERT_NE(v, nullptr) << p.family << "/" << name;
  const KernelSource* source = kernel_source(v->source());
  ASSERT_NE(source, nullptr) << v->source();
  const LaunchPlan plan = plan_for(*v, p, reg.family(p.family)->make_workload(p), c, sm90_device());
  const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
  EXPECT_TRUE(r.ok) << name << " " << c.brief() << " on " << p.label() << "\n" << r.log;
  EXPECT_FALSE(r.cubin.empty());
}

class SeedKernelsNvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string status = cuda::nvrtc_status();
    if (!status.empty()) GTEST_SKIP() << "no libnvrtc can be loaded here, nothing compiled: " << status;
  }
};

TEST_F(SeedKernelsNvrtc, ScatterRotationCompiles) {
  const Family& f = *Registry::builtin().family("rotate");
  for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}}) {
    const Problem p = f.make_problem(640, 480, channels, {{"layout", layout}, {"angle", "57.29578"}, {"fill", "3"}});
    expect_compiles(p, "cuda_scatter", config({{"block_x", 128}, {"block_y", 1}, {"items_x", 4}}));
  }
}

TEST_F(SeedKernelsNvrtc, MaxpoolWindowsCompile) {
  const Family& f = *Registry::builtin().family("maxpool");
  for (const auto& [window, k] : {std::pair{"3", 3}, std::pair{"4", 4}})
    for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}}) {
      const Problem p = f.make_problem(4096, 2304, channels, {{"layout", layout}, {"window", window}});
      expect_compiles(p, "cuda_direct", config({{"block_x", 64}, {"block_y", 4}, {"pixels", 2}}));
      expect_compiles(p, "cuda_tree", config({{"block_x", 8 * k}, {"block_y", 2 * k}}));
    }
}

TEST_F(SeedKernelsNvrtc, BatchedConvCompiles) {
  const Family& f = *Registry::builtin().family("conv");
  for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}}) {
    // A small frame: the kernel text does not depend on the size (the seed's 4096x2304 is planned and compiled
    // in SeedGpuSpacesPlanAndTheirCudaLaddersCompile), and 20 seed frames of random input take seconds to make.
    const Problem p = f.make_problem(256, 144, channels,
                                     {{"layout", layout}, {"filter", "gaussian5"}, {"border", "zero"}, {"batch", "20"}});
    for (const char* mem : {"global", "constant", "private"})
      for (std::int64_t channel_z : {0, 1}) {
        Config c = config({{"block_x", 32}, {"block_y", 4}, {"filter_mem", mem}, {"unroll", 1}, {"arith", "mul"}});
        c.set("channel_z", channel_z);
        expect_compiles(p, "cuda_direct", c);
      }
    expect_compiles(p, "cuda_direct", config({{"block_x", 32}, {"block_y", 8}, {"filter_mem", "global"}, {"unroll", 0},
                                              {"arith", "lut"}, {"channel_z", 1}}));
  }
  // The seed's launch: grid z = 20 images, block z = 3 channels.
  const Problem p = f.make_problem(256, 144, 3, {{"layout", "planar"}, {"filter", "gaussian5"}, {"batch", "20"}});
  const LaunchPlan plan = plan_for(*Registry::builtin().variant("conv", "cuda_direct"), p, f.make_workload(p),
                                   config({{"block_x", 32}, {"block_y", 4}, {"channel_z", 1}}), sm90_device());
  EXPECT_EQ(plan.dims, 3);
  EXPECT_EQ(plan.global[2] / plan.local[2], 20u);
  EXPECT_EQ(plan.local[2], 3u);
}

// Every spaces/seeds/*-gpu.yaml (the GPU run of the seeds, scripts/gpu-seeds.sh) loads, each CUDA variant plans
// on an H100-like description for at least one of its problems (a batch skips the one-image variants, as the
// runner does), and each CUDA ladder step plans wherever its variant runs and compiles for sm_90. A space
// reading ../shared data absent here is loaded where that data is (the GPU script's working directory).
TEST_F(SeedKernelsNvrtc, SeedGpuSpacesPlanAndTheirCudaLaddersCompile) {
  const Registry& reg = Registry::builtin();
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(PIMG_SOURCE_DIR);  // the spaces' data paths are relative to the repository root
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(PIMG_SOURCE_DIR) + "/spaces/seeds")) {
    const std::string name = e.path().filename().string();
    if (name.size() > 9 && name.compare(name.size() - 9, 9, "-gpu.yaml") == 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 11u);
  std::size_t compiled = 0;
  for (const auto& file : files) {
    SCOPED_TRACE(file.filename().string());
    Space space;
    try {
      space = load_space(file.string(), reg);
    } catch (const UsageError& e) {
      if (std::string(e.what()).find("../shared/") != std::string::npos) continue;  // data not here
      ADD_FAILURE() << e.what();
      continue;
    }
    const Family& family = *reg.family(space.family);
    std::vector<Workload> workloads;
    for (const Problem& p : space.problems) workloads.push_back(family.make_workload(p));
    std::map<std::string, std::set<std::size_t>> fits;  // CUDA variant -> problems it plans on
    for (const VariantSpace& vs : space.variants) {
      const Variant& v = *reg.variant(space.family, vs.variant);
      if (v.backend() != "cuda") continue;
      for (std::size_t p = 0; p < space.problems.size(); ++p)
        for (const Config& c : vs.enumerate(sm90_device())) {
          try {
            plan_for(v, space.problems[p], workloads[p], c, sm90_device());
            fits[vs.variant].insert(p);
            break;
          } catch (const PlanError&) {
          }
        }
      EXPECT_FALSE(fits[vs.variant].empty()) << vs.variant << " plans on none of the space's problems";
    }
    for (const LadderStep& step : space.ladder.steps) {
      const Variant& v = *reg.variant(space.family, step.variant);
      if (v.backend() != "cuda") continue;
      for (std::size_t p : fits[step.variant]) {
        SCOPED_TRACE(step.name + " on " + space.problems[p].label());
        LaunchPlan plan;
        ASSERT_NO_THROW(plan = plan_for(v, space.problems[p], workloads[p], step.config, sm90_device()));
        if (v.native()) continue;
        const KernelSource* source = kernel_source(v.source());
        ASSERT_NE(source, nullptr) << v.source();
        const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
        EXPECT_TRUE(r.ok) << r.log;
        ++compiled;
      }
    }
  }
  std::filesystem::current_path(before);
  EXPECT_GT(compiled, 10u);
}

}  // namespace
}  // namespace pimg::cudatest
