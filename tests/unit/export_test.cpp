// Export formats (JSON, C++ header, T4 validated against its vendored JSON schema with a validator
// of the subset the schema uses) and best_config's fallbacks.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "json.hpp"
#include "pimg/best_config.hpp"
#include "pimg/errors.hpp"
#include "pimg/report.hpp"
#include "synthetic_db.hpp"

using namespace pimg;

namespace {

// JSON Schema, the subset results-schema.json uses: type (a name or a list), properties, items,
// required, enum (of strings), pattern (ECMAScript, unanchored as the standard says). Appends one
// line per violation.
void validate(const Json& v, const Json& schema, const std::string& at, std::vector<std::string>& errors) {
  auto is = [&](const std::string& t) {
    switch (v.type) {
      case Json::Type::object: return t == "object";
      case Json::Type::array: return t == "array";
      case Json::Type::string: return t == "string";
      case Json::Type::number: return t == "number" || (t == "integer" && v.number == std::floor(v.number));
      case Json::Type::boolean: return t == "boolean";
      case Json::Type::null: return t == "null";
    }
    return false;
  };
  for (const auto& [key, rule] : schema.fields) {
    if (key == "type") {
      bool ok = false;
      if (rule.type == Json::Type::string) ok = is(rule.text);
      for (const auto& t : rule.items) ok = ok || is(t.text);
      if (!ok) errors.push_back(at + ": wrong type");
    } else if (key == "properties" && v.type == Json::Type::object) {
      for (const auto& [name, sub] : rule.fields)
        if (v.has(name)) validate(v[name], sub, at + "." + name, errors);
    } else if (key == "items" && v.type == Json::Type::array) {
      for (std::size_t i = 0; i < v.items.size(); ++i) validate(v.items[i], rule, at + "[" + std::to_string(i) + "]", errors);
    } else if (key == "required" && v.type == Json::Type::object) {
      for (const auto& r : rule.items)
        if (!v.has(r.text)) errors.push_back(at + ": missing " + r.text);
    } else if (key == "enum") {
      bool ok = false;
      for (const auto& e : rule.items) ok = ok || (v.type == Json::Type::string && e.text == v.text);
      if (!ok) errors.push_back(at + ": not in enum");
    } else if (key == "pattern" && v.type == Json::Type::string) {
      if (!std::regex_search(v.text, std::regex(rule.text))) errors.push_back(at + ": pattern");
    } else if (key != "$schema" && key != "$id" && key != "description" && key != "example") {
      errors.push_back(at + ": schema keyword '" + key + "' is not supported by this validator");
    }
  }
}

std::vector<std::string> validate_t4(const std::string& doc) {
  std::ifstream in(std::string(PIMG_TEST_DATA) + "/t4/results-schema.json");
  std::stringstream schema;
  schema << in.rdbuf();
  std::vector<std::string> errors;
  validate(JsonParser(doc).document(), JsonParser(schema.str()).document(), "$", errors);
  return errors;
}

const std::vector<ResultRow>& rows() {
  static const std::vector<ResultRow> r = [] {
    synthetic::TempDb db("export");
    Store store(db.path.string());
    synthetic::fill(store, synthetic::gpu("Test GPU 16GB", 16), 1.0, {256, 1024});
    synthetic::fill(store, synthetic::gpu("Test GPU 8GB", 8), 1.5, {512});
    synthetic::fill(store, synthetic::gpu("Other Card", 8), 0.5, {512});
    return store.rows_with_samples();
  }();
  return r;
}

}  // namespace

TEST(ExportT4, ValidatesAgainstTheVendoredSchema) {
  const std::string doc = export_t4(rows());
  EXPECT_EQ(validate_t4(doc), std::vector<std::string>{});
  const Json j = JsonParser(doc).document();
  ASSERT_EQ(j["results"].items.size(), rows().size());
  std::set<std::string> invalidity;
  for (const auto& r : j["results"].items) invalidity.insert(r["invalidity"].text);
  EXPECT_EQ(invalidity, (std::set<std::string>{"correct", "compile"}));
  const Json& first = j["results"].items.front();
  EXPECT_TRUE(first["configuration"].has("variant"));
  EXPECT_EQ(first["times"]["runtimes"].items.size(), 3u);
}

TEST(ExportT4, TheValidatorRejectsWhatTheSchemaForbids) {
  EXPECT_FALSE(validate_t4(R"({"schema_version":"1.0","results":[]})").empty());
  EXPECT_FALSE(validate_t4(R"({"results":[{"configuration":{},"times":{},"correctness":1}]})").empty());
  EXPECT_FALSE(
      validate_t4(R"({"results":[{"configuration":{},"times":{},"invalidity":"fine","correctness":1}]})").empty());
  EXPECT_FALSE(
      validate_t4(R"({"results":[{"configuration":[],"times":{},"invalidity":"correct","correctness":1}]})").empty());
  EXPECT_TRUE(validate_t4(R"({"results":[{"configuration":{},"times":{},"invalidity":"correct","correctness":1}]})")
                  .empty());
}

TEST(ExportJson, BestTunedConfigurationPerDeviceAndProblem) {
  const Json j = JsonParser(export_json(rows())).document();
  ASSERT_EQ(j.items.size(), 4u);  // 16GB at 256 and 1024, 8GB at 512, Other Card at 512; no baseline
  for (const auto& e : j.items) {
    EXPECT_EQ(e["variant"].text, "cl_tiled");
    EXPECT_EQ(e["config"]["a"].number, 6);
    EXPECT_EQ(e["config"]["b"].number, 3);
    EXPECT_EQ(e["config"]["mode"].text, "local");
  }
}

TEST(ExportHeader, DefinesEachBestConfigurationOnce) {
  const std::string h = export_header(rows());
  const std::regex define("#define ([A-Za-z_][A-Za-z0-9_]*) (-?[0-9.e+-]+|\"[^\"\\\\]*\")\n");
  std::set<std::string> names;
  std::size_t defines = 0;
  for (auto it = std::sregex_iterator(h.begin(), h.end(), define); it != std::sregex_iterator(); ++it) {
    ++defines;
    EXPECT_TRUE(names.insert((*it)[1]).second) << "defined twice: " << (*it)[1];
  }
  std::size_t lines = 0;
  for (std::size_t p = h.find("#define"); p != std::string::npos; p = h.find("#define", p + 1)) ++lines;
  EXPECT_EQ(defines, lines) << "a #define that is not NAME VALUE";
  EXPECT_EQ(defines, 4u * 5u);  // variant, median and three parameters for each of four entries
  EXPECT_NE(h.find("PIMG_CONV_OPENCL_TEST_GPU_16GB_1024X1024_C1_ZERO_SHARPEN3_"), std::string::npos) << h;
  EXPECT_NE(h.find("_MODE \"local\""), std::string::npos);
}

TEST(ExportCommand, WritesTheFileAndRefusesBadFormats) {
  synthetic::TempDb db("export-cli");
  {
    Store store(db.path.string());
    synthetic::fill(store, synthetic::gpu("Test GPU 16GB", 16), 1.0, {256});
  }
  const auto out = std::filesystem::temp_directory_path() / ("pimg-export-" + std::to_string(::getpid()) + ".json");
  const std::string base = std::string(PIMG_TUNE_EXE) + " export --db " + db.path.string() + " --family conv";
  ASSERT_EQ(std::system((base + " --format t4 --out " + out.string()).c_str()), 0);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  EXPECT_EQ(validate_t4(text.str()), std::vector<std::string>{});
  std::filesystem::remove(out);
  const int r = std::system((base + " --format yaml >/dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(r), 2);
}

TEST(BestConfig, ExactDevice) {
  auto b = best_config(rows(), "conv", "Test GPU 16GB", "1024x1024");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->match, BestConfig::Match::exact);
  EXPECT_EQ(b->row.device.name, "Test GPU 16GB");
  EXPECT_EQ(b->row.problem.size(), "1024x1024");
  EXPECT_EQ(b->row.config.integer("a"), 6);
  EXPECT_EQ(best_config(rows(), "conv", "opencl:test gpu 16gb", "256x256")->match, BestConfig::Match::exact);
}

TEST(BestConfig, NearestSizeOnTheSameDevice) {
  auto b = best_config(rows(), "conv", "Test GPU 16GB", "2048x2048");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->match, BestConfig::Match::nearest_size);
  EXPECT_EQ(b->row.problem.size(), "1024x1024");
  EXPECT_EQ(best_config(rows(), "conv", "Test GPU 16GB", "300x300")->row.problem.size(), "256x256");
  // Exactly between 256 and 1024 (in log pixels): the larger.
  EXPECT_EQ(best_config(rows(), "conv", "Test GPU 16GB", "512x512")->row.problem.size(), "1024x1024");
}

TEST(BestConfig, SameArchitectureThenNothing) {
  EXPECT_EQ(architecture_of("NVIDIA H100 80GB HBM3"), "nvidia h100");
  EXPECT_EQ(architecture_of("NVIDIA H100 PCIe"), "nvidia h100");
  auto b = best_config(rows(), "conv", "Test GPU 32GB", "512x512");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->match, BestConfig::Match::same_architecture);
  EXPECT_EQ(b->row.problem.size(), "512x512");
  EXPECT_EQ(b->row.device.name, "Test GPU 8GB");
  EXPECT_NE(b->how.find("same architecture (test gpu)"), std::string::npos) << b->how;
  auto n = best_config(rows(), "conv", "Test GPU 32GB", "4096x4096");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->match, BestConfig::Match::same_architecture_nearest_size);
  EXPECT_EQ(n->row.problem.size(), "1024x1024");
  EXPECT_FALSE(best_config(rows(), "conv", "Unknown Device", "512x512"));
  EXPECT_FALSE(best_config(rows(), "conv", "Test GPU 16GB", "512x512", {{"filter", "box3"}}));
  EXPECT_THROW(best_config(rows(), "conv", "Test GPU 16GB", "big"), UsageError);
}

TEST(BestConfig, OnADatabaseFile) {
  synthetic::TempDb db("best-config");
  EXPECT_THROW(best_config(db.path.string(), "conv", "Test GPU 16GB", "256x256"), UsageError);
  {
    Store store(db.path.string());
    synthetic::fill(store, synthetic::gpu("Test GPU 16GB", 16), 1.0, {256});
  }
  auto b = best_config(db.path.string(), "conv", "Test GPU 16GB", "256x256");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->row.variant.name, "cl_tiled");
}
