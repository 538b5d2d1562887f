// CI without a GPU: kernels/semblance/semblance.cu compiles through NVRTC for sm_90 over configurations
// covering every knob value of cuda_grid and cuda_argmax (mappings, shapes, points per item, geometry
// from the host or the headers, inlining, interpolation, constant memory, the shared-memory window,
// __ldg, launch bounds, the arg-max reduction), planned by the variants for an H100-like device at the
// seed's full 20^5 grid. Plans that cannot run there are PlanErrors.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/h100.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

DeviceInfo h100() {
  return testcommon::h100_device("NVIDIA H100 (test description)",
                                 {{"max_work_group_size", 1024}, {"max_constant_buffer_size", 65536},
                                  {"compute_capability", 90}},
                                 0, 49152);
}

struct Seed {
  Problem problem = family().make_problem(116, 2502, 1, {{"data", "synthetic"}, {"params", "param1"}, {"grid", "20"}});
  Workload workload = family().make_workload(problem);
};

const Seed& seed() {
  static const Seed s;
  return s;
}

void expect_compiles(const std::string& name, const Config& c) {
  const Variant& v = variant(name);
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr);
  const LaunchPlan plan = plan_for(v, seed().problem, seed().workload, c, h100());
  const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
  EXPECT_TRUE(r.ok) << name << " " << c.brief() << "\n" << r.log;
  EXPECT_FALSE(r.cubin.empty());
}

class SemblanceNvrtc : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cuda::nvrtc_status().empty()) << cuda::nvrtc_status(); }
};

TEST_F(SemblanceNvrtc, EveryKnobValueCompilesForSm90) {
  const std::vector<Config> grid = {
      config({{"dims", 1}, {"block_x", 256}, {"ppi", 1}, {"precompute", "host"}, {"inline", 1}, {"interp", "seed"},
              {"geom_mem", "global"}, {"window", "private"}, {"ldg", 0}, {"launch_bounds", 0}}),
      config({{"dims", 2}, {"block_x", 32}, {"block_y", 4}, {"ppi", 4}, {"precompute", "kernel"}, {"inline", 0},
              {"interp", "simplified"}, {"geom_mem", "constant"}, {"window", "local"}, {"ldg", 1}, {"launch_bounds", 2}}),
      config({{"dims", 3}, {"block_x", 4}, {"block_y", 4}, {"block_z", 4}, {"ppi", 20}, {"precompute", "host"},
              {"inline", 1}, {"interp", "simplified"}, {"geom_mem", "constant"}, {"window", "private"}, {"ldg", 1}}),
      config({{"dims", 3}, {"block_x", 32}, {"block_y", 2}, {"block_z", 2}, {"ppi", 2}, {"precompute", "kernel"},
              {"inline", 1}, {"interp", "seed"}, {"geom_mem", "global"}, {"window", "local"}, {"ldg", 0},
              {"launch_bounds", 4}}),
  };
  for (const Config& c : grid) expect_compiles("cuda_grid", c);
  const std::vector<Config> argmax = {
      config({{"dims", 1}, {"block_x", 256}, {"ppi", 2}, {"interp", "simplified"}, {"final_block", 1024}}),
      config({{"dims", 3}, {"block_x", 8}, {"block_y", 4}, {"block_z", 2}, {"ppi", 5}, {"window", "local"},
              {"geom_mem", "constant"}, {"launch_bounds", 2}, {"final_block", 128}}),
  };
  for (const Config& c : argmax) expect_compiles("cuda_argmax", c);
}

TEST(SemblanceCudaPlans, LimitsAndGeometry) {
  const Variant& v = variant("cuda_argmax");
  const LaunchPlan plan = plan_for(v, seed().problem, seed().workload,
                                 config({{"dims", 3}, {"block_x", 16}, {"block_y", 4}, {"block_z", 2}, {"ppi", 4}}), h100());
  // x over D (20) x E blocks (5) = 100 rounded to 112; y over C (20) rounded to 20; z over A x B (400).
  EXPECT_EQ(plan.global, (std::array<std::size_t, 3>{112, 20, 400}));
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].entry, "semb_argmax_final");
  ASSERT_EQ(plan.scratch.size(), 3u);
  EXPECT_EQ(plan.scratch[0].bytes, 7u * 5 * 200 * 4);  // one best point per block
  // 1024 threads x 4 points x 5 samples of shared floats exceed 48 KiB; 2048 threads exceed a block.
  EXPECT_THROW(plan_for(variant("cuda_grid"), seed().problem, seed().workload,
                                         config({{"dims", 1}, {"block_x", 1024}, {"ppi", 4}, {"window", "local"}}), h100()),
               PlanError);
  EXPECT_THROW(plan_for(variant("cuda_grid"), seed().problem, seed().workload,
                                         config({{"dims", 2}, {"block_x", 1024}, {"block_y", 2}}), h100()),
               PlanError);
  // dims 2 puts A x B x C = 8000 rows on y: fine; a 100^5 grid's 10^6 would not fit CUDA's 65535.
}

// spaces/semblance-gpu.yaml loads against this build (variants, parameters, constraints) from the
// repository root, as scripts/gpu-bench.sh runs it; where the seed's data is not beside the checkout
// the only complaint is the missing file.
TEST(SemblanceGpuSpace, LoadsFromTheRepositoryRoot) {
  namespace fs = std::filesystem;
  const fs::path before = fs::current_path();
  fs::current_path(PIMG_SOURCE_DIR);
  const std::string data = "../shared/data/semblance/simple-syntetic.cut44s.su";
  try {
    const Space space = load_space("spaces/semblance-gpu.yaml", Registry::builtin());
    EXPECT_TRUE(fs::exists(data));
    EXPECT_EQ(space.problems.size(), 3u);
  } catch (const UsageError& e) {
    EXPECT_FALSE(fs::exists(data)) << e.what();
    EXPECT_NE(std::string(e.what()).find(data), std::string::npos) << e.what();
  }
  fs::current_path(before);
}

}  // namespace
}  // namespace pimg::sembtest
