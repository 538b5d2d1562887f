// `pimg-tune import` and `strategies` on an imported family end to end: a malformed file exits with
// code 2 naming the file and field and creates no database; a second import adds nothing; the
// replay of the imported space prints the field's metrics and writes both convergence plots; in a store of
// two devices a replay names its objective and uses the other device's results only with --transfer.
#include <gtest/gtest.h>

#include "e2e_util.hpp"
#include "json.hpp"

namespace fs = std::filesystem;

TEST(Import, CommandLine) {
  const fs::path dir = e2e::temp_dir("import");
  const std::string db = (dir / "t.db").string();
  {
    std::ofstream(dir / "bad_D_T4.json") << R"({"results": [{"configuration": {"a": 1}, "times": {}}]})";
    auto r = e2e::run("import " + (dir / "bad_D_T4.json").string() + " --db " + db);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("bad_D_T4.json:1:14: results[0].invalidity: missing"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(db));
  }
  std::string results;
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= 6; ++b)
      results += std::string(results.empty() ? "" : ",") + "{\"configuration\": {\"a\": " + std::to_string(a) +
                 ", \"b\": " + std::to_string(b) + "}, \"invalidity\": \"" + (a == 6 && b == 6 ? "compile" : "correct") +
                 "\", \"times\": {\"compilation\": 100, \"framework\": 5, \"runtimes\": [" +
                 std::to_string(1 + (a - 4) * (a - 4) + (b - 2) * (b - 2)) + "]}}";
  std::ofstream(dir / "toy_GPU1_T4.json") << "{\"results\": [" + results + "]}";
  const std::string file = (dir / "toy_GPU1_T4.json").string();
  auto first = e2e::run("import " + file + " --db " + db);
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_NE(first.out.find("36 configurations, 36 added, 0 already stored"), std::string::npos) << first.out;
  auto again = e2e::run("import " + file + " --db " + db);
  EXPECT_NE(again.out.find("0 added, 36 already stored"), std::string::npos) << again.out;
  auto as_json = e2e::run("import --json " + file + " --db " + db);
  ASSERT_EQ(as_json.code, 0) << as_json.out;
  const Json parsed = JsonParser(as_json.out).document();
  ASSERT_EQ(parsed.items.size(), 1u) << as_json.out;
  EXPECT_EQ(parsed.items[0]["format"].text, "t4");
  EXPECT_EQ(parsed.items[0]["configurations"].number, 36);
  EXPECT_EQ(parsed.items[0]["added"].number, 0);
  EXPECT_EQ(parsed.items[0]["already_stored"].number, 36);
  EXPECT_EQ(parsed.items[0]["devices"].items.at(0).text, "GPU1");
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"36"});
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM runs"), std::vector<std::string>{"1"});

  auto s = e2e::run("strategies --db " + db + " --family t4:toy --seeds 3 --strategy random --strategy gp --report " +
                    (dir / "s.md").string());
  ASSERT_EQ(s.code, 0) << s.out;
  EXPECT_NE(s.out.find("fraction of the optimum"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("time score"), std::string::npos) << s.out;
  EXPECT_TRUE(fs::exists(dir / "s.md"));
  auto sj = e2e::run("strategies --db " + db + " --family t4:toy --seeds 3 --strategy random --strategy gp --json");
  ASSERT_EQ(sj.code, 0) << sj.out;
  const Json replay = JsonParser(sj.out).document();
  ASSERT_EQ(replay.items.size(), 1u) << sj.out;
  EXPECT_EQ(replay.items[0]["points"].number, 36);
  EXPECT_EQ(replay.items[0]["seeds"].number, 3);
  ASSERT_EQ(replay.items[0]["strategies"].items.size(), 2u) << sj.out;
  for (const Json& st : replay.items[0]["strategies"].items) {
    EXPECT_FALSE(st["budgets"].items.empty()) << sj.out;
    EXPECT_TRUE(st["time_score"].is(Json::Type::object)) << sj.out;  // random is in the comparison
  }
  std::size_t svgs = 0;
  for (const auto& e : fs::directory_iterator(dir)) svgs += e.path().extension() == ".svg";
  EXPECT_EQ(svgs, 2u);
  auto bad_option = e2e::run("strategies --db " + db + " --family t4:toy --option gp.length=-1");
  EXPECT_EQ(bad_option.code, 2) << bad_option.out;
  EXPECT_NE(bad_option.out.find("--option gp.length=-1"), std::string::npos) << bad_option.out;
  fs::remove_all(dir);
}

// Two devices' T4 files in one store (tests/data/t4/stencil_*): `strategies` on one device names its
// objective and its priors, ranks by the writer's objective (the median with --objective median) and
// uses the other device's results only with --transfer; `best` ranks imported results by the writer's, and
// the markdown report says that it ranks them by the median.
TEST(Import, OneStoreOfTwoDevices) {
  const fs::path dir = e2e::temp_dir("import-two");
  const std::string db = (dir / "t.db").string();
  const std::string data = std::string(PIMG_TEST_DATA) + "/t4/";
  auto imported = e2e::run("import " + data + "stencil_GPUA_T4.json " + data + "stencil_GPUB_T4.json --db " + db);
  ASSERT_EQ(imported.code, 0) << imported.out;
  const std::string replay = "strategies --db " + db + " --family t4:stencil --device GPUA --seeds 3 --strategy gp";
  auto own = e2e::run(replay);
  ASSERT_EQ(own.code, 0) << own.out;
  EXPECT_NE(own.out.find("optimum 1 ms by the writer's objective (its recorded time)"), std::string::npos) << own.out;
  EXPECT_NE(own.out.find("priors: none"), std::string::npos) << own.out;
  EXPECT_EQ(own.out.find("GPUB"), std::string::npos) << own.out;
  EXPECT_NE(own.out.find("worst seed / of the 10th-percentile seed"), std::string::npos) << own.out;
  auto transfer = e2e::run(replay + " --transfer");
  ASSERT_EQ(transfer.code, 0) << transfer.out;
  EXPECT_NE(transfer.out.find("priors (--transfer): imported:GPUB t4:stencil 0x0 c1 kernel=stencil (36)"), std::string::npos) << transfer.out;
  auto median = e2e::run(replay + " --objective median");
  EXPECT_NE(median.out.find("optimum 0.9 ms by the median of the runs"), std::string::npos) << median.out;
  auto bad = e2e::run(replay + " --objective mean");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--objective"), std::string::npos) << bad.out;

  auto best = e2e::run("best t4:stencil --db " + db + " --device GPUA --top 1");
  ASSERT_EQ(best.code, 0) << best.out;
  EXPECT_NE(best.out.find("by writer's time ms"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find("bx=8 tile=2"), std::string::npos) << best.out;
  auto by_median = e2e::run("best t4:stencil --db " + db + " --device GPUA --top 1 --objective time");
  EXPECT_NE(by_median.out.find("winner: stencil bx=1 tile=1 0.9000 ms"), std::string::npos) << by_median.out;
  auto report = e2e::run("report --db " + db + " --family t4:stencil --out " + (dir / "r.md").string());
  ASSERT_EQ(report.code, 0) << report.out;
  EXPECT_NE(e2e::slurp(dir / "r.md").find("These results are imported: this report ranks them by the median"),
            std::string::npos);
  fs::remove_all(dir);
}
