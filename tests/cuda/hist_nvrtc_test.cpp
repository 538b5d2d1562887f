// CI without a GPU: the hist and histeq CUDA kernel sources compile through NVRTC for sm_90 over a
// sample of configurations covering each knob value, planned by the variants themselves for an
// H100-like device (1 and 3 channels), with the options the backend would use. No driver is needed.
#include <gtest/gtest.h>

#include "cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/registry.hpp"
#include "pix_eval.hpp"

namespace pimg::cudatest {
namespace {

DeviceInfo h100_like() {
  return testcommon::h100_device("NVIDIA H100 (test description)",
                                 {{"max_work_group_size", 1024}, {"max_threads_per_block", 1024},
                                  {"local_mem_size", 49152}, {"max_work_item_size_0", 1024},
                                  {"compute_capability", 90}, {"shared_mem_per_block_optin", 232448}},
                                 132, 49152);
}

Value i(std::int64_t v) { return v; }

// The built-in registry, with the hist and histeq families (the fixture's holds conv only).
const Registry& builtin() { return Registry::builtin(); }

void expect_compiles(const char* family, const char* name, const Problem& p, const Config& c) {
  const Variant* v = builtin().variant(family, name);
  ASSERT_NE(v, nullptr) << name;
  const Workload w = builtin().family(family)->make_workload(p);
  const LaunchPlan plan = plan_for(*v, p, w, c, h100_like());
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
      {"cuda_shared", config({{"block", i(1024)}, {"copies", i(16)}, {"vec", i(16)}, {"items", i(2)},
                              {"layout", "interleaved"}, {"onepass", i(1)}})},
      {"cuda_shared", config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(4)}, {"items", i(1)}, {"onepass", i(1)}})},
      {"cuda_shared", config({{"block", i(1024)}, {"copies", i(32)}, {"vec", i(16)}, {"items", i(2)}, {"prefetch", i(1)},
                              {"layout", "interleaved"}})},
      {"cuda_shared", config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(4)}, {"items", i(4)}, {"prefetch", i(1)}})},
      {"cuda_shared", config({{"block", i(1024)}, {"copies", i(8)}, {"vec", i(16)}, {"onepass", i(1)}, {"bulk", i(16384)},
                              {"stages", i(3)}, {"layout", "interleaved"}})},
      {"cuda_shared", config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(16)}, {"onepass", i(1)}, {"bulk", i(4096)}})},
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
  // The portable kernels (the text of their OpenCL twins) count planar images too; cuda_shared refuses them.
  const Problem planar = builtin().family("hist")->make_problem(67, 31, 3, {{"layout", "planar"}});
  for (const auto& [name, c] : configs)
    if (std::string(name) != "cuda_shared") expect_compiles("hist", name, planar, c);
}

// 32 interleaved copies of 3 x 256 bins need 96 KiB of shared memory: refused when planned.
TEST(HistNvrtc, InterleavedCopiesBeyondSharedMemoryAreRefused) {
  const Problem p = builtin().family("hist")->make_problem(67, 31, 3, {});
  const Variant* v = builtin().variant("hist", "cuda_shared");
  ASSERT_NE(v, nullptr);
  const Workload w = builtin().family("hist")->make_workload(p);
  const Config c = config({{"block", i(1024)}, {"copies", i(32)}, {"layout", "interleaved"}});
  EXPECT_THROW(plan_for(*v, p, w, c, h100_like()), PlanError);
}

// onepass=1 is one launch with a scratch of the bins' accumulators, a ticket counter and the base value.
TEST(HistNvrtc, OnePassPlansOneLaunchWithItsScratch) {
  const Problem p = builtin().family("hist")->make_problem(67, 31, 3, {});
  const Variant* v = builtin().variant("hist", "cuda_shared");
  ASSERT_NE(v, nullptr);
  const Workload w = builtin().family("hist")->make_workload(p);
  const LaunchPlan one = plan_for(*v, p, w, config({{"onepass", i(1)}}), h100_like());
  EXPECT_EQ(one.entry, "hist_shared");
  EXPECT_TRUE(one.steps.empty());
  ASSERT_EQ(one.scratch.size(), 1u);
  EXPECT_EQ(one.scratch[0].bytes, 3u * 256 * 4 + 8);
  ASSERT_EQ(one.args.size(), 4u);
  const LaunchPlan two = plan_for(*v, p, w, config({{"onepass", i(0)}}), h100_like());
  EXPECT_EQ(two.entry, "hist_clear");
  EXPECT_EQ(two.steps.size(), 1u);
  EXPECT_THROW(plan_for(*v, p, w, config({{"onepass", i(2)}}), h100_like()), PlanError);
}

// On the GPU: onepass=1 exact through the evaluator (scratch and bins poisoned before each of two runs) at odd
// sizes, 1 and 3 channels, uniform and peaked input, one block and many, and at 8192x8192; then launched
// three times in a row on a scratch filled once with zeros, exact every time (the last block puts the
// scratch back to one value).
TEST(HistOnGpu, OnePassIsExactAndLeavesItsScratchUniform) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device";
  const Family& family = *builtin().family("hist");
  const std::vector<Config> configs = {
      config({{"block", i(1024)}, {"copies", i(32)}, {"vec", i(16)}, {"items", i(2)}, {"layout", "interleaved"},
              {"onepass", i(1)}}),
      config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(4)}, {"items", i(1)}, {"onepass", i(1)}}),
      config({{"block", i(512)}, {"copies", i(16)}, {"vec", i(16)}, {"items", i(4)}, {"groups", i(1)},
              {"onepass", i(1)}}),
  };
  const std::pair<int, int> sizes[] = {{1000, 7}, {17, 3}, {8192, 8192}};
  for (const auto& [width, height] : sizes)
    for (int channels : {1, 3})
      for (const char* dist : {"uniform", "peaked"}) {
        const Problem p = family.make_problem(width, height, channels, {{"dist", dist}});
        for (const Config& c : configs) {
          if (channels == 3 && c.integer("copies") == 32) continue;  // 96 KiB of shared memory
          const EvalResult r = pixtest::evaluate_variant(*gpu(), p, "cuda_shared", c);
          EXPECT_EQ(to_string(r.status), std::string("ok")) << c.brief() << " on " << p.label() << "\n" << r.log;
          EXPECT_EQ(r.validation.rfind("exact", 0), 0u) << c.brief() << " on " << p.label() << ": " << r.validation;
        }
      }

  const Problem p = family.make_problem(1000, 7, 1, {});
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w, "");
  const Variant* v = builtin().variant("hist", "cuda_shared");
  const LaunchPlan plan = plan_for(*v, p, w, configs[1], gpu()->info());
  const auto program = gpu()->compile(*kernel_source(v->source()), plan).program;
  ASSERT_TRUE(program);
  auto in = gpu()->alloc(w.input("in").bytes.size());
  auto out = gpu()->alloc(w.output_bytes);
  auto acc = gpu()->alloc(plan.scratch.at(0).bytes);
  gpu()->upload(*in, w.input("in").bytes);
  gpu()->fill(*acc, 0);
  const std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}, {"acc", acc.get()}};
  for (int run = 0; run < 3; ++run) {
    gpu()->fill(*out, 0xA5);
    ASSERT_TRUE(gpu()->launch(*program, plan, buffers).ok) << "run " << run;
    std::vector<std::uint8_t> bins(w.output_bytes);
    gpu()->download(*out, bins);
    EXPECT_TRUE(bins == expected) << "run " << run;
  }
}

// bulk (the bulk-copy ring) is refused where it cannot run: before sm_90, without 16-byte vectors or one launch, in
// chunks that are not 16-byte multiples, or with a ring beyond what a block may opt in to; otherwise the ring is the
// launch's dynamic shared memory.
TEST(HistNvrtc, BulkIsPlannedOnlyWhereItCanRun) {
  const Variant* v = builtin().variant("hist", "cuda_shared");
  const Problem p = builtin().family("hist")->make_problem(67, 31, 1, {});
  const Workload w = builtin().family("hist")->make_workload(p);
  const Config ok = config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(16)}, {"onepass", i(1)}, {"bulk", i(8192)},
                            {"stages", i(4)}});
  EXPECT_EQ(plan_for(*v, p, w, ok, h100_like()).shared_bytes, 8192u * 4);
  DeviceInfo ampere = h100_like();
  ampere.limits["compute_capability"] = 80;
  EXPECT_THROW(plan_for(*v, p, w, ok, ampere), PlanError);
  const auto with = [&](const char* name, Value value) {
    Config c = ok;
    c.set(name, value);
    return c;
  };
  EXPECT_THROW(plan_for(*v, p, w, with("vec", i(4)), h100_like()), PlanError);
  EXPECT_THROW(plan_for(*v, p, w, with("onepass", i(0)), h100_like()), PlanError);
  EXPECT_THROW(plan_for(*v, p, w, with("bulk", i(8200)), h100_like()), PlanError);
  Config big = ok;  // 8 x 32 KiB: past the 227 KiB a block may opt in to
  big.set("bulk", i(32768));
  big.set("stages", i(8));
  EXPECT_THROW(plan_for(*v, p, w, big, h100_like()), PlanError);
  const Problem rgb = builtin().family("hist")->make_problem(67, 31, 3, {});  // 48 KiB of sub-histograms and mbarriers
  EXPECT_THROW(plan_for(*v, rgb, builtin().family("hist")->make_workload(rgb), with("copies", i(16)), h100_like()), PlanError);
}

// prefetch 1 (the next ITEMS loads issued before the current ones are counted) and bulk (the input through a ring
// of chunks in shared memory) count every sample once: exact with one block (many chunks or loops per block), with
// a few, with the default grid, and with tails of fewer than ITEMS strides, a partial last chunk and a few bytes.
TEST(HistOnGpu, PrefetchAndBulkAreExact) {
  if (!gpu()) GTEST_SKIP() << "no CUDA device";
  const Family& family = *builtin().family("hist");
  std::vector<Config> configs;
  for (int groups : {1, 7, 0}) {
    for (int vec : {4, 16})
      for (int items : {1, 2, 4})
        configs.push_back(config({{"block", i(256)}, {"copies", i(8)}, {"vec", i(vec)}, {"items", i(items)},
                                  {"groups", i(groups)}, {"prefetch", i(1)}}));
    for (const auto& [block, bulk, stages] : {std::tuple{256, 4096, 2}, {1024, 16384, 3}, {512, 32768, 2}})
      configs.push_back(config({{"block", i(block)}, {"copies", i(8)}, {"vec", i(16)}, {"onepass", i(1)},
                                {"groups", i(groups)}, {"bulk", i(bulk)}, {"stages", i(stages)}}));
  }
  const std::pair<int, int> sizes[] = {{1000, 7}, {17, 3}, {4099, 1031}};
  for (const auto& [width, height] : sizes)
    for (int channels : {1, 3}) {
      const Problem p = family.make_problem(width, height, channels, {{"dist", "peaked"}});
      for (const Config& c : configs) {
        const EvalResult r = pixtest::evaluate_variant(*gpu(), p, "cuda_shared", c);
        EXPECT_EQ(to_string(r.status), std::string("ok")) << c.brief() << " on " << p.label() << "\n" << r.log;
        EXPECT_EQ(r.validation.rfind("exact", 0), 0u) << c.brief() << " on " << p.label() << ": " << r.validation;
      }
    }
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
