// semblance's mpi_cuda_grid (ranks on GPUs). Everywhere: the mpi device reports the CUDA GPUs behind its
// ranks (as many as the CUDA backend finds), and the variant's plan is checked on a device said to have
// one (the ranks share out A values; the kernel's knobs reach the worker as the kernel's defines). Where
// the host has CUDA GPUs (the GPU machine): every scheme at 1, 2 and 3 ranks (ranks beyond the GPUs
// share them) validates against the reference by the family's rule and finds the generating point, with
// two sets of kernel knobs; a knob the GPU cannot take fails the run with the rank's reason. Where it has
// none (CI): the tuner skips the variant with the reason and stores the other variants' rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "e2e/e2e_util.hpp"
#include "mpi/mpi_util.hpp"
#include "pimg/store.hpp"
#include "semblance/semblance_variants.hpp"

namespace fs = std::filesystem;

namespace pimg::mpi_test {
namespace {

const Variant& variant() { return *Registry::builtin().variant("semblance", "mpi_cuda_grid"); }

int host_gpus() {
  const Backend* cuda = Registry::builtin().backend("cuda");
  return cuda && cuda->status().available ? static_cast<int>(cuda->devices().size()) : 0;
}

Config gpu_config(std::int64_t ranks, const std::string& scheme, bool wide) {
  Config c;
  c.set("ranks", ranks);
  c.set("scheme", scheme);
  if (wide) {  // the 1-D mapping, 4 points per item, constant geometry, num in shared memory
    c.set("dims", std::int64_t{1});
    c.set("block_x", std::int64_t{128});
    c.set("ppi", std::int64_t{4});
    c.set("interp", std::string("simplified"));
    c.set("geom_mem", std::string("constant"));
    c.set("window", std::string("local"));
  } else {  // the seed's 3-D (4,4,4) mapping
    c.set("block_x", std::int64_t{4});
    c.set("block_y", std::int64_t{4});
    c.set("block_z", std::int64_t{4});
  }
  return c;
}

TEST(MpiCudaGrid, TheMpiDeviceCountsTheGpusBehindItsRanks) {
  const DeviceInfo& d = mpi_device().info();
  ASSERT_TRUE(d.limits.count("cuda_gpus")) << "the mpi device says nothing of GPUs";
  EXPECT_EQ(d.limits.at("cuda_gpus"), host_gpus());
  EXPECT_EQ(d.platform.find(" x ") != std::string::npos, host_gpus() > 0) << d.platform;
}

TEST(MpiCudaGrid, PlanSharesOutAValuesAndPassesTheKnobs) {
  DeviceInfo d = mpi_device().info();
  d.limits["cuda_gpus"] = 1;
  const Problem p = semb_problem(32, "3,2,2,4,4", "1,0,1,2,3");
  const Workload w = semblance_family().make_workload(p);
  const LaunchPlan plan = plan_for(variant(), p, w, gpu_config(3, "best", true), d);
  EXPECT_EQ(plan.entry, "pimg-mpi-semblance-cuda");
  std::map<std::string, std::string> defines(plan.defines.begin(), plan.defines.end());
  EXPECT_EQ(defines.at("MPI_RANKS"), "3");
  EXPECT_EQ(defines.at("SCHEME"), "best");
  EXPECT_EQ(defines.at("ARGMAX"), "1");
  const semblance::DeviceKnobs k = semblance::knobs_from_defines(defines, semblance::DeviceApi::cuda);
  EXPECT_EQ(k.dims, 1);
  EXPECT_EQ(k.block_x, 128);
  EXPECT_EQ(k.ppi, 4);
  EXPECT_EQ(k.interp, 1);
  EXPECT_EQ(k.geom_mem, 1);
  EXPECT_EQ(k.window, 1);
  EXPECT_EQ(k.ldg, 1);
  EXPECT_EQ(defines.at("PIMG_NA"), "3");  // the whole grid's: each rank takes its own share
  // Four ranks for three A values leave one without work.
  try {
    (void)plan_for(variant(), p, w, gpu_config(4, "cyclic", false), d);
    ADD_FAILURE() << "4 ranks for 3 A values planned";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks=4 leaves a rank without A values"), std::string::npos) << e.what();
  }
  // The GPU arg-max of scheme best needs a power-of-two block; the gathering schemes do not.
  Config odd = gpu_config(2, "best", false);
  odd.set("block_x", std::int64_t{3});
  EXPECT_THROW((void)plan_for(variant(), p, w, odd, d), PlanError);
  odd.set("scheme", std::string("blocks"));
  EXPECT_NO_THROW((void)plan_for(variant(), p, w, odd, d));
  // A define the worker cannot read is named.
  defines.erase("PPI");
  EXPECT_THROW((void)semblance::knobs_from_defines(defines, semblance::DeviceApi::cuda), PlanError);
  // Without GPUs the device lacks what every configuration needs.
  d.limits["cuda_gpus"] = 0;
  EXPECT_THROW((void)plan_for(variant(), p, w, gpu_config(1, "best", false), d), DeviceLacks);
}

class MpiCudaGridValid : public ::testing::TestWithParam<Case> {};

TEST_P(MpiCudaGridValid, FindsTheReferencesBestPoint) {
  if (host_gpus() == 0) GTEST_SKIP() << "no CUDA GPU on this host";
  const Case k = GetParam();
  struct P {
    int traces;
    const char* grid;   // A values 3 (3 ranks: one each; 2 ranks: 2 and 1), 5 and 4
    const char* truth;
  };
  const P problems[] = {{48, "3,5,7,1,11", "2,1,4,0,8"}, {40, "5,2,2,4,4", "1,0,1,2,3"}, {32, "4,3,2,2,5", "3,2,0,1,3"}};
  for (std::size_t i = 0; i < std::size(problems); ++i) {
    const P& pr = problems[i];
    const Problem p = semb_problem(pr.traces, pr.grid, pr.truth);
    const Workload w = semblance_family().make_workload(p);
    const std::vector<std::uint8_t> expected = semblance_family().reference(p, w);
    EvalContext ctx{semblance_family(), p, w, expected, mpi_device(), MeasureSpec::fixed(1, 2, 60)};
    const EvalResult r = evaluate(ctx, variant(), gpu_config(k.ranks, k.scheme, i % 2 == 1));
    ASSERT_EQ(r.status, Status::ok) << "grid " << pr.grid << ": " << r.log;
    EXPECT_NE(r.validation.find(std::string("best (") + pr.truth + ")"), std::string::npos)
        << pr.grid << ": " << r.validation;
    expect_run_times(r, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(SchemesAndRanks, MpiCudaGridValid,
                         ::testing::ValuesIn(at_1_2_3_ranks({"blocks", "cyclic", "best"})), case_name);

TEST(MpiCudaGrid, AKnobTheGpuCannotTakeFailsTheRunWithTheRanksReason) {
  if (host_gpus() == 0) GTEST_SKIP() << "no CUDA GPU on this host";
  const Problem p = semb_problem(32, "2,2,2,4,4", "1,0,1,2,3");
  const Workload w = semblance_family().make_workload(p);
  const std::vector<std::uint8_t> expected = semblance_family().reference(p, w);
  EvalContext ctx{semblance_family(), p, w, expected, mpi_device(), MeasureSpec::fixed(0, 1, 60)};
  Config c = gpu_config(2, "cyclic", false);
  c.set("block_x", std::int64_t{64});
  c.set("block_y", std::int64_t{32});  // 64 x 32 x 4 = 8192 threads in a block, above every GPU's 1024
  const EvalResult r = evaluate(ctx, variant(), c);
  EXPECT_NE(r.status, Status::ok);
  EXPECT_NE(r.log.find("rank 0 ("), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("exceeds the device's"), std::string::npos) << r.log;
}

TEST(MpiCudaGrid, NoGpuSkipsTheVariantAndTunesTheOthers) {
  if (host_gpus() > 0) GTEST_SKIP() << "this host has CUDA GPUs";
  const fs::path dir = e2e::temp_dir_with_cache("mpi-cuda-skip");
  const std::string space = std::string(PIMG_TEST_DATA) + "/mpi/semblance-no-gpu.yaml";
  const std::string db = (dir / "mpi.db").string();
  const e2e::Ran r = e2e::run("semblance --space " + space + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("mpi_cuda_grid skipped: no CUDA GPU behind"), std::string::npos) << r.out;
  Store store(db, Store::Mode::existing);
  const auto rows = store.rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].variant.name, "mpi_grid");
  EXPECT_EQ(to_string(rows[0].result.status), std::string("ok")) << rows[0].result.log;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace pimg::mpi_test
