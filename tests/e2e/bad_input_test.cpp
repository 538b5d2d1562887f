// The bad-input corpus (tests/data/spaces/bad) through the pimg-tune binary: each file must end
// with exit code 2 and one line naming the file and place with the expected message, and leave an
// existing database byte-identical and a missing one uncreated. A file's first line is
// "# expect: <part of the message>"; a second line "# via: tune [NAME=VALUE ...]" marks files
// refused only when tuning starts and sets the environment they need; "# via: unit" marks a file
// only the unit tests' smaller registry refuses. Runs in that folder, so image paths are relative
// to it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/test_names.hpp"
#include "e2e/e2e_util.hpp"
#include "pimg/store.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kBad = fs::path(PIMG_TEST_DATA) / "spaces" / "bad";

std::vector<std::string> corpus() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kBad)) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    if (second.rfind("# via: unit", 0) != 0) out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class BadInput : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST_P(BadInput, ExitsTwoWithOneLineAndLeavesTheDatabaseAlone) {
  const std::string name = GetParam();
  std::ifstream in(kBad / name);
  std::string first, second;
  std::getline(in, first);
  std::getline(in, second);
  const std::string tag = "# expect: ", via = "# via: tune";
  ASSERT_EQ(first.rfind(tag, 0), 0u) << name;
  const std::string expected = first.substr(tag.size());
  const std::string env = second.rfind(via, 0) == 0 ? second.substr(via.size()) : "";

  const fs::path dir = e2e::temp_dir("bad-input-" + fs::path(name).stem().string());
  const std::string db = (dir / "existing.db").string(), absent = (dir / "absent.db").string();
  { pimg::Store create(db); }
  fs::remove(db + "-wal");
  fs::remove(db + "-shm");
  const std::string before = e2e::slurp(db);
  for (const std::string& target : {db, absent}) {
    e2e::Ran r = e2e::run("conv --quiet --space " + name + " --db " + target + " </dev/null",
                          "cd " + kBad.string() + " &&" + env);
    EXPECT_EQ(r.code, 2) << name << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << name << ": " << r.out;
    EXPECT_EQ(r.out.rfind("pimg-tune: " + name + ":", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(expected), std::string::npos) << "message: " << r.out << "expected: " << expected;
  }
  EXPECT_EQ(e2e::slurp(db), before) << name << " changed the database";
  EXPECT_FALSE(fs::exists(db + "-wal")) << name << " opened the database";
  EXPECT_FALSE(fs::exists(absent)) << name << " created a database";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInput, ::testing::ValuesIn(corpus()), pimg::testcommon::stem_name);

TEST(BadInputCorpus, HasAtLeastFiftyFiles) { EXPECT_GE(corpus().size(), 50u); }
