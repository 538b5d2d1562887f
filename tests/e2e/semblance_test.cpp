// End to end: pimg-tune tunes a small semblance space (synthetic data, OpenMP, the serial baseline,
// PoCL with the device arg-max) into a database and a report, every configuration validated by the
// family's rule at the generating point; a broken SU file and a bad grid exit 2 with one line naming
// the problem and leave no database behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;
using e2e::run;

TEST(SemblanceEndToEnd, TunesTheSmallSpaceAndRecoversTheTruth) {
  const fs::path dir = e2e::temp_dir_with_cache("semblance-e2e");
  const std::string db = (dir / "tune.db").string();
  const e2e::Ran r = run("semblance --space " + e2e::data("semblance-small.yaml") + " --db " + db + " --report " +
                         (dir / "report" / "semblance.md").string());
  ASSERT_EQ(r.code, 0) << r.out;
  pimg::Store store(db, pimg::Store::Mode::existing);
  std::map<std::string, int> ok;
  for (const auto& row : store.rows()) {
    EXPECT_EQ(row.result.status, pimg::Status::ok) << row.variant.name << " " << row.config.brief() << ": "
                                                   << row.result.log;
    EXPECT_NE(row.result.validation.find("best (2,1,3,0,4)"), std::string::npos) << row.result.validation;
    ++ok[row.variant.name];
  }
  EXPECT_EQ(ok["omp_grid"], 4);
  EXPECT_EQ(ok["serial"], 1);
  EXPECT_EQ(ok["cl_grid"], 2);
  EXPECT_EQ(ok["cl_argmax"], 2);
  const std::string report = e2e::slurp(dir / "report" / "semblance.md");
  EXPECT_NE(report.find("GFLOP/s"), std::string::npos);
  EXPECT_NE(report.find("cl_argmax"), std::string::npos);
  fs::remove_all(dir);
}

TEST(SemblanceEndToEnd, BadDataExitsTwoNamingTheFile) {
  const fs::path dir = e2e::temp_dir("semblance-bad");
  const std::string db = (dir / "tune.db").string();
  const std::string su = std::string(PIMG_TEST_DATA) + "/su/truncated_samples.su";
  auto space = [&](const std::string& problem) {
    const fs::path path = dir / "space.yaml";
    std::ofstream(path) << "family: semblance\nproblems:\n  - " << problem
                        << "\nbackends: [host]\nvariants:\n  serial: {}\n";
    return path.string();
  };
  e2e::Ran r = run("semblance --space " + space("{data: " + su + "}") + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("truncated_samples.su: trace 1 (byte 512): truncated samples"), std::string::npos) << r.out;
  r = run("semblance --space " + space("{data: synthetic, sizes: [32x640], grid: \"4,4\"}") + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("space.yaml:3:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expected one integer or 5 comma-separated integers"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(db));
  fs::remove_all(dir);
}
