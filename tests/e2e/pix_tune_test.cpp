// End to end: the pimg-tune binary tunes reduced spaces of bgr2rgba, flip and maxpool on PoCL, OpenMP
// and the host into one database; every configuration is stored ok and validated exactly, the shipped
// CPU spaces load, and best and report read the three families back.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

class PixTune : public e2e::DirSuite<PixTune> {
 protected:
  static void SetUpTestSuite() {
    make_dir("pix-e2e");
    own_cache();
    for (const char* family : {"bgr2rgba", "flip", "maxpool"})
      runs_[family] = e2e::run(std::string(family) + " --quiet --space " + std::string(PIMG_TEST_DATA) + "/e2e/" +
                               family + "-small.yaml --db " + db());
  }
  static std::string db() { return path("pix.db"); }
  static inline std::map<std::string, e2e::Ran> runs_;
};

TEST_F(PixTune, EveryConfigurationStoredOkAndExact) {
  for (const auto& [family, ran] : runs_) ASSERT_EQ(ran.code, 0) << family << "\n" << ran.out;
  pimg::Store store(db(), pimg::Store::Mode::existing);
  std::map<std::string, std::map<std::string, int>> ok;  // family -> variant -> ok rows
  for (const auto& r : store.rows()) {
    EXPECT_EQ(pimg::to_string(r.result.status), std::string("ok")) << r.variant.name << ": " << r.result.log;
    EXPECT_EQ(r.result.validation, "exact") << r.variant.name;
    EXPECT_GT(r.result.kernel.median, 0);
    ok[r.problem.family][r.variant.name]++;
  }
  // Space sizes x problems.
  EXPECT_EQ(ok["bgr2rgba"]["omp_rows"], 4);
  EXPECT_EQ(ok["bgr2rgba"]["cl_grid"], 4);    // covering arrays (the spaces' comments)
  EXPECT_EQ(ok["bgr2rgba"]["cl_staged"], 2);
  EXPECT_EQ(ok["bgr2rgba"]["cl_vec16"], 2);
  EXPECT_EQ(ok["flip"]["omp_rows"], 2 * 4);
  EXPECT_EQ(ok["flip"]["omp_tiles"], 2 * 4);
  EXPECT_EQ(ok["flip"]["cl_flip"], 2 * 4);
  EXPECT_EQ(ok["flip"]["cl_flip_inplace"], 2 * 4);
  EXPECT_EQ(ok["maxpool"]["cl_vec16"], 2 * 4);
  EXPECT_EQ(ok["maxpool"]["cl_tree"], 4);
  EXPECT_EQ(ok["maxpool"]["serial"], 4);
}

TEST_F(PixTune, BestAndReportReadEachFamily) {
  for (const char* family : {"bgr2rgba", "flip", "maxpool"}) {
    const e2e::Ran best = e2e::run(std::string("best ") + family + " --db " + db());
    EXPECT_EQ(best.code, 0) << best.out;
    const std::string out = (dir_ / (std::string(family) + ".md")).string();
    const e2e::Ran report = e2e::run("report --db " + db() + " --family " + family + " --out " + out);
    ASSERT_EQ(report.code, 0) << report.out;
    EXPECT_NE(e2e::slurp(out).find(family), std::string::npos);
  }
}

// A variant that fits only some problems skips the others (said once, nothing stored) and runs the rest.
TEST(PixSpaces, VariantSkipsTheProblemsItCannotRun) {
  const fs::path dir = e2e::temp_dir("pix-skip");
  const std::string db = (dir / "skip.db").string();
  const e2e::Ran ran = e2e::run("maxpool --space " + std::string(PIMG_TEST_DATA) + "/e2e/maxpool-skip.yaml --db " + db);
  ASSERT_EQ(ran.code, 0) << ran.out;
  EXPECT_NE(ran.out.find("cl_rgb skips maxpool 64x4 c1"), std::string::npos) << ran.out;
  pimg::Store store(db, pimg::Store::Mode::existing);
  std::map<std::string, int> rows;  // variant -> ok rows
  for (const auto& r : store.rows()) {
    EXPECT_EQ(pimg::to_string(r.result.status), std::string("ok")) << r.variant.name << ": " << r.result.log;
    if (r.variant.name == "cl_rgb") EXPECT_EQ(r.problem.channels, 3);
    rows[r.variant.name]++;
  }
  EXPECT_EQ(rows["cl_rgb"], 2 * 2);     // two configurations x the two 3-channel problems
  EXPECT_EQ(rows["cl_direct"], 3);      // every problem
  fs::remove_all(dir);
}

TEST(PixSpaces, ShippedCpuSpacesLoad) {
  for (const char* space : {"bgr2rgba.yaml", "flip.yaml", "maxpool.yaml"}) {
    SCOPED_TRACE(space);
    EXPECT_NO_THROW(pimg::load_space(std::string(PIMG_SOURCE_DIR) + "/spaces/" + space, pimg::Registry::builtin()));
  }
}

}  // namespace
