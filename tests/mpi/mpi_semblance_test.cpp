// semblance's mpi_grid under the MPI backend: every scheme at 1, 2 and 3 ranks validates against the
// serial reference by the family's rule and finds the generating point (point counts that 2, 3 or
// neither divide, and a grid of 4 points); the gathering schemes return the grid and `best` only
// the best point; a rank count that leaves a rank without points is a clear launch_error from the
// variant and from the worker itself; bad parameters are clear errors; communication time is reported.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi/mpi_util.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"
#include "semblance/semblance_core.h"

namespace pimg::mpi_test {
namespace {


// One warm-up and two timed runs, each with the output poisoned and validated against the reference.
EvalResult run(const Problem& p, const Config& c) {
  const Workload w = semblance_family().make_workload(p);
  const std::vector<std::uint8_t> expected = semblance_family().reference(p, w);
  EvalContext ctx{semblance_family(), p, w, expected, mpi_device(), MeasureSpec::fixed(1, 2, 60)};
  return evaluate(ctx, *Registry::builtin().variant("semblance", "mpi_grid"), c);
}

// A plan launched on the MPI device directly (no evaluator), its output poisoned first; the output
// lands in `out`.
LaunchResult launch(const Workload& w, const LaunchPlan& plan, std::vector<std::uint8_t>& out) {
  Device& d = mpi_device();
  CompileResult c = d.compile(*kernel_source("semblance/mpi/native/semblance_mpi.cpp"), plan);
  if (!c.program) {
    LaunchResult failed;
    failed.error = c.log;
    return failed;
  }
  std::map<std::string, std::shared_ptr<DeviceBuffer>> bufs;
  std::map<std::string, DeviceBuffer*> args;
  for (const char* name : {"samples", "geom", "axes"}) {
    bufs[name] = d.alloc(w.input(name).bytes.size());
    d.upload(*bufs[name], w.input(name).bytes);
    args[name] = bufs[name].get();
  }
  bufs["out"] = d.alloc(w.output_bytes);
  d.fill(*bufs["out"], 0xA5);
  args["out"] = bufs["out"].get();
  const LaunchResult l = d.launch(*c.program, plan, args);
  out.resize(w.output_bytes);
  d.download(*bufs["out"], out);
  return l;
}

class MpiGridValid : public ::testing::TestWithParam<Case> {};

TEST_P(MpiGridValid, FindsTheReferencesBestPoint) {
  const Case k = GetParam();
  struct P {
    int traces;
    const char* grid;   // point counts 1155 (3 divides it, 2 does not), 4 (3 ranks: one rank gets two)
    const char* truth;  // and 128 (2 divides it, 3 does not)
  };
  const P problems[] = {{48, "3,5,7,1,11", "2,1,4,0,8"}, {32, "1,1,1,2,2", "0,0,0,1,0"}, {40, "2,2,2,4,4", "1,0,1,2,3"}};
  for (const P& pr : problems) {
    const Problem p = semb_problem(pr.traces, pr.grid, pr.truth);
    const std::int64_t threads = pr.traces % 3 == 0 ? 2 : 1;  // 1 and 2 threads per rank
    const EvalResult r = run(p, mpi_config(k.ranks, threads, k.scheme));
    ASSERT_EQ(r.status, Status::ok) << "grid " << pr.grid << ": " << r.log;
    EXPECT_NE(r.validation.find(std::string("best (") + pr.truth + ")"), std::string::npos)
        << pr.grid << ": " << r.validation;
    expect_run_times(r, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(SchemesAndRanks, MpiGridValid,
                         ::testing::ValuesIn(at_1_2_3_ranks({"blocks", "cyclic", "best"})),
                         case_name);

// The gathering schemes return every point (GRID), `best` only the best point (BEST): the output
// headers differ, and the grid arrays of `best` stay as the evaluator poisoned them.
TEST(MpiGrid, GatheringSchemesReturnTheGridBestOnlyTheBest) {
  const Problem p = semb_problem(32, "2,3,2,2,5", "1,2,0,1,3");
  const Workload w = semblance_family().make_workload(p);
  for (const char* scheme : {"blocks", "cyclic", "best"}) {
    const LaunchPlan plan =
        plan_for(*Registry::builtin().variant("semblance", "mpi_grid"), p, w, mpi_config(3, 1, scheme), mpi_device().info());
    std::vector<std::uint8_t> out;
    const LaunchResult l = launch(w, plan, out);
    ASSERT_TRUE(l.ok) << scheme << ": " << l.error;
    std::int32_t tag = 0, best = 0;
    std::memcpy(&tag, out.data(), 4);
    std::memcpy(&best, out.data() + 4, 4);
    EXPECT_EQ(tag, std::string(scheme) == "best" ? SEMB_TAG_BEST : SEMB_TAG_GRID) << scheme;
    EXPECT_EQ(best, ((((1 * 3) + 2) * 2 + 0) * 2 + 1) * 5 + 3) << scheme;  // the truth's index
    const bool poisoned = std::all_of(out.begin() + 16, out.end(), [](std::uint8_t b) { return b == 0xA5; });
    EXPECT_EQ(poisoned, std::string(scheme) == "best") << scheme;
  }
}

TEST(MpiGrid, CommunicationTimeIsMeasured) {
  const Problem p = semb_problem(32, "4,4,4,4,8", "1,2,3,0,5");
  for (const char* scheme : {"blocks", "cyclic", "best"}) {
    const EvalResult r = run(p, mpi_config(2, 1, scheme));
    ASSERT_EQ(r.status, Status::ok) << r.log;
    // Two ranks always reduce the best point (and the gathering schemes move half the grid).
    for (double c : comm_ms(r)) EXPECT_GT(c, 0) << scheme;
  }
}

TEST(MpiGrid, ARankWithoutPointsIsALaunchError) {
  const Problem p = semb_problem(32, "1,1,1,1,2", "0,0,0,0,1");
  const EvalResult r = run(p, mpi_config(3, 1, "blocks"));
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_NE(r.log.find("ranks=3 leaves a rank without grid points (the grid has 2 points)"), std::string::npos)
      << r.log;
  EXPECT_EQ(run(p, mpi_config(2, 1, "cyclic")).status, Status::ok);
}

TEST(MpiGrid, BadParametersAreClearErrors) {
  const Problem p = semb_problem(32, "2", "1,1,1,1,1");
  const std::pair<Config, const char*> bad[] = {
      {mpi_config(0, 1, "blocks"), "ranks: 0 is outside 1..64"},
      {mpi_config(65, 1, "blocks"), "ranks: 65 is outside 1..64"},
      {mpi_config(2, 0, "blocks"), "threads: 0 is outside 1..4096"},
      {mpi_config(2, 1, "diagonal"), "scheme must be one of blocks|cyclic|best, got diagonal"},
  };
  for (const auto& [config, expected] : bad) {
    const EvalResult r = run(p, config);
    EXPECT_EQ(r.status, Status::launch_error) << expected;
    EXPECT_NE(r.log.find(expected), std::string::npos) << r.log;
  }
}

// Plans the variant would refuse, sent to the worker directly: the worker's own checks answer with
// an error instead of running.
TEST(MpiGrid, WorkerRefusesABadPlan) {
  const Problem p = semb_problem(32, "1,1,1,1,2", "0,0,0,0,1");
  const Workload w = semblance_family().make_workload(p);
  const LaunchPlan good =
      plan_for(*Registry::builtin().variant("semblance", "mpi_grid"), p, w, mpi_config(2, 1, "cyclic"), mpi_device().info());
  const std::pair<const char*, const char*> edits[] = {
      {"SCHEME", "diagonal"}, {"MPI_RANKS", "3"}, {"PIMG_W", "12"}};
  const char* expected[] = {"SCHEME must be blocks, cyclic or best, got 'diagonal'",
                            "3 ranks leave a rank without grid points (2 points)",
                            "the plan's problem is inconsistent"};
  for (std::size_t e = 0; e < 3; ++e) {
    LaunchPlan plan = good;
    for (auto& [name, value] : plan.defines)
      if (name == edits[e].first) value = edits[e].second;
    std::vector<std::uint8_t> out;
    const LaunchResult l = launch(w, plan, out);
    EXPECT_FALSE(l.ok) << edits[e].first;
    EXPECT_NE(l.error.find(expected[e]), std::string::npos) << l.error;
  }
}

}  // namespace
}  // namespace pimg::mpi_test
