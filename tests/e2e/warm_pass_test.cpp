// The warm pass (DeviceCaps::compiles_at_first_launch, docs/design.md): on PoCL's CPU device every program of a task
// is built and launched once in worker processes before the task is measured, so the worker that measures finds
// each program built (compile_cached) and the search rows are the same configurations, all validated. With
// --no-isolation there is no pass (the tuner's own threads compile ahead, as on every other CPU device).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>
#include <thread>

#include "e2e/e2e_util.hpp"

namespace fs = std::filesystem;

namespace {

// Eight programs (block_x x block_y x unroll) of cl_direct, one problem in two sizes: a lane per 4 programs (two on a
// machine with two cores or more), and the second size's programs are the first's, so there is no second pass.
constexpr const char* kSpace = R"(family: conv
problems:
  - {filter: sharpen3, border: valid, channels: 1, sizes: [64x48, 96x64], input: random, seed: 7}
backends:
  opencl: {}
variants:
  cl_direct:
    block_x: [8, 16]
    block_y: [4, 8]
    items_x: [1]
    items_y: [1]
    filter_mem: [global]
    unroll: [0, 1]
    arith: [mul]
measure: {repeats: 3, max_repeats: 3, confirm: {top: 0}, cold: {top: 0}}
)";

std::string tune(const fs::path& dir, const std::string& db, const std::string& extra) {
  const e2e::Ran r = e2e::run("conv --space " + (dir / "space.yaml").string() + " --db " + db +
                                  " --device 'opencl:Portable Computing Language' " + extra,
                              "XDG_CACHE_HOME=" + db + ".cache POCL_CACHE_DIR=" + db + ".pocl");
  EXPECT_EQ(r.code, 0) << r.out;
  return r.out;
}

}  // namespace

TEST(WarmPass, PoclProgramsAreBuiltInWorkersBeforeTheyAreMeasured) {
  const fs::path dir = e2e::temp_dir("warm-pass");
  std::ofstream(dir / "space.yaml") << kSpace;
  const std::string warm = (dir / "w.db").string(), plain = (dir / "n.db").string();
  for (const std::string& db : {warm, plain}) fs::create_directories(db + ".pocl");
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one core: no second process to build in";

  const std::string out = tune(dir, warm, "");
  EXPECT_NE(out.find("cl_direct: 8 programs built and launched once in 2 worker processes"), std::string::npos) << out;
  EXPECT_EQ(out.find("cl_direct: 0 programs"), std::string::npos) << out;
  EXPECT_EQ(out.find("did not run"), std::string::npos) << out;
  // Every configuration measured and validated, each found built by the worker that measured it.
  EXPECT_EQ(e2e::query(warm, "SELECT count(*), sum(status = 'ok'), sum(compile_cached) FROM evaluations "
                             "WHERE stage = 'search'"),
            std::vector<std::string>{"16|16|16"});

  // Without worker processes: no pass.
  const std::string in_process = tune(dir, plain, "--no-isolation");
  EXPECT_EQ(in_process.find("built and launched once"), std::string::npos) << in_process;
  EXPECT_EQ(e2e::query(plain, "SELECT count(*), sum(status = 'ok') FROM evaluations WHERE stage = 'search'"),
            std::vector<std::string>{"16|16"});
  // The same configurations either way.
  const std::string configs = "SELECT c.canonical FROM evaluations e JOIN configs c ON c.id = e.config_id "
                              "JOIN problems p ON p.id = e.problem_id WHERE e.stage = 'search' "
                              "ORDER BY p.canonical, c.canonical";
  EXPECT_EQ(e2e::query(warm, configs), e2e::query(plain, configs));
  fs::remove_all(dir);
}
