// Issue 21's CUDA kernels through NVRTC for sm_90 on the CPU (CI's Debian libnvrtc, no toolkit needed): seed
// 002's scatter rotation (cuda_scatter's three kernels) and seed 003's pooling windows beyond 2x2
// (cuda_direct and cuda_tree with PIMG_WINDOW 3 and 4), each planned by its variant for an H100-like device.
// tests/cuda runs them on a GPU where there is one.
#include <gtest/gtest.h>

#include "cuda/cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"

namespace pimg::cudatest {
namespace {

void expect_compiles(const Problem& p, const std::string& name, const Config& c) {
  const Registry& reg = Registry::builtin();
  const Variant* v = reg.variant(p.family, name);
  ASSERT_NE(v, nullptr) << p.family << "/" << name;
  const KernelSource* source = kernel_source(v->source());
  ASSERT_NE(source, nullptr) << v->source();
  const LaunchPlan plan = v->plan(p, reg.family(p.family)->make_workload(p), c, sm90_device());
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

}  // namespace
}  // namespace pimg::cudatest
