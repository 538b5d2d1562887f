// The T4 export re-imports losslessly: a real store tuned here (OpenMP and the host) is exported as T4
// with its metadata file, imported into a fresh database, and exported again; the two exports agree
// field by field (but the run ids, which an import makes anew), `best` agrees on both databases, and
// every export validates against the T4 results and metadata schemas.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "e2e_util.hpp"
#include "t4_schema.hpp"

namespace fs = std::filesystem;

namespace {

// Every place where `b` differs from `a`, by path; a result's pimg.run_id is left out.
void differences(const Json& a, const Json& b, const std::string& at, std::vector<std::string>& out) {
  if (out.size() >= 20) return;
  if (a.type != b.type) {
    out.push_back(at + ": " + Json::type_name(a.type) + " became " + Json::type_name(b.type));
    return;
  }
  switch (a.type) {
    case Json::Type::null: return;
    case Json::Type::boolean:
      if (a.boolean != b.boolean) out.push_back(at + ": " + a.text + " became " + b.text);
      return;
    case Json::Type::number:
    case Json::Type::string:
      if (a.text != b.text) out.push_back(at + ": '" + a.text + "' became '" + b.text + "'");
      return;
    case Json::Type::array:
      if (a.items.size() != b.items.size())
        out.push_back(at + ": " + std::to_string(a.items.size()) + " items became " + std::to_string(b.items.size()));
      for (std::size_t i = 0; i < std::min(a.items.size(), b.items.size()); ++i)
        differences(a.items[i], b.items[i], at + "[" + std::to_string(i) + "]", out);
      return;
    case Json::Type::object: {
      std::vector<std::string> ka, kb;
      for (const auto& f : a.fields) ka.push_back(f.first);
      for (const auto& f : b.fields) kb.push_back(f.first);
      if (ka != kb) out.push_back(at + ": other keys");
      for (const auto& f : a.fields)
        if (const Json* other = b.find(f.first); other && !(f.first == "run_id" && at.ends_with(".pimg")))
          differences(f.second, *other, at + "." + f.first, out);
      return;
    }
  }
}

std::string without_bandwidth(const std::string& best_json) {
  // The share of the ceiling, and which ceiling it is, need the ceiling, which is measured per run and not part of T4.
  const std::string share = std::regex_replace(best_json, std::regex("\"bandwidth_pct\":[^,}]*"), "\"bandwidth_pct\":-");
  return std::regex_replace(share, std::regex("\"ceiling\":[^,}]*"), "\"ceiling\":-");
}

}  // namespace

TEST(T4RoundTrip, ExportImportExportIsLosslessAndValidatesAgainstBothSchemas) {
  const fs::path dir = e2e::temp_dir("t4-roundtrip");
  const std::string a = (dir / "a.db").string(), b = (dir / "b.db").string();
  auto tuned = e2e::run("conv --quiet --space " + e2e::data("t4-roundtrip.yaml") + " --db " + a);
  ASSERT_EQ(tuned.code, 0) << tuned.out;

  auto exported = e2e::run("export --db " + a + " --family conv --format t4-all --out " + (dir / "a.json").string() +
                           " --metadata " + (dir / "a-metadata.json").string());
  ASSERT_EQ(exported.code, 0) << exported.out;
  auto imported = e2e::run("import " + (dir / "a.json").string() + " --db " + b);
  ASSERT_EQ(imported.code, 0) << imported.out;
  EXPECT_NE(imported.out.find("family 'conv' on device"), std::string::npos) << imported.out;
  auto again = e2e::run("import " + (dir / "a.json").string() + " --db " + b);
  EXPECT_NE(again.out.find(" 0 added"), std::string::npos) << again.out;
  auto reexported = e2e::run("export --db " + b + " --family conv --format t4-all --out " + (dir / "b.json").string() +
                             " --metadata " + (dir / "b-metadata.json").string());
  ASSERT_EQ(reexported.code, 0) << reexported.out;

  const Json first = JsonParser(e2e::slurp(dir / "a.json")).document();
  const Json second = JsonParser(e2e::slurp(dir / "b.json")).document();
  // The store has what the round trip must carry: all three stages (the whole-program runs too), failures,
  // text and integer values.
  std::set<std::string> stages, invalidity, variants, kinds;
  for (const Json& r : first["results"].items) {
    stages.insert(r["pimg"]["stage"].text);
    invalidity.insert(r["invalidity"].text);
    variants.insert(r["configuration"]["variant"].text);
    for (const auto& f : r["configuration"].fields) kinds.insert(Json::type_name(f.second.type));
  }
  EXPECT_EQ(stages, (std::set<std::string>{"search", "confirm", "cold"}));
  EXPECT_EQ(invalidity, (std::set<std::string>{"correct", "correctness"}));
  EXPECT_EQ(variants, (std::set<std::string>{"omp_rows", "selftest_wrong_result_omp", "serial"}));
  EXPECT_EQ(kinds.size(), 2u);  // numbers and strings
  std::vector<std::string> diff;
  differences(first, second, "$", diff);
  EXPECT_EQ(diff, std::vector<std::string>{});

  auto best_a = e2e::run("best conv --json --top 10 --db " + a);
  auto best_b = e2e::run("best conv --json --top 10 --db " + b);
  ASSERT_EQ(best_a.code, 0) << best_a.out;
  ASSERT_EQ(best_b.code, 0) << best_b.out;
  EXPECT_EQ(without_bandwidth(best_a.out), without_bandwidth(best_b.out));

  const bool python = python_jsonschema_available();
  for (const char* name : {"a.json", "b.json"}) {
    EXPECT_EQ(validate_t4(e2e::slurp(dir / name)), std::vector<std::string>{}) << name;
    if (python) EXPECT_EQ(python_jsonschema_errors((dir / name).string(), "results-schema.json"), "") << name;
  }
  for (const char* name : {"a-metadata.json", "b-metadata.json"}) {
    EXPECT_EQ(validate_t4(e2e::slurp(dir / name), "metadata-schema.json"), std::vector<std::string>{}) << name;
    if (python) EXPECT_EQ(python_jsonschema_errors((dir / name).string(), "metadata-schema.json"), "") << name;
  }
  if (!python) std::cout << "python3 cannot import jsonschema: the schemas were applied by the tests' own validator only\n";

  // --format t4: Kernel Tuner's files, one per (variant, device, problem) with its search rows. Imported together
  // into a fresh database and exported again, they give the same files, and the store has the search rows alone.
  const std::string c = (dir / "c.db").string();
  ASSERT_EQ(e2e::run("export --db " + a + " --family conv --format t4 --out " + (dir / "t4a").string() + "/").code, 0);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir / "t4a")) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  ASSERT_EQ(names.size(), 3u) << "omp_rows and the wrong-result variant on openmp, serial on the host";
  std::string files;
  for (const std::string& n : names) files += " " + (dir / "t4a" / n).string();
  const auto per_file = e2e::run("import" + files + " --db " + c);
  ASSERT_EQ(per_file.code, 0) << per_file.out;
  EXPECT_EQ(e2e::query(c, "SELECT count(*) FROM evaluations"),
            e2e::query(a, "SELECT count(*) FROM evaluations WHERE stage = 'search'"));
  ASSERT_EQ(e2e::run("export --db " + c + " --family conv --format t4 --out " + (dir / "t4c").string() + "/").code, 0);
  for (const std::string& n : names) {
    ASSERT_TRUE(fs::exists(dir / "t4c" / n)) << n;
    std::vector<std::string> file_diff;
    const Json exported_a = JsonParser(e2e::slurp(dir / "t4a" / n)).document();  // kept: the loop reads into it
    differences(exported_a, JsonParser(e2e::slurp(dir / "t4c" / n)).document(), n, file_diff);
    EXPECT_EQ(file_diff, std::vector<std::string>{});
    for (const Json& r : exported_a["results"].items) EXPECT_EQ(r["configuration"].find("variant"), nullptr) << n;
  }
  fs::remove_all(dir);
}
