// End to end: the pimg-tune binary tunes reduced hist and histeq CPU spaces (tests/data/e2e/
// hist-small.yaml, histeq-small.yaml) on OpenMP, the host and PoCL into one database: every
// configuration stored ok and validated exactly, then the report has a section for each family.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

using e2e::Ran;
using e2e::run;

class HistEndToEnd : public e2e::DirSuite<HistEndToEnd> {
 protected:
  static void SetUpTestSuite() {
    make_dir("e2e-hist");
    own_cache();
    hist_ = run("hist --space " + data("hist-small.yaml") + " --db " + db());
    histeq_ = run("histeq --space " + data("histeq-small.yaml") + " --db " + db());
  }
  static std::string data(const std::string& name) { return e2e::data(name); }
  static std::string db() { return path("tune.db"); }
  // Per variant of `family`, how many rows have each status.
  static std::map<std::string, std::map<std::string, int>> statuses(const std::string& family) {
    pimg::Store store(db(), pimg::Store::Mode::existing);
    std::map<std::string, std::map<std::string, int>> out;
    pimg::RowFilter filter;
    filter.family = family;
    for (const auto& r : store.rows(filter)) {
      out[r.variant.name][pimg::to_string(r.result.status)]++;
      if (r.result.status == pimg::Status::ok) EXPECT_EQ(r.result.validation, "exact") << r.variant.name;
    }
    return out;
  }
  static inline Ran hist_, histeq_;
};

}  // namespace

TEST_F(HistEndToEnd, TunesEveryHistConfigurationExactly) {
  ASSERT_EQ(hist_.code, 0) << hist_.out;
  const auto by_variant = statuses("hist");
  // Configurations x 2 problems (1 and 3 channels).
  const std::map<std::string, int> expected = {{"omp_private", 2 * 2}, {"serial", 2},  {"cl_global", 2},
                                               {"cl_packed", 2},       {"cl_local", 2}, {"cl_outpart", 2}};
  for (const auto& [variant, n] : expected) {
    EXPECT_EQ(by_variant.count(variant) ? by_variant.at(variant).count("ok") ? by_variant.at(variant).at("ok") : 0 : 0, n)
        << variant << "\n" << hist_.out;
    EXPECT_EQ(by_variant.count(variant) ? by_variant.at(variant).size() : 0u, 1u) << variant << "\n" << hist_.out;
  }
}

TEST_F(HistEndToEnd, TunesEveryHisteqConfigurationExactly) {
  ASSERT_EQ(histeq_.code, 0) << histeq_.out;
  const auto by_variant = statuses("histeq");
  const std::map<std::string, int> expected = {{"omp_histeq", 2}, {"serial", 2}, {"cl_separate", 2 * 2}, {"cl_fused", 2}};
  for (const auto& [variant, n] : expected) {
    EXPECT_EQ(by_variant.count(variant) ? by_variant.at(variant).count("ok") ? by_variant.at(variant).at("ok") : 0 : 0, n)
        << variant << "\n" << histeq_.out;
    EXPECT_EQ(by_variant.count(variant) ? by_variant.at(variant).size() : 0u, 1u) << variant << "\n" << histeq_.out;
  }
}

TEST_F(HistEndToEnd, ReportAndBestCoverBothFamilies) {
  ASSERT_EQ(hist_.code, 0);
  ASSERT_EQ(histeq_.code, 0);
  for (const char* family : {"hist", "histeq"}) {
    const std::string out = (dir_ / (std::string(family) + ".md")).string();
    const Ran report = run(std::string("report --db ") + db() + " --family " + family + " --out " + out);
    ASSERT_EQ(report.code, 0) << report.out;
    ASSERT_TRUE(fs::exists(out));
    const Ran best = run(std::string("best ") + family + " --json --db " + db());
    ASSERT_EQ(best.code, 0) << best.out;
    EXPECT_NE(best.out.find("\"backend\":\"opencl\""), std::string::npos) << best.out;
    EXPECT_NE(best.out.find("\"backend\":\"openmp\""), std::string::npos) << best.out;
  }
}
