// Crash safety end to end: kill -9 of the tuner at random moments, each time followed by an
// integrity check of the database (no half-written configuration, no orphaned worker) and a
// resumed run; at the end the stored set equals an uninterrupted run's and no configuration was
// measured twice. Then two tuners on one new database at once: neither corrupts it or loses rows.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "e2e/e2e_util.hpp"

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

using e2e::data;
using e2e::temp_dir_with_cache;

// What a database holds, one line per stored evaluation, independent of ids and timings.
std::vector<std::string> stored_set(const std::string& db) {
  auto rows = e2e::query(db,
                         "SELECT d.backend, p.canonical, v.name, c.canonical, e.status FROM evaluations e "
                         "JOIN devices d ON d.id = e.device_id JOIN problems p ON p.id = e.problem_id "
                         "JOIN variants v ON v.id = e.variant_id JOIN configs c ON c.id = e.config_id");
  std::sort(rows.begin(), rows.end());
  return rows;
}

// The pids whose parent is `parent` (the tuner's workers).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = e2e::slurp(e.path() / "stat");
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != 'Z') out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

bool gone_within(pid_t pid, double seconds) {
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < seconds) {
    if (::kill(pid, 0) != 0) return true;
    std::string stat = e2e::slurp("/proc/" + std::to_string(pid) + "/stat");
    std::size_t close = stat.rfind(')');
    if (close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Integrity, and no half-written configuration: every ok evaluation has all its samples, every
// failed one none beyond what it ran, and every row's references resolve.
void expect_consistent(const std::string& db, const std::string& when) {
  EXPECT_EQ(e2e::query(db, "PRAGMA integrity_check"), std::vector<std::string>{"ok"}) << when;
  // A kill between the file's creation and its schema's commit leaves a database with no tables: nothing stored,
  // nothing lost (the next run fills it; a reading command calls it empty, not a pimg-tune database).
  if (e2e::query(db, "SELECT count(*) FROM sqlite_master") == std::vector<std::string>{"0"}) return;
  EXPECT_EQ(e2e::query(db, "PRAGMA foreign_key_check"), std::vector<std::string>{}) << when;
  EXPECT_EQ(e2e::query(db,
                       "SELECT e.id FROM evaluations e WHERE e.status = 'ok' AND "
                       "(SELECT count(*) FROM samples s WHERE s.evaluation_id = e.id) != 2"),
            std::vector<std::string>{})
      << when << ": an ok evaluation without its 2 samples";
  EXPECT_EQ(e2e::query(db, "SELECT evaluation_id FROM samples WHERE evaluation_id NOT IN (SELECT id FROM evaluations)"),
            std::vector<std::string>{})
      << when;
}

}  // namespace

TEST(CrashSafety, KillNineAtRandomMomentsThenResumeEqualsAnUninterruptedRun) {
  const fs::path dir = temp_dir_with_cache("kill-loop");
  const std::string space = data("kill-loop.yaml");
  const std::string reference = (dir / "reference.db").string(), db = (dir / "killed.db").string();
  // The uninterrupted run, twice: the first fills the compile cache, the second times a run.
  ASSERT_EQ(e2e::run("conv --quiet --space " + space + " --db " + (dir / "warm.db").string()).code, 0);
  const auto t0 = Clock::now();
  e2e::Ran ref = e2e::run("conv --quiet --space " + space + " --db " + reference);
  const double run_s = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_EQ(ref.code, 0) << ref.out;
  const auto expected = stored_set(reference);
  ASSERT_GE(expected.size(), 20u);

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  // Targeted, not many: each kill lands in its own slice of the run's time (the first in the start-up, the
  // last near the end), at a random moment inside it.
  constexpr int kKills = 6;
  std::uniform_real_distribution<double> within(0.0, 1.0);
  int finished_early = 0;
  for (int i = 0; i < kKills; ++i) {
    const double after = run_s * (i + within(rng)) / kKills;
    const std::string what = "kill " + std::to_string(i) + " after " + std::to_string(after) + " s (seed " +
                             std::to_string(seed) + ")";
    pid_t pid = e2e::spawn({"conv", "--quiet", "--space", space, "--db", db}, (dir / "log.txt").string());
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::duration<double>(after));
    const std::vector<pid_t> workers = children_of(pid);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) ++finished_early;  // the run was done before the kill
    for (pid_t w : workers) EXPECT_TRUE(gone_within(w, 5)) << what << ": worker " << w << " outlived the tuner";
    if (fs::exists(db)) expect_consistent(db, what);
  }
  e2e::Ran last = e2e::run("conv --quiet --space " + space + " --db " + db);
  // Exit code 0 also where the kills left only the space's failing configurations (its self-tests) to this run: the
  // resumption ends as the uninterrupted run would have (docs/guide.md).
  ASSERT_EQ(last.code, 0) << last.out;
  expect_consistent(db, "after the last run");
  EXPECT_EQ(stored_set(db), expected) << "seed " << seed;
  EXPECT_EQ(e2e::query(db,
                       "SELECT device_id, problem_id, variant_id, config_id FROM evaluations "
                       "GROUP BY 1, 2, 3, 4 HAVING count(*) > 1"),
            std::vector<std::string>{})
      << "a configuration was measured twice (seed " << seed << ")";
  EXPECT_LT(finished_early, kKills) << "no kill landed during a run";
  fs::remove_all(dir);
}

// Ctrl-C (SIGINT to the tuner, as a terminal sends it): the tuner says that what it stored is kept and how to
// resume, ends as the signal ends a process, and leaves no worker behind; the resume command it printed finishes
// the run.
TEST(CrashSafety, CtrlCSaysHowToResumeAndKeepsWhatWasMeasured) {
  const fs::path dir = temp_dir_with_cache("ctrl-c");
  const std::string space = data("kill-loop.yaml"), db = (dir / "t.db").string(), log = (dir / "log.txt").string();
  pid_t pid = e2e::spawn({"conv", "--quiet", "--space", space, "--db", db}, log);
  ASSERT_GT(pid, 0);
  const auto stored = [&] {
    const auto n = fs::exists(db) ? e2e::query(db, "SELECT count(*) FROM evaluations") : std::vector<std::string>{};
    return n.size() == 1 && n[0].find_first_not_of("0123456789") == std::string::npos ? std::stoi(n[0]) : 0;
  };
  const auto t0 = Clock::now();
  while (stored() < 3 && std::chrono::duration<double>(Clock::now() - t0).count() < 60)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::vector<pid_t> workers = children_of(pid);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  const std::string out = e2e::slurp(log);
  if (WIFEXITED(status)) GTEST_SKIP() << "the run ended before the interrupt: " << out;
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status << "\n" << out;
  const std::string said = "pimg-tune: interrupted; every result stored so far is kept; resume with: ";
  const auto at = out.find(said);
  ASSERT_NE(at, std::string::npos) << out;
  const std::string resume = out.substr(at + said.size(), out.find('\n', at) - at - said.size());
  EXPECT_NE(resume.find(" conv --quiet --space " + space + " --db " + db), std::string::npos) << resume;
  for (pid_t w : workers) EXPECT_TRUE(gone_within(w, 5)) << "worker " << w << " outlived the tuner";
  expect_consistent(db, "after the interrupt");
  const int kept = stored();
  EXPECT_GE(kept, 3);
  e2e::Ran resumed = e2e::run("conv --quiet --space " + space + " --db " + db);
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  EXPECT_NE(resumed.out.find(std::to_string(kept) + " already stored"), std::string::npos) << resumed.out;
  fs::remove_all(dir);
}

TEST(CrashSafety, TwoTunersOnOneDatabaseLoseNothing) {
  const fs::path dir = temp_dir_with_cache("two-tuners");
  const std::string space = data("kill-loop.yaml");
  const std::string db = (dir / "shared.db").string();
  pid_t a = e2e::spawn({"conv", "--quiet", "--space", space, "--db", db, "--no-resume"}, (dir / "a.txt").string());
  pid_t b = e2e::spawn({"conv", "--quiet", "--space", space, "--db", db, "--no-resume"}, (dir / "b.txt").string());
  int sa = 0, sb = 0;
  ::waitpid(a, &sa, 0);
  ::waitpid(b, &sb, 0);
  const std::string out_a = e2e::slurp(dir / "a.txt"), out_b = e2e::slurp(dir / "b.txt");
  ASSERT_TRUE(WIFEXITED(sa) && WEXITSTATUS(sa) == 0) << out_a;
  ASSERT_TRUE(WIFEXITED(sb) && WEXITSTATUS(sb) == 0) << out_b;
  expect_consistent(db, "two tuners");
  auto measured = [](const std::string& out) {  // "database: ... (run N: X measured, Y ok, ...)"
    std::size_t at = out.rfind(" measured, ");
    std::size_t from = out.rfind(' ', at - 1);
    return std::stoul(out.substr(from + 1, at - from - 1));
  };
  const std::size_t total = measured(out_a) + measured(out_b);
  EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM evaluations"), std::vector<std::string>{std::to_string(total)});
  EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM runs"), std::vector<std::string>{"2"});
  fs::remove_all(dir);
}
