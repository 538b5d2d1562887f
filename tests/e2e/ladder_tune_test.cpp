// A space with a ladder end to end: pimg-tune runs the search, then measures each step in interleaved
// rounds and stores it with stage 'ladder'; the report's Ladders section lists the steps in order with
// their speed-ups; rankings (best) never see the step rows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

TEST(LadderEndToEnd, StepsAreMeasuredStoredAndReported) {
  const fs::path dir = e2e::temp_dir_with_cache("ladder");
  const std::string db = (dir / "l.db").string(), report = (dir / "r.md").string();
  const e2e::Ran r = e2e::run("conv --quiet --space " + e2e::data("conv-ladder.yaml") + " --db " + db +
                              " --report " + report);
  ASSERT_EQ(r.code, 0) << r.out;
  pimg::Store store(db, pimg::Store::Mode::read_only);
  const auto steps = store.ladder_rows();
  ASSERT_EQ(steps.size(), 3u) << r.out;
  const char* names[] = {"serial", "one thread rolled", "two threads unrolled"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(steps[i].seq, i);
    EXPECT_EQ(steps[i].step, names[i]);
    EXPECT_EQ(steps[i].row.result.status, pimg::Status::ok) << steps[i].row.result.log;
    EXPECT_EQ(steps[i].row.result.stage, "ladder");
    EXPECT_EQ(steps[i].row.result.kernel_ms.size(), 0u);  // ladder_rows() reads no samples
    EXPECT_GT(steps[i].row.result.kernel.median, 0);
  }
  EXPECT_EQ(steps[1].row.config.integer("threads"), 1);
  EXPECT_EQ(steps[2].row.config.integer("unroll"), 1);
  // Each step was measured for the whole confirmation rounds (3), not the search's count.
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM samples s JOIN ladder_steps l ON l.evaluation_id = "
                           "s.evaluation_id WHERE l.seq = 1"),
            std::vector<std::string>{"3"});
  const std::string md = e2e::slurp(report);
  const auto ladders = md.find("## Ladders");
  ASSERT_NE(ladders, std::string::npos) << md;
  EXPECT_LT(md.find("| serial |", ladders), md.find("| one thread rolled |", ladders));
  EXPECT_LT(md.find("| one thread rolled |", ladders), md.find("| two threads unrolled |", ladders));
  for (const auto& row : store.ranking_rows()) EXPECT_NE(row.result.stage, "ladder");
  fs::remove_all(dir);
}

// --ladder-only: the ladder's steps and nothing else (no search, confirmation or whole-program rows).
TEST(LadderEndToEnd, LadderOnlyMeasuresTheStepsAlone) {
  const fs::path dir = e2e::temp_dir_with_cache("ladder-only");
  const std::string db = (dir / "l.db").string();
  const e2e::Ran r = e2e::run("conv --quiet --ladder-only --space " + e2e::data("conv-ladder.yaml") + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(e2e::query(db, "SELECT stage, COUNT(*) FROM evaluations GROUP BY stage"),
            std::vector<std::string>{"ladder|3"});
  // It says what it stored (not an empty ranking: "No ok results stored").
  EXPECT_NE(r.out.find("ladder e2e: 3 steps in the store"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("No ok results"), std::string::npos) << r.out;
  pimg::Store store(db, pimg::Store::Mode::read_only);
  const auto steps = store.ladder_rows();
  ASSERT_EQ(steps.size(), 3u);
  for (const auto& s : steps) EXPECT_EQ(s.row.result.status, pimg::Status::ok) << s.row.result.log;
  // The ladder alone measures no bandwidth ceiling (nothing of it reads one).
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM bandwidth"), std::vector<std::string>{"0"});
  // Resumed: every step stored, so a second call measures nothing; --no-resume measures the steps again.
  const e2e::Ran again = e2e::run("conv --ladder-only --space " + e2e::data("conv-ladder.yaml") + " --db " + db);
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("every step already stored"), std::string::npos) << again.out;
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"3"});
  const e2e::Ran fresh =
      e2e::run("conv --quiet --ladder-only --no-resume --space " + e2e::data("conv-ladder.yaml") + " --db " + db);
  ASSERT_EQ(fresh.code, 0) << fresh.out;
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"6"});
  // A space without a ladder has nothing to measure: a usage error, the store untouched.
  const std::string plain = (dir / "plain.yaml").string();
  std::ofstream(plain) << ("family: conv\nproblems:\n  - {filter: sharpen3, sizes: [64]}\nbackends:\n  host: {}\n"
                    "variants:\n  serial: {}\n");
  const e2e::Ran none = e2e::run("conv --quiet --ladder-only --space " + plain + " --db " + db);
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_NE(none.out.find("has no ladder"), std::string::npos) << none.out;
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"6"});
  fs::remove_all(dir);
}

// --size keeps the space's problems of that size (tests/scripts/seed_spaces_test.py runs each seed space's
// smallest); a size the space does not have is a usage error that names its sizes, the store untouched.
TEST(LadderEndToEnd, SizeKeepsThoseProblemsOnly) {
  const fs::path dir = e2e::temp_dir_with_cache("ladder-size");
  const std::string db = (dir / "s.db").string(), space = (dir / "two.yaml").string();
  std::string text = e2e::slurp(e2e::data("conv-ladder.yaml"));
  const std::string one = "sizes: [64]";
  ASSERT_NE(text.find(one), std::string::npos);
  text.replace(text.find(one), one.size(), "sizes: [64, 48x32]");
  std::ofstream(space) << text;
  const e2e::Ran r = e2e::run("conv --quiet --ladder-only --size 48x32 --space " + space + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(e2e::query(db, "SELECT DISTINCT p.width || 'x' || p.height FROM evaluations e JOIN problems p ON "
                           "p.id = e.problem_id"),
            std::vector<std::string>{"48x32"});
  const e2e::Ran bad = e2e::run("conv --quiet --ladder-only --size 32x32 --space " + space + " --db " + db);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--size 32x32: the space has no problem of that size (its sizes: 48x32, 64x64)"),
            std::string::npos)
      << bad.out;
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"3"});
  fs::remove_all(dir);
}
