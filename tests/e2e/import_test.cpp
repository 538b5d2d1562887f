// `pimg-tune import` and `strategies` on an imported family end to end: a malformed file exits with
// code 2 naming the file and field and creates no database; a second import adds nothing; the
// replay of the imported space prints the field's metrics and writes both convergence plots.
#include <gtest/gtest.h>

#include "e2e_util.hpp"

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
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM evaluations"), std::vector<std::string>{"36"});
  EXPECT_EQ(e2e::query(db, "SELECT COUNT(*) FROM runs"), std::vector<std::string>{"1"});

  auto s = e2e::run("strategies --db " + db + " --family t4:toy --seeds 3 --strategy random --strategy gp --report " +
                    (dir / "s.md").string());
  ASSERT_EQ(s.code, 0) << s.out;
  EXPECT_NE(s.out.find("fraction of the optimum"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("time score"), std::string::npos) << s.out;
  EXPECT_TRUE(fs::exists(dir / "s.md"));
  std::size_t svgs = 0;
  for (const auto& e : fs::directory_iterator(dir)) svgs += e.path().extension() == ".svg";
  EXPECT_EQ(svgs, 2u);
  auto bad_option = e2e::run("strategies --db " + db + " --family t4:toy --option gp.length=-1");
  EXPECT_EQ(bad_option.code, 2) << bad_option.out;
  EXPECT_NE(bad_option.out.find("--option gp.length=-1"), std::string::npos) << bad_option.out;
  fs::remove_all(dir);
}
