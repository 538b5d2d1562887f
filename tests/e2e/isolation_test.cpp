// Isolation end to end: one tuning run on PoCL and OpenMP with kernels that hang, crash and exhaust
// memory among ordinary ones; each failure is stored with its status, every other configuration
// is measured and validated. In-process (--no-isolation, measure.isolation: false) a crashing
// kernel takes the tuner down, which is what isolation is for.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

using e2e::data;
using e2e::temp_dir_with_cache;

}  // namespace

TEST(Isolation, HangCrashAndMemoryHogAreStoredAndTheRunGoesOn) {
  const fs::path dir = temp_dir_with_cache("isolation");
  const std::string db = (dir / "t.db").string();
  e2e::Ran r = e2e::run("conv --quiet --space " + data("selftests.yaml") + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  pimg::Store store(db, pimg::Store::Mode::existing);
  std::map<std::string, std::vector<pimg::ResultRow>> by_variant;
  for (auto& row : store.rows_with_samples()) by_variant[row.variant.name].push_back(row);
  auto only = [&](const std::string& variant, pimg::Status status, const std::string& log_part) {
    ASSERT_EQ(by_variant[variant].size(), 1u) << variant;
    const auto& row = by_variant[variant][0];
    EXPECT_EQ(row.result.status, status) << variant << ": " << row.result.log;
    EXPECT_NE(row.result.log.find(log_part), std::string::npos) << variant << ": " << row.result.log;
  };
  for (const char* v : {"selftest_hang", "selftest_hang_omp"})
    only(v, pimg::Status::timeout, "did not return within the 2.0 s timeout; the worker was killed");
  for (const char* v : {"selftest_crash", "selftest_crash_omp"})
    only(v, pimg::Status::crash, "killed by signal 11");
  only("selftest_memory_omp", pimg::Status::crash, "selftest_memory_omp: out of memory after");
  only("selftest_memory", pimg::Status::crash, "worker killed by signal");
  only("selftest_harness_omp", pimg::Status::harness_error, "plan() failed in the variant's own code");
  const std::map<std::string, std::size_t> expected_ok = {
      {"omp_rows", 2}, {"omp_tiles", 1}, {"cl_direct", 2}, {"cl_tiled", 1}};
  for (const auto& [variant, n] : expected_ok) {
    ASSERT_EQ(by_variant[variant].size(), n) << variant << "\n" << r.out;
    for (const auto& row : by_variant[variant]) {
      EXPECT_EQ(row.result.status, pimg::Status::ok) << variant << ": " << row.result.log;
      EXPECT_EQ(row.result.validation, "exact") << variant;
      EXPECT_EQ(row.result.kernel_ms.size(), 3u) << variant;
    }
  }
  fs::remove_all(dir);
}

TEST(Isolation, InProcessACrashingKernelEndsTheRun) {
  const fs::path dir = temp_dir_with_cache("in-process");
  const std::string space = (dir / "crash.yaml").string();
  const std::string text =
      "family: conv\nproblems: [{filter: sharpen3, sizes: [16x16]}]\nbackends: [openmp]\n"
      "variants: {selftest_crash_omp: {}}\nmeasure: {warmups: 0, repeats: 1, max_repeats: 1, confirm: {top: 0}";
  std::ofstream(space) << text << "}\n";
  e2e::Ran flag = e2e::run("conv --quiet --no-isolation --space " + space + " --db " + (dir / "a.db").string());
  EXPECT_EQ(flag.signal, SIGSEGV) << flag.code << "\n" << flag.out;
  std::ofstream(space) << text << ", isolation: false}\n";
  e2e::Ran setting = e2e::run("conv --quiet --space " + space + " --db " + (dir / "b.db").string());
  EXPECT_EQ(setting.signal, SIGSEGV) << setting.code << "\n" << setting.out;
  std::ofstream(space) << text << "}\n";
  e2e::Ran isolated = e2e::run("conv --quiet --space " + space + " --db " + (dir / "c.db").string());
  EXPECT_EQ(isolated.code, 4) << isolated.out;  // stored as a crash, the run goes on; nothing passed: exit code 4
  EXPECT_EQ(e2e::query((dir / "c.db").string(), "SELECT status FROM evaluations"),
            std::vector<std::string>{"crash"});
  // A store that holds a passing configuration: a later run that measures only the crashing one (a killed run's
  // leftovers, a variant added) ends as one run of both would have, with exit code 0, and says what failed.
  const std::string both = (dir / "both.yaml").string();
  std::ofstream(both) << "family: conv\nproblems: [{filter: sharpen3, sizes: [16x16]}]\nbackends: [openmp]\n"
                         "variants: {omp_rows: {threads: 1, schedule: static, chunk: 1, unroll: 0, arith: mul, simd: 0}}\n"
                         "measure: {warmups: 0, repeats: 1, max_repeats: 1, confirm: {top: 0}}\n";
  e2e::Ran good = e2e::run("conv --quiet --space " + both + " --db " + (dir / "d.db").string());
  ASSERT_EQ(good.code, 0) << good.out;
  e2e::Ran leftover = e2e::run("conv --quiet --space " + space + " --db " + (dir / "d.db").string());
  EXPECT_EQ(leftover.code, 0) << leftover.out;
  EXPECT_NE(leftover.out.find("none of the 1 configurations this run measured passed"), std::string::npos)
      << leftover.out;
  fs::remove_all(dir);
}
