// The MPI backend and conv's mpi_rows: every scheme at 1, 2 and 3 ranks validates exactly against
// the serial reference (filters, borders, channels, layouts, heights no rank count divides); bad
// parameters are clear errors; communication time is reported; a run past the timeout kills mpirun
// and its ranks; the backend says why it is unavailable.
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "common/backend_checks.hpp"
#include "mpi/mpi_util.hpp"
#include "mpi_backend.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"

namespace fs = std::filesystem;

namespace pimg {
namespace {

using mpi_test::Case;
using mpi_test::mpi_config;
using mpi_test::mpi_device;

const Registry& reg() { return Registry::builtin(); }

Problem conv_problem(int width, int height, int channels, const std::string& layout, const std::string& border,
                     const std::string& filter) {
  return reg().family("conv")->make_problem(width, height, channels,
                                            {{"layout", layout}, {"border", border}, {"filter", filter}});
}

// One warm-up and two timed runs, each with the output poisoned and validated against the reference.
EvalResult run(const Problem& p, const Config& c, double timeout_s = 60) {
  const Family& family = *reg().family("conv");
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w);
  EvalContext ctx{family, p, w, expected, mpi_device(), MeasureSpec::fixed(1, 2, timeout_s)};
  return evaluate(ctx, *reg().variant("conv", "mpi_rows"), c);
}

TEST(MpiBackend, StatusAndDevice) {
  DeviceInfo d;
  ASSERT_NO_FATAL_FAILURE(testcommon::only_device("mpi", d));
  EXPECT_EQ(d.name.rfind("mpi:", 0), 0u) << d.name;
  EXPECT_GT(d.compute_units, 0);
  EXPECT_NE(d.driver.find("Open MPI"), std::string::npos) << d.driver;
}

// Each scheme x rank count over problems chosen so that every code path of the worker runs: 3x3
// and 5x5, zero / replicate / valid borders, 1 channel, 3 interleaved and 3 planar, heights 61
// and 37 (prime: no rank count divides them), widths narrower than the window's interior. A covering
// array, not the product: each scheme meets all 12 (problem, size) pairs over its three rank counts,
// and each rank count meets both sizes, both filters and all three borders.
class MpiRowsExact : public ::testing::TestWithParam<Case> {};

TEST_P(MpiRowsExact, ValidatesExactly) {
  const Case k = GetParam();
  struct P {
    const char* filter;
    const char* border;
    int channels;
    const char* layout;
  };
  const P problems[] = {
      {"sharpen3", "zero", 1, "interleaved"},  {"sharpen3", "replicate", 3, "interleaved"},
      {"gaussian5", "zero", 3, "interleaved"}, {"gaussian5", "replicate", 1, "interleaved"},
      {"gaussian5", "valid", 3, "planar"},     {"sharpen3", "replicate", 3, "planar"},
  };
  const std::pair<int, int> sizes[] = {{67, 61}, {9, 37}};
  // (problem, size) pairs at 1, 2 and 3 ranks.
  const std::vector<std::pair<int, int>> at_ranks[] = {
      {{4, 0}, {0, 1}, {1, 0}, {3, 1}},
      {{4, 1}, {2, 0}, {5, 1}, {0, 0}},
      {{4, 0}, {1, 1}, {2, 1}, {3, 0}, {5, 0}},
  };
  ASSERT_GE(k.ranks, 1);
  ASSERT_LE(k.ranks, 3);
  for (const auto& [pi, si] : at_ranks[k.ranks - 1]) {
    const P& pr = problems[pi];
    const auto [w, h] = sizes[si];
    const Problem p = conv_problem(w, h, pr.channels, pr.layout, pr.border, pr.filter);
    const std::int64_t threads = si + 1;  // 1 and 2 threads per rank (each rank count meets both sizes)
    const EvalResult r = run(p, mpi_config(k.ranks, threads, k.scheme));
    EXPECT_EQ(r.status, Status::ok) << pr.filter << " " << pr.border << " " << pr.channels << pr.layout << " " << w
                                    << "x" << h << ": " << r.log;
    EXPECT_EQ(r.validation, "exact");
    mpi_test::expect_run_times(r, 2);
  }
}

INSTANTIATE_TEST_SUITE_P(SchemesAndRanks, MpiRowsExact,
                         ::testing::ValuesIn(mpi_test::at_1_2_3_ranks({"scatter", "halo", "owned"})),
                         mpi_test::case_name);

TEST(MpiRows, CommunicationTimeIsMeasured) {
  const Problem p = conv_problem(256, 256, 3, "interleaved", "zero", "gaussian5");
  for (const char* scheme : {"scatter", "halo", "owned"}) {
    const EvalResult r = run(p, mpi_config(2, 1, scheme));
    ASSERT_EQ(r.status, Status::ok) << r.log;
    // Two ranks always exchange and gather something; the gather alone moves half the image.
    for (double c : mpi_test::comm_ms(r)) EXPECT_GT(c, 0) << scheme;
  }
}

TEST(MpiRows, BadParametersAreClearErrors) {
  const Problem p = conv_problem(64, 64, 1, "interleaved", "zero", "sharpen3");
  EvalResult r = run(p, mpi_config(0, 1, "halo"));
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_NE(r.log.find("ranks: 0 is outside 1..64"), std::string::npos) << r.log;
  r = run(p, mpi_config(2, 0, "halo"));
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_NE(r.log.find("threads: 0 is outside 1..1024"), std::string::npos) << r.log;
  r = run(p, mpi_config(2, 1, "diagonal"));
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_NE(r.log.find("scheme must be one of scatter|halo|owned"), std::string::npos) << r.log;
  // 5x5 (radius 2) over 9 output rows: 5 ranks would get blocks of one row.
  r = run(conv_problem(16, 9, 1, "interleaved", "zero", "gaussian5"), mpi_config(5, 1, "halo"));
  EXPECT_EQ(r.status, Status::launch_error);
  EXPECT_NE(r.log.find("thinner than the filter radius 2"), std::string::npos) << r.log;
}

// A plan the variant would refuse, sent to the worker directly: the worker's own checks answer
// with an error instead of running.
TEST(MpiBackend, WorkerRefusesABadPlan) {
  const Problem p = conv_problem(32, 32, 1, "interleaved", "zero", "sharpen3");
  const Workload w = reg().family("conv")->make_workload(p);
  LaunchPlan plan = plan_for(*reg().variant("conv", "mpi_rows"), p, w, mpi_config(2, 1, "halo"), mpi_device().info());
  for (auto& [name, value] : plan.defines)
    if (name == "SCHEME") value = "diagonal";
  Device& d = mpi_device();
  CompileResult c = d.compile(*kernel_source("conv/mpi/native/conv_mpi.cpp"), plan);
  ASSERT_TRUE(c.program) << c.log;
  auto in = d.alloc(w.input("in").bytes.size()), weights = d.alloc(w.input("weights").bytes.size());
  auto out = d.alloc(w.output_bytes);
  d.upload(*in, w.input("in").bytes);
  d.upload(*weights, w.input("weights").bytes);
  const LaunchResult l = d.launch(*c.program, plan, {{"in", in.get()}, {"out", out.get()}, {"weights", weights.get()}});
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.error.find("SCHEME must be scatter, halo or owned, got 'diagonal'"), std::string::npos) << l.error;
}

// The processes whose parent is `parent` and whose command line contains `name` (from /proc).
std::vector<pid_t> children_of(pid_t parent, const std::string& name) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    if (e.path().filename().string().find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    std::ifstream cmdline(e.path() / "cmdline");
    const std::string command((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent && state != 'Z' &&
        command.find(name) != std::string::npos)
      out.push_back(std::stoi(e.path().filename().string()));
  }
  return out;
}

bool gone(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;
    const auto close = line.rfind(')');
    if (close != std::string::npos && line[close + 2] == 'Z') return true;  // dead, not yet reaped
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The ranks stopped mid-service: the next run never answers, and the backend kills mpirun and the
// ranks after its limit (1.5 x the run timeout + 2 s), reporting why.
TEST(MpiBackend, RunPastTheTimeoutKillsMpirunAndRanks) {
  std::unique_ptr<Device> d = reg().backend("mpi")->open(reg().backend("mpi")->devices().at(0));
  const Problem p = conv_problem(64, 64, 1, "interleaved", "zero", "sharpen3");
  const Workload w = reg().family("conv")->make_workload(p);
  const LaunchPlan plan = plan_for(*reg().variant("conv", "mpi_rows"), p, w, mpi_config(2, 1, "halo"), d->info());
  CompileResult c = d->compile(*kernel_source("conv/mpi/native/conv_mpi.cpp"), plan);
  ASSERT_TRUE(c.program) << c.log;
  auto in = d->alloc(w.input("in").bytes.size()), weights = d->alloc(w.input("weights").bytes.size());
  auto out = d->alloc(w.output_bytes);
  d->upload(*in, w.input("in").bytes);
  d->upload(*weights, w.input("weights").bytes);
  const std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}, {"weights", weights.get()}};
  d->set_run_timeout(0.01);
  // This device's mpirun: the one that was not there before its first launch (the suite's tests share a process, and
  // an earlier test's device may still be ending its own).
  const std::vector<pid_t> before = children_of(::getpid(), "mpirun");
  ASSERT_TRUE(d->launch(*c.program, plan, buffers).ok);
  std::vector<pid_t> mpirun = children_of(::getpid(), "mpirun");
  std::erase_if(mpirun, [&](pid_t p) { return std::find(before.begin(), before.end(), p) != before.end(); });
  ASSERT_EQ(mpirun.size(), 1u);
  const std::vector<pid_t> ranks = children_of(mpirun[0], "pimg-mpi-conv");
  ASSERT_EQ(ranks.size(), 2u);
  for (pid_t r : ranks) ASSERT_EQ(::kill(r, SIGSTOP), 0);
  const auto t0 = std::chrono::steady_clock::now();
  const LaunchResult l = d->launch(*c.program, plan, buffers);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(l.ok);
  EXPECT_NE(l.error.find("mpirun and its ranks were killed"), std::string::npos) << l.error;
  EXPECT_GE(waited, 2.0);
  EXPECT_LT(waited, 10.0);
  EXPECT_TRUE(gone(mpirun[0]));
  for (pid_t r : ranks) EXPECT_TRUE(gone(r)) << "rank " << r << " survived mpirun";
  // The device starts a fresh worker for the next launch.
  const LaunchResult again = d->launch(*c.program, plan, buffers);
  EXPECT_TRUE(again.ok) << again.error;
}

TEST(MpiBackend, UnavailableWithAReason) {
  const char* saved = std::getenv("PIMG_MPIRUN");
  ::setenv("PIMG_MPIRUN", "/nonexistent/mpirun", 1);
  BackendStatus s = make_mpi_backend()->status();
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.reason.find("no mpirun"), std::string::npos) << s.reason;
  if (saved) ::setenv("PIMG_MPIRUN", saved, 1); else ::unsetenv("PIMG_MPIRUN");

  const fs::path empty = fs::temp_directory_path() / ("pimg-mpi-empty-" + std::to_string(::getpid()));
  fs::create_directories(empty);
  ::setenv("PIMG_MPI_WORKER_DIR", empty.c_str(), 1);
  auto b = make_mpi_backend();
  s = b->status();
  ::unsetenv("PIMG_MPI_WORKER_DIR");
  fs::remove_all(empty);
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.reason.find("no MPI worker program pimg-mpi-conv"), std::string::npos) << s.reason;
  EXPECT_TRUE(b->devices().empty());
}

}  // namespace
}  // namespace pimg
