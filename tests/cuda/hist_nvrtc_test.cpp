// CI without a GPU: the hist and histeq CUDA kernel sources compile through NVRTC for sm_90 over a
// sample of configurations covering each knob value, planned by the variants themselves for an
// H100-like device (1 and 3 channels), with the options the backend would use. No driver is needed.
#include <gtest/gtest.h>

#include "cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/registry.hpp"

namespace pimg::cudatest {
namespace {

DeviceInfo h100_like() {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = "NVIDIA H100 (test description)";
  d.compute_units = 132;
  d.local_mem_bytes = 49152;
  d.max_work_group_size = 1024;
  d.limits = {{"max_work_group_size", 1024}, {"max_threads_per_block", 1024}, {"local_mem_size", 49152},
              {"max_work_item_size_0", 1024}, {"compute_capability", 90}};
  return d;
}

Value i(std::int64_t v) { return v; }

// The built-in registry, with the hist and histeq families (the fixture's holds conv only).
const Registry& builtin() { return Registry::builtin(); }

void expect_compiles(const char* family, const char* name, const Problem& p, const Config& c) {
  const Variant* v = builtin().variant(family, name);
  ASSERT_NE(v, nullptr) << name;
  const Workload w = builtin().family(family)->make_workload(p);
  const LaunchPlan plan = v->plan(p, w, c, h100_like());
  const KernelSource* source = kernel_source(v->source());
  ASSERT_NE(source, nullptr) << v->source();
  const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
  EXPECT_TRUE(r.ok) << name << " " << c.brief() << " on " << p.label() << "\n" << r.log;
}

TEST(HistNvrtc, EveryKernelCompilesForSm90) {
  ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status();
  const std::vector<std::pair<const char*, Config>> configs = {
      {"cuda_global", config({{"block", i(256)}, {"items", i(1)}})},
      {"cuda_global", config({{"block", i(128)}, {"items", i(8)}})},
      {"cuda_packed", config({{"block", i(256)}, {"items", i(4)}})},
      {"cuda_shared", config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(16)}, {"items", i(2)}})},
      {"cuda_shared", config({{"block", i(512)}, {"copies", i(1)}, {"vec", i(4)}, {"items", i(1)}, {"groups", i(264)}})},
      {"cuda_shared", config({{"block", i(1024)}, {"copies", i(32)}, {"vec", i(16)}, {"items", i(4)}})},
      {"cuda_shared",
       config({{"block", i(256)}, {"copies", i(32)}, {"vec", i(16)}, {"items", i(2)}, {"layout", "interleaved"}})},
      {"cuda_shared",
       config({{"block", i(512)}, {"copies", i(16)}, {"vec", i(4)}, {"items", i(1)}, {"layout", "interleaved"}})},
      {"cuda_outpart", config({{"block", i(1024)}, {"bpg", i(32)}})},
      {"cuda_outpart", config({{"block", i(256)}, {"bpg", i(256)}})},
  };
  for (int channels : {1, 3}) {
    const Problem p = builtin().family("hist")->make_problem(67, 31, channels, {});
    for (const auto& [name, c] : configs) {
      if (channels == 3 && std::string(name) == "cuda_shared" && c.integer("copies") == 32) continue;  // 96 KiB
      expect_compiles("hist", name, p, c);
    }
  }
}

// 32 interleaved copies of 3 x 256 bins need 96 KiB of shared memory: refused when planned.
TEST(HistNvrtc, InterleavedCopiesBeyondSharedMemoryAreRefused) {
  const Problem p = builtin().family("hist")->make_problem(67, 31, 3, {});
  const Variant* v = builtin().variant("hist", "cuda_shared");
  ASSERT_NE(v, nullptr);
  const Workload w = builtin().family("hist")->make_workload(p);
  const Config c = config({{"block", i(1024)}, {"copies", i(32)}, {"layout", "interleaved"}});
  EXPECT_THROW(v->plan(p, w, c, h100_like()), PlanError);
}

TEST(HisteqNvrtc, EveryPipelineCompilesForSm90) {
  ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status();
  const Problem p = builtin().family("histeq")->make_problem(67, 31, 1, {});
  const std::vector<std::pair<const char*, Config>> configs = {
      {"cuda_separate", config({{"cdf", "device"}, {"vec", i(16)}, {"map_vec", i(16)}, {"copies", i(8)}})},
      {"cuda_separate", config({{"cdf", "host"}, {"vec", i(4)}, {"map_vec", i(4)}, {"hist_block", i(512)}})},
      {"cuda_fused", config({{"vec", i(16)}, {"map_vec", i(16)}, {"map_block", i(1024)}, {"copies", i(4)}})},
      {"cuda_fused", config({{"vec", i(4)}, {"map_vec", i(4)}, {"map_block", i(256)}})},
      {"cuda_separate", config({{"layout", "interleaved"}, {"copies", i(32)}, {"map_order", "reverse"}, {"vec", i(16)},
                                {"map_vec", i(16)}, {"hist_block", i(1024)}})},
      {"cuda_separate", config({{"layout", "interleaved"}, {"copies", i(16)}, {"map_order", "reverse"}, {"vec", i(4)},
                                {"map_vec", i(4)}, {"cdf", "host"}})},
      {"cuda_fused", config({{"layout", "interleaved"}, {"copies", i(32)}, {"map_order", "reverse"}, {"vec", i(16)},
                             {"map_vec", i(16)}, {"hist_block", i(1024)}})},
      {"cuda_fused", config({{"layout", "blocked"}, {"map_order", "reverse"}, {"vec", i(4)}, {"map_vec", i(4)}})},
  };
  for (const auto& [name, c] : configs) expect_compiles("histeq", name, p, c);
}

}  // namespace
}  // namespace pimg::cudatest
