// A batch of images in one launch end to end (the conv family's batch attribute, seed 003): pimg-tune tunes
// one image and a batch of 4 on the host, OpenMP and PoCL; the variants that compute one image per launch
// skip the batch, said once; every batch row validated exactly (all four images); the report and the
// Ladders section give the batch's time per image beside its time.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

TEST(BatchEndToEnd, EveryImageValidatedAndTimesPerImageReported) {
  const fs::path dir = e2e::temp_dir_with_cache("batch");
  const std::string db = (dir / "b.db").string(), report = (dir / "r.md").string();
  const e2e::Ran r = e2e::run("conv --space " + e2e::data("conv-batch.yaml") + " --db " + db + " --report " + report +
                              " </dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("cl_tiled skips conv 48x32 c3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("batch=4: this variant computes one image per launch"), std::string::npos) << r.out;

  pimg::Store store(db, pimg::Store::Mode::read_only);
  std::set<std::string> batch_variants;
  for (const auto& row : store.ranking_rows()) {
    EXPECT_EQ(row.result.status, pimg::Status::ok) << row.variant.name << " " << row.problem.label() << ": "
                                                   << row.result.log << row.result.validation;
    const bool batch = row.problem.attrs.count("batch") > 0;
    if (!batch) continue;
    batch_variants.insert(row.variant.name);
    EXPECT_EQ(row.problem.attrs.at("batch"), "4");
  }
  EXPECT_EQ(batch_variants, (std::set<std::string>{"cl_direct", "omp_rows", "serial"}));
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(DISTINCT e.config_id) FROM evaluations e JOIN problems p ON p.id = "
                           "e.problem_id JOIN variants v ON v.id = e.variant_id WHERE v.name = 'cl_direct' AND "
                           "p.canonical LIKE '%batch%'"),
            std::vector<std::string>{"2"});  // channel_z 0 and 1
  // One image is the problem as before batches: no batch attribute in its identity.
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM problems WHERE canonical LIKE '%batch%'"),
            std::vector<std::string>{"1"});

  const std::string md = e2e::slurp(report);
  EXPECT_NE(md.find("ms per image (/4)"), std::string::npos) << md;
  EXPECT_NE(md.find("per image of 4"), std::string::npos) << md;
  const auto ladders = md.find("## Ladders");
  ASSERT_NE(ladders, std::string::npos) << md;
  EXPECT_NE(md.find("batch=4", ladders), std::string::npos) << md.substr(ladders);
  EXPECT_NE(md.find("ms per image (/4)", ladders), std::string::npos) << md.substr(ladders);
  EXPECT_NE(md.find("| grid z = image, block z = channel |", ladders), std::string::npos) << md.substr(ladders);
  fs::remove_all(dir);
}
