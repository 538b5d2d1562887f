// End to end: `pimg-tune conv --report` writes the picture stage's PNGs beside the report (the input, each
// device's best output, a failed output and its difference), the manifest lists them, the pictures read
// back as what the family's reference says, and the markdown and HTML reports show their thumbnails.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "e2e/e2e_util.hpp"
#include "pimg/picture.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"

namespace fs = std::filesystem;

TEST(PictureTune, ReportShowsInputBestAndFailedOutputs) {
  const fs::path dir = e2e::temp_dir("pictures-e2e");
  const std::string space = std::string(PIMG_TEST_DATA) + "/e2e/conv-pictures.yaml";
  const e2e::Ran ran = e2e::run("conv --quiet --space " + space + " --db " + (dir / "p.db").string() + " --report " +
                                    (dir / "report" / "conv.md").string(),
                                "PIMG_CACHE_DIR=" + (dir / "cache").string());
  ASSERT_EQ(ran.code, 0) << ran.out;
  const fs::path pics = dir / "report" / "pictures";
  const auto entries = pimg::parse_pictures_manifest(e2e::slurp((pics / "pictures.tsv").string()));
  std::map<std::string, std::vector<pimg::PictureEntry>> by_kind;
  for (const auto& e : entries) by_kind[e.kind].push_back(e);
  ASSERT_EQ(by_kind["input"].size(), 1u) << ran.out;
  ASSERT_EQ(by_kind["best"].size(), 2u) << ran.out;  // openmp:0 and host:0
  ASSERT_EQ(by_kind["wrong"].size(), 1u) << ran.out;
  ASSERT_EQ(by_kind["difference"].size(), 1u) << ran.out;
  for (const auto& e : entries) {
    EXPECT_TRUE(fs::exists(pics / e.file)) << e.file;
    EXPECT_TRUE(fs::exists(pics / e.thumb)) << e.thumb;
  }

  // The pictures are the family's input and reference, byte for byte (PNG is lossless).
  const auto reg = pimg::Registry::make_builtin();
  const pimg::Space s = pimg::load_space(space, *reg);
  const pimg::Family& fam = *reg->family("conv");
  const pimg::Problem& p = s.problems.at(0);
  const pimg::Workload w = fam.make_workload(p);
  const auto shapes = fam.pictures(p);
  ASSERT_TRUE(shapes);
  const std::vector<std::uint8_t> ref = fam.reference(p, w);
  EXPECT_EQ(pimg::load_image((pics / by_kind["input"][0].file).string(), 3).pixels,
            pimg::to_picture(shapes->input, w.input("in").bytes).pixels);
  for (const auto& best : by_kind["best"]) {
    EXPECT_EQ(pimg::load_image((pics / best.file).string(), 3).pixels, pimg::to_picture(shapes->output, ref).pixels)
        << best.device;
    EXPECT_EQ(best.note, "exact");
  }
  EXPECT_EQ(by_kind["wrong"][0].variant, "selftest_wrong_result_omp");
  // The self-test writes one byte off by one: one red pixel in the difference.
  const pimg::Image diff = pimg::load_image((pics / by_kind["difference"][0].file).string(), 3);
  int red = 0;
  for (std::size_t i = 0; i < diff.pixels.size(); i += 3) red += diff.pixels[i] >= 96 && diff.pixels[i + 1] == 0;
  EXPECT_EQ(red, 1);
  EXPECT_EQ(by_kind["difference"][0].note, "1 of 960 pixels differ (red)");

  const std::string md = e2e::slurp((dir / "report" / "conv.md").string());
  EXPECT_NE(md.find("## Output pictures"), std::string::npos);
  EXPECT_NE(md.find("(pictures/" + by_kind["difference"][0].thumb + ")"), std::string::npos);
  const std::string html = e2e::slurp((dir / "report" / "conv.html").string());
  EXPECT_NE(html.find("<img class=\"thumb\" src=\"pictures/" + by_kind["best"][0].thumb + "\""), std::string::npos);

  // The report command finds the same pictures beside its output.
  const e2e::Ran report = e2e::run("report --db " + (dir / "p.db").string() + " --family conv --out " +
                                   (dir / "report" / "again.md").string());
  ASSERT_EQ(report.code, 0) << report.out;
  EXPECT_NE(e2e::slurp((dir / "report" / "again.md").string()).find("## Output pictures"), std::string::npos);
  fs::remove_all(dir);
}
