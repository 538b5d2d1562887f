// The distributed runner end to end: `mpirun -np N pimg-tune conv ...` (oversubscribed on a small
// machine) stores the same configurations, statuses and validations as a single-process run, with
// every rank doing part of the work; resumes; refuses bad input before MPI starts; runs the MPI
// backend's own mpirun inside its ranks; spreads a sampling strategy's budget without repeats; runs the
// confirmation stage after the search as a single-process run does, each problem's on a free rank; and, on a
// machine with a CUDA GPU, compiles the programs ahead on rank 0's host before handing them out.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <tuple>

#include "e2e/e2e_util.hpp"
#include "pimg/registry.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

// Every stored evaluation as (device, problem, variant, configuration, status, validation); with `confirmations`,
// the confirmation stage's latest rows, their stage in place of the validation.
using Row = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
std::multiset<Row> stored(const std::string& db, bool confirmations = false) {
  pimg::Store store(db, pimg::Store::Mode::existing);
  std::multiset<Row> out;
  for (const auto& r : confirmations ? store.confirm_rows() : store.rows_with_samples())
    out.insert({r.device.backend + ":" + r.device.name, r.problem.canonical(), r.variant.name, r.config.canonical(),
                pimg::to_string(r.result.status), confirmations ? r.result.stage : r.result.validation});
  return out;
}

// pimg-tune ARGS under mpirun with `ranks` processes.
e2e::Ran mpirun(int ranks, const std::string& args, const std::string& env = "") {
  const std::string root = ::geteuid() == 0 ? "--allow-run-as-root " : "";
  // Without ssh or rsh (the GPU machines) Open MPI's default launcher refuses even local ranks.
  static const bool isolated = std::system("command -v ssh > /dev/null 2>&1 || command -v rsh > /dev/null 2>&1") != 0;
  const std::string launcher = "mpirun --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none " +
                               root + (isolated ? "--mca plm isolated " : "") + "-np " + std::to_string(ranks);
  return e2e::run(args, env + " " + launcher);
}

// "evaluations per rank: 12, 8" -> {12, 8}
std::vector<int> per_rank(const std::string& out) {
  std::vector<int> n;
  const std::string tag = "evaluations per rank: ";
  const auto at = out.find(tag);
  if (at == std::string::npos) return n;
  std::stringstream line(out.substr(at + tag.size(), out.find('\n', at) - at - tag.size()));
  for (std::string x; std::getline(line, x, ',');) n.push_back(std::stoi(x));
  return n;
}

class Distributed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = e2e::temp_dir_with_cache("distributed");
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static std::string db(const std::string& name) { return (dir_ / (name + ".db")).string(); }
  static std::string data(const std::string& name) { return std::string(PIMG_TEST_DATA) + "/mpi/" + name; }
  static std::string space() { return data("distributed.yaml"); }
  // The single-process run to compare with, made by the first test of this process that needs it.
  static const e2e::Ran& single() {
    static const e2e::Ran ran = e2e::run("conv --quiet --space " + space() + " --db " + db("single"));
    return ran;
  }
  // A space of omp_rows's four configurations on the problems of sharpen3 at `sizes`, with `confirm` as its
  // confirmation stage and `cold` as its whole-program stage (none by default).
  static fs::path confirm_space(const std::string& name, const std::string& sizes, const std::string& confirm,
                                const std::string& cold = "{top: 0}") {
    const fs::path yaml = dir_ / (name + ".yaml");
    std::ofstream(yaml) << "family: conv\n"
                           "problems:\n  - {filter: sharpen3, sizes: [" << sizes << "], border: valid}\n"
                           "backends:\n  openmp: {}\n"
                           "variants:\n  omp_rows: {threads: 2, schedule: [static, dynamic], arith: [mul, lut]}\n"
                           "measure: {warmups: 1, repeats: 3, max_repeats: 3, cache: hot, timeout_s: 5, "
                           "confirm: " << confirm << ", cold: " << cold << "}\n";
    return yaml;
  }
  static inline fs::path dir_;
};

// The configuration of the fastest ok row of `problem` among `rows` ("" where there is none).
std::string fastest_config(const std::vector<pimg::ResultRow>& rows, const pimg::Problem& problem) {
  const pimg::ResultRow* fastest = nullptr;
  for (const auto& r : rows)
    if (r.problem == problem && r.result.status == pimg::Status::ok &&
        (!fastest || r.result.kernel.median < fastest->result.kernel.median))
      fastest = &r;
  return fastest ? fastest->config.canonical() : "";
}

TEST_F(Distributed, TwoRanksStoreWhatOneRankStores) {
  ASSERT_EQ(single().code, 0) << single().out;
  const auto one = stored(db("single"));
  ASSERT_EQ(one.size(), 20u);
  std::set<std::string> statuses;
  for (const auto& r : one) statuses.insert(std::get<4>(r));
  EXPECT_EQ(statuses, (std::set<std::string>{"ok", "crash", "compile_error", "wrong_result"}));

  const e2e::Ran two = mpirun(2, "conv --space " + space() + " --db " + db("two") + " --share-devices");
  ASSERT_EQ(two.code, 0) << two.out;
  EXPECT_NE(two.out.find("distributed run: 2 ranks, 2 with a device to drive"), std::string::npos) << two.out;
  EXPECT_EQ(stored(db("two")), one);
  const std::vector<int> n = per_rank(two.out);
  ASSERT_EQ(n.size(), 2u) << two.out;
  EXPECT_EQ(n[0] + n[1], 20);
  EXPECT_GT(n[1], 0) << "rank 1 evaluated nothing:\n" << two.out;

  // A second run finds everything stored and measures nothing.
  const e2e::Ran again = mpirun(2, "conv --quiet --space " + space() + " --db " + db("two") + " --share-devices");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("0 measured, 0 ok, 0 failed, 20 already stored"), std::string::npos) << again.out;
  EXPECT_EQ(e2e::query(db("two"), "SELECT count(*) FROM evaluations"), std::vector<std::string>{"20"});
}

// Without --share-devices, ranks beyond a host's devices of a kind drive none: on a machine with one
// device of each kind, rank 0 does all the work and the result is the same.
TEST_F(Distributed, RanksWithoutADeviceTakeNoWork) {
  ASSERT_EQ(single().code, 0) << single().out;
  const e2e::Ran three = mpirun(3, "conv --space " + space() + " --db " + db("three"));
  ASSERT_EQ(three.code, 0) << three.out;
  EXPECT_NE(three.out.find("distributed run: 3 ranks, 1 with a device to drive"), std::string::npos) << three.out;
  EXPECT_EQ(per_rank(three.out), (std::vector<int>{20, 0, 0})) << three.out;
  EXPECT_EQ(stored(db("three")), stored(db("single")));
}

TEST_F(Distributed, BadInputEndsEveryRankWithExitCode2AndNoDatabase) {
  const std::string bad = e2e::data("bad-constraint.yaml");
  const e2e::Ran r = mpirun(2, "conv --quiet --space " + bad + " --db " + db("bad"));
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("pimg-tune: " + bad + ":"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(db("bad")));
  const e2e::Ran lone = e2e::run("conv --quiet --share-devices --space " + space() + " --db " + db("bad"));
  EXPECT_EQ(lone.code, 2) << lone.out;
  EXPECT_NE(lone.out.find("--share-devices: only for runs under mpirun"), std::string::npos) << lone.out;
  EXPECT_FALSE(fs::exists(db("bad")));
}

// The MPI backend starts its own mpirun for each configuration; inside a rank of the distributed
// runner it must start a job of its own, not join the outer one.
TEST_F(Distributed, TheMpiBackendRunsInsideTheRanks) {
  const e2e::Ran r =
      mpirun(2, "conv --quiet --space " + data("nested.yaml") + " --db " + db("nested") + " --share-devices");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto rows = stored(db("nested"));
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& row : rows) EXPECT_EQ(std::get<4>(row), "ok") << std::get<3>(row);
  EXPECT_GT(per_rank(r.out).at(1), 0) << r.out;
}

// The pid of the rank-`rank` pimg-tune process whose command line names `db`, or -1.
pid_t rank_process(int rank, const std::string& db) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = e2e::slurp(entry.path() / "cmdline"), environ = e2e::slurp(entry.path() / "environ");
    for (auto& c : cmdline) c = c == '\0' ? ' ' : c;
    for (auto& c : environ) c = c == '\0' ? '\n' : c;
    if (cmdline.find("pimg-tune conv") == std::string::npos || cmdline.find(db) == std::string::npos) continue;
    if (("\n" + environ).find("\nOMPI_COMM_WORLD_RANK=" + std::to_string(rank) + "\n") != std::string::npos)
      return static_cast<pid_t>(std::stoi(name));
  }
  return -1;
}

// kill -9 of a rank mid-run: Open MPI ends the job, the database keeps every result rank 0 stored and
// passes its integrity check, and running the command again measures only what is missing.
TEST_F(Distributed, ARankKilledMidRunLosesNoStoredResult) {
  ASSERT_EQ(single().code, 0) << single().out;
  const std::string path = db("killed");
  const std::string root = ::geteuid() == 0 ? "--allow-run-as-root " : "";
  const std::string cmd = "mpirun --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none " + root +
                          "-np 2 " + PIMG_TUNE_EXE + " conv --quiet --share-devices --space " + space() +
                          " --db " + path + " > " + (dir_ / "killed.log").string() + " 2>&1";
  const pid_t shell = ::fork();
  if (shell == 0) {
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(shell, 0);
  // Wait for a few stored results, then kill rank 1.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t stored_before = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto n = e2e::query(path, "SELECT count(*) FROM evaluations");
    if (n.size() == 1 && n[0].find_first_not_of("0123456789") == std::string::npos && std::stoul(n[0]) >= 3) {
      stored_before = std::stoul(n[0]);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const pid_t rank1 = rank_process(1, path);
  ASSERT_GT(stored_before, 0u) << e2e::slurp(dir_ / "killed.log");
  ASSERT_GT(rank1, 0) << "rank 1 not found";
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(shell, &status, 0), shell);
  const std::string log = e2e::slurp(dir_ / "killed.log");
  EXPECT_EQ(e2e::query(path, "PRAGMA integrity_check"), std::vector<std::string>{"ok"}) << log;
  const auto after = e2e::query(path, "SELECT count(*) FROM evaluations");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_GE(std::stoul(after[0]), stored_before) << log;
  EXPECT_LT(std::stoul(after[0]), 20u) << "the run ended before the kill:\n" << log;
  EXPECT_NE(status, 0) << log;
  const e2e::Ran again = e2e::run("conv --quiet --space " + space() + " --db " + path);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find(after[0] + " already stored"), std::string::npos) << again.out;
  EXPECT_EQ(stored(path), stored(db("single")));
}

// A sampling strategy proposes several configurations at once: its budget is spent across the
// ranks without evaluating any configuration twice.
TEST_F(Distributed, ARandomBudgetIsSpreadWithoutRepeats) {
  const fs::path yaml = dir_ / "random.yaml";
  std::ifstream in(space());
  std::ofstream(yaml) << in.rdbuf() << "strategy: {name: random, seed: 5, options: {budget: 3}}\n";
  const e2e::Ran r = mpirun(2, "conv --quiet --space " + yaml.string() + " --db " + db("random") + " --share-devices");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto rows = stored(db("random"));
  std::set<Row> distinct(rows.begin(), rows.end());
  EXPECT_EQ(distinct.size(), rows.size());
  // At most 3 per variant and problem on its device: omp_rows and cl_direct have more than 3
  // configurations, the others one each; 2 problems.
  EXPECT_EQ(rows.size(), 2u * (3 + 1 + 1 + 2 + 1 + 1));
}

// After the search, the distributed run runs the stages a single-process run runs: here the confirmation (of the
// candidates within reach of the fastest, at most two; its one problem a job for one rank).
TEST_F(Distributed, TheConfirmationStageRunsAfterTheSearchAsInASingleProcessRun) {
  const fs::path yaml = confirm_space("confirm", "64x48", "{top: 2, sessions: 2}");
  const e2e::Ran r = mpirun(2, "conv --space " + yaml.string() + " --db " + db("confirm") + " --share-devices");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(e2e::query(db("confirm"), "SELECT count(*) FROM evaluations WHERE stage = 'search'"),
            std::vector<std::string>{"4"});
  const auto confirmed = e2e::query(db("confirm"),
                                    "SELECT count(DISTINCT config_id) FROM evaluations WHERE stage = 'confirm' AND "
                                    "config_id IN (SELECT config_id FROM evaluations WHERE stage = 'search')");
  ASSERT_EQ(confirmed.size(), 1u);
  EXPECT_GE(std::stoi(confirmed[0]), 1) << r.out;
  EXPECT_NE(r.out.find("in interleaved rounds (session 2 of 2)"), std::string::npos) << r.out;
}

// The problems' confirmations are shared out in one job per rank driving a device of their kind: with three
// problems both ranks confirm, each problem once per session, the confirmation rows stored are those a
// single-process run stores (one per problem: its fastest search row, which the timings of each run choose, so
// the configurations are compared with the run's own search), and what rank 1's stage said is said by rank 0.
TEST_F(Distributed, TheProblemsConfirmationsAreSharedOutOneJobPerRank) {
  const fs::path yaml = confirm_space("confirm-spread", "64x48, 48x40, 80x32", "{top: 1, max: 1, sessions: 2}");
  const e2e::Ran one = e2e::run("conv --quiet --space " + yaml.string() + " --db " + db("spread-one"));
  ASSERT_EQ(one.code, 0) << one.out;
  const e2e::Ran two = mpirun(2, "conv --space " + yaml.string() + " --db " + db("spread-two") + " --share-devices");
  ASSERT_EQ(two.code, 0) << two.out;
  const auto kinds = [](std::multiset<Row> rows) {
    std::multiset<Row> out;
    for (Row r : rows) {
      std::get<3>(r).clear();
      out.insert(r);
    }
    return out;
  };
  const auto single_rows = stored(db("spread-one"), true);
  ASSERT_EQ(single_rows.size(), 3u) << one.out;
  EXPECT_EQ(kinds(stored(db("spread-two"), true)), kinds(single_rows)) << two.out;
  pimg::Store store(db("spread-two"), pimg::Store::Mode::existing);
  const auto searched = store.rows();
  for (const auto& c : store.confirm_rows()) {
    EXPECT_EQ(c.result.status, pimg::Status::ok) << c.config.canonical();
    EXPECT_EQ(c.config.canonical(), fastest_config(searched, c.problem)) << c.problem.canonical();
  }
  // Rank 0 takes the first problem on its own thread, rank 1 the second.
  EXPECT_NE(two.out.find("confirmed by rank 0"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("confirmed by rank 1"), std::string::npos) << two.out;
  std::size_t sessions = 0;
  const std::string second = "(session 2 of 2)";
  for (auto at = two.out.find(second); at != std::string::npos; at = two.out.find(second, at + 1)) ++sessions;
  EXPECT_EQ(sessions, 3u) << two.out;
}

// The whole-program stage after the search: each cold run a job for a free rank (here both ranks share the host's
// OpenMP device), the same runs stored as a single-process run stores, each ok.
TEST_F(Distributed, EachColdRunIsAJobForAFreeRank) {
  const fs::path yaml = confirm_space("cold-spread", "64x48, 48x40, 80x32", "{top: 0}", "{top: 1}");
  const e2e::Ran one = e2e::run("conv --quiet --space " + yaml.string() + " --db " + db("cold-one"));
  ASSERT_EQ(one.code, 0) << one.out;
  const e2e::Ran two = mpirun(2, "conv --space " + yaml.string() + " --db " + db("cold-two") + " --share-devices");
  ASSERT_EQ(two.code, 0) << two.out;
  const std::string cold = "SELECT count(*) FROM evaluations WHERE stage = 'cold'";
  EXPECT_EQ(e2e::query(db("cold-one"), cold), std::vector<std::string>{"3"});
  EXPECT_EQ(e2e::query(db("cold-two"), cold), std::vector<std::string>{"3"});
  EXPECT_EQ(e2e::query(db("cold-two"), cold + " AND status = 'ok'"), std::vector<std::string>{"3"}) << two.out;
  // Each problem's cold run is of its fastest searched configuration, as a single-process run chooses it.
  pimg::Store store(db("cold-two"), pimg::Store::Mode::existing);
  const auto searched = store.rows();
  pimg::RowFilter f;
  f.family = "conv";
  for (const auto& c : store.stage_rows("cold", f))
    EXPECT_EQ(c.config.canonical(), fastest_config(searched, c.problem)) << c.problem.canonical();
  EXPECT_NE(two.out.find("cold run of omp_rows"), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("(rank 1, "), std::string::npos) << two.out;
  EXPECT_NE(two.out.find("(rank 0, "), std::string::npos) << two.out;
}

// On a CUDA GPU (the GPU machine; skipped elsewhere): rank 0 compiles the task's programs ahead on its host's cores
// and hands out only configurations whose programs are compiled; the ranks store what one process stores.
TEST_F(Distributed, OnAGpuRankZeroCompilesAheadForEveryRankAndTheStoredSetIsTheSingleRunsOne) {
  const pimg::Backend* cuda = pimg::Registry::builtin().backend("cuda");
  if (!cuda || !cuda->status().available || cuda->devices().empty()) GTEST_SKIP() << "no CUDA GPU on this host";
  const std::string yaml = data("cuda.yaml");
  const std::string cache = (dir_ / "cuda-cache").string();
  const e2e::Ran one = e2e::run("conv --quiet --space " + yaml + " --db " + db("cuda-one"));
  ASSERT_EQ(one.code, 0) << one.out;
  // A cache of its own, so rank 0 compiles every program of the distributed run.
  const e2e::Ran two = mpirun(2, "conv --space " + yaml + " --db " + db("cuda-two") + " --share-devices",
                              "PIMG_CACHE_DIR=" + cache);
  ASSERT_EQ(two.code, 0) << two.out;
  EXPECT_NE(two.out.find("programs compiled ahead on"), std::string::npos) << two.out;
  EXPECT_EQ(stored(db("cuda-two")), stored(db("cuda-one")));
  const std::vector<int> n = per_rank(two.out);
  ASSERT_EQ(n.size(), 2u) << two.out;
  EXPECT_EQ(n[0] + n[1], 32);
  // Both ranks measure (rank 0's own worker must outlive each of its jobs: a worker dies with the thread that
  // started it, and one started on a job's thread was restarted for every configuration).
  EXPECT_GE(n[0], 6) << two.out;
  EXPECT_GE(n[1], 6) << two.out;
  // Every evaluation says what compiling it ahead cost; none of them compiled it on its rank (its compile step is
  // a load from the cache: far below the compile ahead of the same program).
  EXPECT_EQ(e2e::query(db("cuda-two"), "SELECT count(DISTINCT evaluation_id) FROM metrics WHERE name = 'time.ahead_compile_ms'"),
            std::vector<std::string>{"32"});
}

// `pimg-tune t1 FILE` spreads over the ranks as the family commands do (cli/spread.hpp): each rank reads the file and
// finds the default configuration's reference, and the ranks store the search one process stores.
TEST_F(Distributed, AT1FileSpreadsOverTheRanks) {
  const pimg::Backend* opencl = pimg::Registry::builtin().backend("opencl");
  if (!opencl || !opencl->status().available || opencl->devices().empty()) GTEST_SKIP() << "no OpenCL device here";
  const std::string file = std::string(PIMG_TEST_DATA) + "/t1/sharpen.json";
  const e2e::Ran one = e2e::run("t1 " + file + " --quiet --db " + db("t1-one"));
  ASSERT_EQ(one.code, 0) << one.out;
  const e2e::Ran two = mpirun(2, "t1 " + file + " --quiet --db " + db("t1-two") + " --share-devices");
  ASSERT_EQ(two.code, 0) << two.out;
  EXPECT_NE(two.out.find("family t1-sharpen"), std::string::npos) << two.out;
  const std::vector<int> n = per_rank(two.out);
  ASSERT_EQ(n.size(), 2u) << two.out;
  EXPECT_GT(n[1], 0) << "rank 1 evaluated nothing:\n" << two.out;
  // The file's 7 configurations on each OpenCL device here (a GPU machine has PoCL beside its GPUs' platform).
  const std::string search = "SELECT c.canonical, e.status, e.validation FROM evaluations e JOIN configs c ON "
                             "c.id = e.config_id WHERE e.stage = 'search' ORDER BY c.canonical, e.status, e.validation";
  const auto one_rows = e2e::query(db("t1-one"), search);
  EXPECT_EQ(one_rows.size() % 7, 0u);
  EXPECT_EQ(static_cast<std::size_t>(n[0] + n[1]), one_rows.size());
  EXPECT_EQ(e2e::query(db("t1-two"), search), one_rows);
}

}  // namespace
