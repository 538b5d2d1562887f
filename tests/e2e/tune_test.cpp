// End to end: the pimg-tune binary tunes a small conv space on PoCL, OpenMP and the host into a
// temporary database, every ok row validated, self-test variants stored as failures; then resume,
// best, report, devices, and bad input that must exit 2 and leave the database byte-identical; a search
// gets other sizes' results as priors only with --transfer.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

using e2e::Ran;
using e2e::run;
using e2e::slurp;

class TuneEndToEnd : public e2e::DirSuite<TuneEndToEnd> {
 protected:
  static void SetUpTestSuite() {
    make_dir("e2e");
    own_cache();
    first_ = run("conv --space " + data("conv-small.yaml") + " --db " + db() + " --report " +
                 (dir_ / "report" / "conv.md").string());
    // The store as the first run left it: the suite's tests run in one process (docs/ci.md), and a later test's
    // resumed run adds to tune.db what the first run's report could not know.
    if (fs::exists(db())) fs::copy_file(db(), first_db());
  }
  static std::string first_db() { return path("first.db"); }
  static std::string data(const std::string& name) { return e2e::data(name); }
  static std::string db() { return path("tune.db"); }
  static inline Ran first_;
};

}  // namespace

TEST_F(TuneEndToEnd, TunesEveryConfigurationAndValidatesIt) {
  ASSERT_EQ(first_.code, 0) << first_.out;
  pimg::Store store(db(), pimg::Store::Mode::existing);
  auto rows = store.rows();
  std::map<std::string, std::map<std::string, int>> by_variant;  // variant -> status -> count
  for (const auto& r : rows) by_variant[r.variant.name][pimg::to_string(r.result.status)]++;
  // Space sizes x 3 problems.
  const std::map<std::string, int> expected_ok = {{"cl_direct", 8 * 3}, {"cl_tiled", 2 * 3},  {"cl_image", 3},
                                                  {"omp_rows", 4 * 3},  {"omp_tiles", 3},     {"serial", 3}};
  for (const auto& [variant, n] : expected_ok) {
    EXPECT_EQ(by_variant[variant]["ok"], n) << variant << "\n" << first_.out;
    EXPECT_EQ(by_variant[variant].size(), 1u) << variant << " has failures\n" << first_.out;
  }
  EXPECT_EQ(by_variant["selftest_compile_error"]["compile_error"], 3);
  EXPECT_EQ(by_variant["selftest_wrong_result"]["wrong_result"], 3);
  EXPECT_EQ(by_variant["selftest_wrong_result_omp"]["wrong_result"], 3);
  // Every wrong result keeps the fingerprint of the output it wrote (the report groups equal ones).
  EXPECT_EQ(e2e::query(db(), "SELECT COUNT(DISTINCT e.id) FROM evaluations e JOIN metrics m ON m.evaluation_id = e.id "
                             "WHERE e.status = 'wrong_result' AND m.name = 'validation.output_hash'"),
            e2e::query(db(), "SELECT COUNT(*) FROM evaluations WHERE status = 'wrong_result'"));
  for (const auto& r : rows) {
    if (r.result.status == pimg::Status::ok) {
      EXPECT_EQ(r.result.validation, "exact");
      EXPECT_GT(r.result.kernel.median, 0);
    } else {
      EXPECT_FALSE(r.result.log.empty()) << r.variant.name;
    }
  }
  auto samples = store.rows_with_samples();
  for (const auto& r : samples)
    if (r.result.status == pimg::Status::ok) EXPECT_EQ(r.result.kernel_ms.size(), 3u);
  EXPECT_EQ(store.bandwidths().size(), 3u);  // PoCL and OpenMP (copy kernel or native copy), the host's memcpy
}

TEST_F(TuneEndToEnd, RerunMeasuresNothingAndKeepsRows) {
  ASSERT_EQ(first_.code, 0);
  std::size_t before = pimg::Store(db(), pimg::Store::Mode::existing).rows().size();
  Ran again = run("conv --quiet --space " + data("conv-small.yaml") + " --db " + db());
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find(" 0 measured"), std::string::npos) << again.out;
  EXPECT_EQ(pimg::Store(db(), pimg::Store::Mode::existing).rows().size(), before);
}

TEST_F(TuneEndToEnd, BestAndReport) {
  ASSERT_EQ(first_.code, 0);
  Ran best = run("best conv --json --db " + db());
  ASSERT_EQ(best.code, 0) << best.out;
  EXPECT_NE(best.out.find("\"backend\":\"opencl\""), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("\"backend\":\"openmp\""), std::string::npos) << best.out;
  EXPECT_EQ(best.out.find("selftest"), std::string::npos) << "failed variants must not be ranked";
  Ran table = run("best conv --top 3 --size 96x64 --db " + db());
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_EQ(table.out.find("64x48"), std::string::npos) << table.out;

  fs::path md = dir_ / "report" / "conv.md";
  ASSERT_TRUE(fs::exists(md));
  std::string text = slurp(md);
  int svgs = 0;
  for (const auto& e : fs::directory_iterator(md.parent_path()))
    if (e.path().extension() == ".svg") {
      ++svgs;
      EXPECT_NE(slurp(e.path()).find("<svg"), std::string::npos);
      EXPECT_NE(text.find(e.path().filename().string()), std::string::npos) << "plot not linked";
    }
  EXPECT_GE(svgs, 3);
  EXPECT_NE(text.find("compile_error"), std::string::npos) << "failure summary missing";
  // The tune's picture stage wrote pictures/ beside its report; with the same pictures beside it, the report
  // command writes the same text.
  ASSERT_TRUE(fs::exists(md.parent_path() / "pictures" / "pictures.tsv"));
  fs::create_directories(dir_ / "r2");
  fs::copy(md.parent_path() / "pictures", dir_ / "r2" / "pictures", fs::copy_options::recursive);
  Ran report = run("report --db " + first_db() + " --out " + (dir_ / "r2" / "conv.md").string());
  EXPECT_EQ(report.code, 0) << report.out;
  EXPECT_EQ(slurp(dir_ / "r2" / "conv.md"), text)
      << "the report is a pure function of the store (and of the pictures beside it)";
}

TEST_F(TuneEndToEnd, BadInputExitsTwoAndLeavesTheDatabaseAlone) {
  ASSERT_EQ(first_.code, 0);
  std::string before = slurp(db());
  Ran bad = run("conv --space " + data("bad-constraint.yaml") + " --db " + db());
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("bad-constraint.yaml:10:"), std::string::npos) << bad.out;
  EXPECT_EQ(slurp(db()), before);

  Ran flag = run("conv --space " + data("conv-small.yaml") + " --db " + db() + " --repeats zero");
  EXPECT_EQ(flag.code, 2) << flag.out;
  Ran device = run("conv --space " + data("conv-small.yaml") + " --db " + db() + " --device no-such-gpu");
  EXPECT_EQ(device.code, 2) << device.out;
  EXPECT_NE(device.out.find("no-such-gpu"), std::string::npos) << device.out;
  Ran missing = run("conv --space " + data("no-such-file.yaml") + " --db " + db());
  EXPECT_EQ(missing.code, 2) << missing.out;
  EXPECT_EQ(slurp(db()), before);

  Ran nodb = run("best conv --db " + (dir_ / "absent.db").string());
  EXPECT_EQ(nodb.code, 2) << nodb.out;
  EXPECT_FALSE(fs::exists(dir_ / "absent.db"));
  Ran family = run("best nosuchfamily --db " + db());
  EXPECT_EQ(family.code, 2) << family.out;
  EXPECT_EQ(run("frobnicate").code, 2);
}

// A run in which no configuration passes exits with code 4 and says so; so does a resumed one that measures nothing
// new while the store holds no passing configuration of the family. The failures are stored with their reason.
TEST(TuneExitCode, NothingPassedIsFour) {
  const fs::path dir = e2e::temp_dir_with_cache("all-fail");
  const std::string db = (dir / "t.db").string();
  const std::string args = "conv --quiet --space " + std::string(PIMG_TEST_DATA) + "/e2e/all-fail.yaml --db " + db;
  Ran r = run(args);
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("none of the 1 configurations this run measured passed"), std::string::npos) << r.out;
  EXPECT_EQ(e2e::query(db, "SELECT status, log != '' FROM evaluations"), std::vector<std::string>{"wrong_result|1"});
  r = run(args);
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("no configuration of this family passed, in this run or before"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// Random search knows its draws before their outcomes (Strategy::ahead): on the CPU its 3 programs are compiled on
// every core before the first is measured, as an exhaustive search's are (before, only a search that visits the whole
// space compiled ahead), and exactly those 3 are measured.
TEST(CompileAhead, RandomSearchCompilesItsDrawsBeforeMeasuring) {
  const fs::path dir = e2e::temp_dir("random-ahead");
  const std::string db = (dir / "t.db").string();
  const Ran r = e2e::run("conv --space " + std::string(PIMG_TEST_DATA) + "/e2e/random-ahead.yaml --db " + db,
                         "PIMG_CACHE_DIR=" + (dir / "cache").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("openmp:0 omp_rows: 3 programs compiled ahead on "), std::string::npos) << r.out;
  EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM evaluations WHERE stage = 'search' AND status = 'ok'"),
            std::vector<std::string>{"3"});
  fs::remove_all(dir);
}

TEST(Cli, DevicesAndList) {
  Ran d = run("devices");
  ASSERT_EQ(d.code, 0) << d.out;
  EXPECT_NE(d.out.find("opencl:0"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("openmp:0"), std::string::npos) << d.out;
  EXPECT_NE(d.out.find("host:0"), std::string::npos) << d.out;
  Ran l = run("list");
  ASSERT_EQ(l.code, 0) << l.out;
  for (const char* name : {"cl_direct", "cl_tiled", "cl_image", "omp_rows", "omp_tiles", "serial", "exhaustive"})
    EXPECT_NE(l.out.find(name), std::string::npos) << name;
}

// A search learns from the family's stored results of other sizes and devices only when asked, and
// then says which it was given.
TEST(TuneTransfer, PriorsOnlyWithTransferAndNamed) {
  const fs::path dir = e2e::temp_dir("tune-transfer");
  const std::string tune = "conv --space " + e2e::data("conv-transfer.yaml") + " --db " + (dir / "t.db").string() +
                           " --no-isolation --size ";
  Ran first = run(tune + "32x16");
  ASSERT_EQ(first.code, 0) << first.out;
  Ran plain = run(tune + "48x16");
  ASSERT_EQ(plain.code, 0) << plain.out;
  EXPECT_EQ(plain.out.find("priors"), std::string::npos) << plain.out;
  Ran transfer = run(tune + "48x16 --no-resume --transfer");
  ASSERT_EQ(transfer.code, 0) << transfer.out;
  EXPECT_NE(transfer.out.find("pthread_rows: priors (--transfer): host:"), std::string::npos) << transfer.out;
  EXPECT_NE(transfer.out.find(" conv 32x16 c1 "), std::string::npos) << transfer.out;
  EXPECT_NE(transfer.out.find(" (3)"), std::string::npos) << transfer.out;
  fs::remove_all(dir);
}
