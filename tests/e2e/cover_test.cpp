// `pimg-tune cover` end to end on synthetic stores (tests/cover_fixture.hpp): the table, --json, --min-fraction's
// exit code 5, --into's alias rows that `best` and best_config read, and bad input refused with exit code 2 naming
// the option or file, every file left byte for byte as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "cover_fixture.hpp"
#include "e2e/e2e_util.hpp"
#include "json.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

class CoverCommand : public e2e::DirSuite<CoverCommand> {
 protected:
  static void SetUpTestSuite() {
    make_dir("cover");
    {
      pimg::Store a(path("a.db")), b(path("b.db"));
      cover_fixture::fill_two_stores(a, b);
      // Another kernel: the same parameters, none of the values.
      cover_fixture::put(b, "t1-other", "kern", synthetic::gpu("GPU D", 16), cover_fixture::kT1, {{{9, 9}, 1.0}});
    }
    std::ofstream(path("notes.db")) << "not a database\n";
  }
  static std::string both() {
    return "cover --db " + path("a.db") + " --db " + path("b.db") + " --family conv --family t1-k";
  }
  // Every file of the folder, by name: what a refusal must leave as it was.
  static std::map<std::string, std::string> files() {
    std::map<std::string, std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out[e.path().filename().string()] = e2e::slurp(e.path());
    return out;
  }
};

TEST_F(CoverCommand, PrintsTheSetAndEachDevicesFractions) {
  const e2e::Ran table = e2e::run(both() + " -k 2");
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("each device holds one problem of the kernel"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("chosen configurations: 2 core"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("a=1 b=0"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("leave-one-out"), std::string::npos) << table.out;

  const e2e::Ran json = e2e::run(both() + " -k 2 --json");
  ASSERT_EQ(json.code, 0) << json.out;
  const Json j = JsonParser(json.out).document();
  EXPECT_EQ(j["k"].number, 2);
  EXPECT_EQ(j["objective"].text, "writer");
  EXPECT_TRUE(j["check"].is(Json::Type::null));
  ASSERT_EQ(j["problems"].items.size(), 1u);
  const Json& p = j["problems"].items[0];
  EXPECT_EQ(p["method"].text, "exact");
  ASSERT_EQ(p["chosen"].items.size(), 2u);
  EXPECT_EQ(p["chosen"].items[0]["alias"].text, "cover[1]");
  EXPECT_EQ(p["chosen"].items[0]["config"]["a"].number, 1);
  ASSERT_EQ(p["devices"].items.size(), 3u);
  for (const Json& d : p["devices"].items) {
    EXPECT_EQ(d["in_sample"].number, 1.0) << d["device"].text;
    // Without GPU C the others need X alone and take Z, 0.8 of every device, as a hedge.
    EXPECT_EQ(d["leave_one_out"].number, d["device"].text == "GPU C" ? 0.8 : 1.0) << d["device"].text;
  }
  EXPECT_EQ(p["devices"].items[2]["family"].text, "t1-k");
  EXPECT_EQ(p["worst_leave_one_out"].number, 0.8);
}

TEST_F(CoverCommand, MinFractionChecksLeaveOneDeviceOut) {
  const e2e::Ran low = e2e::run(both() + " -k 2 --min-fraction 0.75");
  EXPECT_EQ(low.code, 0) << low.out;
  EXPECT_NE(low.out.find("every device reaches 0.75 of its optimum leave-one-device-out"), std::string::npos)
      << low.out;
  const e2e::Ran high = e2e::run(both() + " -k 2 --min-fraction 0.9");
  EXPECT_EQ(high.code, 5) << high.out;
  EXPECT_NE(high.out.find("below --min-fraction 0.9 leave-one-device-out: opencl:GPU C 0.800 (exit code 5)"),
            std::string::npos)
      << high.out;
  const e2e::Ran json = e2e::run(both() + " -k 2 --min-fraction 0.9 --json");
  EXPECT_EQ(json.code, 5);
  ASSERT_NE(json.out.find('{'), std::string::npos) << json.out;  // stdout's object beside stderr's line
  const Json j = JsonParser(json.out.substr(json.out.find('{'))).document();
  EXPECT_FALSE(j["check"]["passed"].boolean);
  ASSERT_EQ(j["check"]["below"].items.size(), 1u);
}

TEST_F(CoverCommand, IntoStoresAliasesThatBestReads) {
  const std::string into = path("deploy.db");
  const e2e::Ran r = e2e::run(both() + " -k 2 --into " + into);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("4 rows added on the alias devices cover[1]..cover[2]"), std::string::npos) << r.out;
  const e2e::Ran best = e2e::run("best t1-k --db " + into + " --device 'cover[2]' --json");
  ASSERT_EQ(best.code, 0) << best.out;
  const Json b = JsonParser(best.out).document();
  ASSERT_EQ(b.items.size(), 1u) << best.out;
  EXPECT_EQ(b.items[0]["winner"]["config"]["a"].number, 2);  // Y, GPU C's optimum
  // The same set again adds nothing; another set under the same names is refused.
  const e2e::Ran again = e2e::run(both() + " -k 2 --into " + into);
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("0 rows added"), std::string::npos) << again.out;
  const auto before = files();
  const e2e::Ran other = e2e::run(both() + " -k 1 --into " + into);
  EXPECT_EQ(other.code, 2) << other.out;
  EXPECT_NE(other.out.find("--into " + into + ": holds another covering set"), std::string::npos) << other.out;
  EXPECT_EQ(files(), before);
  fs::remove(into);
}

TEST_F(CoverCommand, BadInputExitsTwoAndChangesNothing) {
  const auto before = files();
  const std::string a = " --db " + path("a.db");
  const std::map<std::string, std::string> cases{
      {"cover" + a + " --family nope", "--family nope: no tuned configuration of it"},
      {"cover --db " + path("notes.db") + " --family conv", "--db " + path("notes.db") + ": not a pimg-tune database"},
      {"cover --db " + path("missing.db") + " --family conv", "--db " + path("missing.db")},
      {both() + " -k 0", "--max-configs"},
      {both() + " --min-fraction 0", "--min-fraction"},
      {both() + " --min-fraction 1.5", "--min-fraction"},
      {both() + " --objective mean", "--objective"},
      {"cover" + a + " --db " + path("a.db") + " --family conv", "given twice"},
      {"cover" + a + " --db " + path("b.db") + " --family conv --family t1-other",
       "no configuration is stored on every device"},
      {both() + " --into " + path("notes.db"), "--into " + path("notes.db") + ": not a pimg-tune database"},
      {"cover" + a, "--family is required"},
  };
  for (const auto& [args, says] : cases) {
    const e2e::Ran r = e2e::run(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
  }
  EXPECT_EQ(files(), before);
}

}  // namespace
