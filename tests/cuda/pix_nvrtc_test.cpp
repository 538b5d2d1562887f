// CI without a GPU: the CUDA kernels of bgr2rgba, flip and maxpool compile through NVRTC for sm_90 over
// samples of configurations in which every knob value appears, planned by the variants themselves for
// an H100-like device, on 1 and 3 channels, interleaved and planar, odd and 16-byte aligned sizes.
// Where a CUDA device is present, each configuration also runs there on the problem and on a 37x23
// version of it, and must equal the reference byte for byte (the output poisoned before each run).
#include <gtest/gtest.h>

#include "cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/space.hpp"
#include "pix_eval.hpp"

namespace pimg::cudatest {
namespace {

using pixtest::problem;

void expect_exact_on_gpu(const Problem& p, const std::string& name, const Config& c) {
  const std::map<std::string, std::string> attrs = p.attrs;
  for (const Problem& q : {p, pixtest::problem(p.family, 37, 23, p.channels, attrs)}) {
    const EvalResult r = pixtest::evaluate_variant(*gpu(), q, name, c);
    EXPECT_EQ(to_string(r.status), std::string("ok")) << name << " " << c.brief() << " on " << q.label() << "\n" << r.log;
    EXPECT_EQ(r.validation, "exact") << name << " " << c.brief() << " on " << q.label();
  }
}

void expect_compiles(const Problem& p, const std::string& name, const std::vector<Config>& configs) {
  const Variant* v = pixtest::registry().variant(p.family, name);
  ASSERT_NE(v, nullptr) << p.family << "/" << name;
  const KernelSource* source = kernel_source(v->source());
  ASSERT_NE(source, nullptr) << v->source();
  const Workload w = pixtest::registry().family(p.family)->make_workload(p);
  for (const Config& c : configs) {
    const LaunchPlan plan = plan_for(*v, p, w, c, sm90_device());
    const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
    EXPECT_TRUE(r.ok) << name << " " << c.brief() << " on " << p.label() << "\n" << r.log;
    EXPECT_FALSE(r.cubin.empty());
    if (gpu()) expect_exact_on_gpu(p, name, c);
  }
}

class PixNvrtc : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string status = cuda::nvrtc_status();
    ASSERT_TRUE(status.empty()) << "NVRTC must load where the CUDA backend is built: " << status;
  }
};

TEST_F(PixNvrtc, Bgr2RgbaKernelsCompile) {
  for (const auto& [w, h] : {std::pair{37, 23}, std::pair{8192, 8192}}) {
    const Problem p = problem("bgr2rgba", w, h, 3);
    expect_compiles(p, "cuda_grid",
                    {config({{"dims", 2}, {"block_x", 32}, {"block_y", 8}, {"pixels", 1}, {"temp", 0}}),
                     config({{"dims", 2}, {"block_x", 16}, {"block_y", 16}, {"pixels", 4}, {"temp", 1}}),
                     config({{"dims", 1}, {"block_x", 1024}, {"block_y", 1}, {"pixels", 2}, {"temp", 1}}),
                     config({{"dims", 1}, {"block_x", 64}, {"block_y", 1}, {"pixels", 8}, {"temp", 0}})});
    expect_compiles(p, "cuda_staged", {config({{"block_x", 256}, {"pixels", 4}}), config({{"block_x", 1024}, {"pixels", 2}})});
    expect_compiles(p, "cuda_vec16",
                    {config({{"block_x", 128}, {"groups", 1}}), config({{"block_x", 256}, {"groups", 4}}),
                     config({{"block_x", 1024}, {"groups", 1}, {"stage", 1}}),
                     config({{"block_x", 128}, {"groups", 2}, {"stage", 1}})});
  }
}

TEST_F(PixNvrtc, FlipAndMaxpoolKernelsCompile) {
  for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}}) {
    const Problem f = problem("flip", 8192, 8192, channels, {{"layout", layout}});
    expect_compiles(f, "cuda_flip",
                    {config({{"block_x", 128}, {"block_y", 1}, {"vec", 0}, {"per_thread", 2}}),
                     config({{"block_x", 64}, {"block_y", 4}, {"vec", 1}, {"per_thread", 1}}),
                     config({{"block_x", 128}, {"block_y", 2}, {"vec", 1}, {"per_thread", 4}}),
                     config({{"block_x", 512}, {"block_y", 1}, {"vec", 1}, {"per_thread", 4}}),  // no stage: no shared array
                     config({{"block_x", 256}, {"block_y", 2}, {"vec", 1}, {"per_thread", 1}, {"stage", 1}}),
                     config({{"block_x", 64}, {"block_y", 4}, {"vec", 1}, {"per_thread", 2}, {"stage", 1}})});
    expect_compiles(f, "cuda_flip_inplace",
                    {config({{"block_x", 128}, {"block_y", 2}, {"vec", 0}}), config({{"block_x", 256}, {"block_y", 1}, {"vec", 1}})});
    const Problem m = problem("maxpool", 8192, 8192, channels, {{"layout", layout}});
    expect_compiles(m, "cuda_direct", {config({{"block_x", 64}, {"block_y", 4}, {"pixels", 2}})});
    expect_compiles(m, "cuda_vec16",
                    {config({{"block_x", 64}, {"block_y", 2}, {"groups", 1}}),
                     config({{"block_x", 128}, {"block_y", 1}, {"groups", 4}})});
    expect_compiles(m, "cuda_tree", {config({{"block_x", 32}, {"block_y", 8}}), config({{"block_x", 64}, {"block_y", 16}})});
    if (channels == 3 && std::string(layout) == "interleaved")  // cuda_rgb plans 3-channel interleaved only
      for (const int size : {8192, 1000})
        expect_compiles(problem("maxpool", size, size - 7, 3), "cuda_rgb",
                        {config({{"block_x", 128}, {"block_y", 1}, {"units", 1}}),
                         config({{"block_x", 64}, {"block_y", 2}, {"units", 2}}),
                         config({{"block_x", 128}, {"block_y", 1}, {"units", 4}}),
                         config({{"block_x", 32}, {"block_y", 4}, {"units", 3}})});
  }
}

// Windows of 3 and 4 (seed 003: the tree pays off on larger windows): the direct kernel and the tree.
TEST_F(PixNvrtc, MaxpoolLargerWindowsCompile) {
  for (const auto& [window, k] : {std::pair{"3", 3}, std::pair{"4", 4}})
    for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "planar"}}) {
      const Problem m = problem("maxpool", 4096, 2304, channels, {{"layout", layout}, {"window", window}});
      expect_compiles(m, "cuda_direct", {config({{"block_x", 64}, {"block_y", 4}, {"pixels", 2}})});
      expect_compiles(m, "cuda_tree", {config({{"block_x", 8 * k}, {"block_y", 2 * k}})});
    }
}

// The NPP baselines through the library-call table, exact against the reference (GPU only).
TEST(PixNppOnGpu, SwapChannelsAndMirrorExact) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device";
  expect_exact_on_gpu(problem("bgr2rgba", 8192, 8192, 3), "npp_swap_channels", Config{});
  expect_exact_on_gpu(problem("bgr2rgba", 64, 16, 3, {{"alpha", "7"}}), "npp_swap_channels", Config{});
  for (const auto& [channels, layout] : {std::pair{1, "interleaved"}, std::pair{3, "interleaved"}, std::pair{3, "planar"}})
    expect_exact_on_gpu(problem("flip", 1000, 600, channels, {{"layout", layout}}), "npp_mirror", Config{});
}

TEST(PixGpuSpaces, LoadAgainstThisBuild) {
  for (const char* name : {"bgr2rgba-gpu.yaml", "flip-gpu.yaml", "maxpool-gpu.yaml"}) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(load_space(std::string(PIMG_SOURCE_DIR) + "/spaces/" + name, Registry::builtin()));
  }
}

}  // namespace
}  // namespace pimg::cudatest
