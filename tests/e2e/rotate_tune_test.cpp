// End to end: the pimg-tune binary tunes the reduced rotate space (tests/data/e2e/rotate-small.yaml) on PoCL,
// OpenMP and the host into a temporary database: every row ok and validated (OpenCV's under its own rule), a
// report with the family's section, and `best` ranking the tuned variants. The shipped CPU space must load.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

class RotateEndToEnd : public e2e::DirSuite<RotateEndToEnd> {
 protected:
  static void SetUpTestSuite() {
    make_dir("rotate-e2e");
    own_cache();
    first_ = e2e::run("rotate --space " + std::string(PIMG_TEST_DATA) + "/e2e/rotate-small.yaml --db " + db() +
                      " --report " + (dir_ / "report" / "rotate.md").string());
  }
  static std::string db() { return path("tune.db"); }
  static inline e2e::Ran first_;
};

TEST_F(RotateEndToEnd, TunesEveryConfigurationAndValidatesIt) {
  ASSERT_EQ(first_.code, 0) << first_.out;
  pimg::Store store(db(), pimg::Store::Mode::existing);
  std::map<std::string, std::map<std::string, int>> by_variant;  // variant -> status -> count
  for (const auto& r : store.rows()) {
    by_variant[r.variant.name][pimg::to_string(r.result.status)]++;
    if (r.result.status != pimg::Status::ok) continue;
    EXPECT_EQ(r.result.validation, r.variant.name == "opencv_warp" ? "exact (rule opencv)" : "exact");
    EXPECT_GT(r.result.kernel.median, 0);
  }
  // Configurations x 2 problems; OpenCV only where the build has it.
  std::map<std::string, int> expected = {{"omp_rows", 4 * 2}, {"omp_tiles", 2}, {"serial", 2}, {"cl_direct", 4 * 2},
                                         {"cl_image", 2}};
  if (by_variant.count("opencv_warp")) expected["opencv_warp"] = 2;
  for (const auto& [variant, n] : expected) {
    EXPECT_EQ(by_variant[variant]["ok"], n) << variant << "\n" << first_.out;
    EXPECT_EQ(by_variant[variant].size(), 1u) << variant << " has failures\n" << first_.out;
  }
}

TEST_F(RotateEndToEnd, ReportAndBest) {
  ASSERT_EQ(first_.code, 0) << first_.out;
  ASSERT_TRUE(fs::exists(dir_ / "report" / "rotate.md"));
  const std::string text = e2e::slurp(dir_ / "report" / "rotate.md");
  EXPECT_NE(text.find("rotate"), std::string::npos);
  EXPECT_NE(text.find("cl_direct"), std::string::npos);
  const e2e::Ran best = e2e::run("best rotate --json --db " + db());
  ASSERT_EQ(best.code, 0) << best.out;
  EXPECT_NE(best.out.find("\"backend\":\"openmp\""), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("\"backend\":\"opencl\""), std::string::npos) << best.out;
}

TEST(RotateSpaces, CpuSpaceListsAndBadAttributesExitTwo) {
  EXPECT_NO_THROW(pimg::load_space(std::string(PIMG_SOURCE_DIR) + "/spaces/rotate.yaml", pimg::Registry::builtin()));
  const fs::path dir = e2e::temp_dir("rotate-bad");
  const fs::path bad = dir / "bad.yaml";
  std::ofstream(bad) << "family: rotate\nproblems:\n  - {angle: 30, fill: 300, sizes: [64]}\nbackends: [host]\n"
                        "variants:\n  serial: {}\n";
  const e2e::Ran ran = e2e::run("rotate --space " + bad.string() + " --db " + (dir / "x.db").string());
  EXPECT_EQ(ran.code, 2) << ran.out;
  EXPECT_NE(ran.out.find("bad.yaml:3:"), std::string::npos) << ran.out;
  EXPECT_NE(ran.out.find("fill"), std::string::npos) << ran.out;
  EXPECT_FALSE(fs::exists(dir / "x.db"));
  fs::remove_all(dir);
}

}  // namespace
