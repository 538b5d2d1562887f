// Export formats (JSON, C++ header, T4 validated against its vendored JSON schema with a validator
// of the subset the schema uses) and best_config's fallbacks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "json.hpp"
#include "t4_schema.hpp"
#include "pimg/best_config.hpp"
#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "pimg/ranking.hpp"
#include "pimg/report.hpp"
#include "synthetic_db.hpp"

using namespace pimg;

namespace {

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

// Kernel Tuner's own writer (and the FAIR benchmark hub's files in ../shared/t4): times in milliseconds,
// said by metadata.timeunit in its spelling, `times` with these keys, the time measurement in ms.
TEST(ExportT4, FollowsKernelTunersWriter) {
  const Json j = JsonParser(export_t4(rows())).document();
  EXPECT_EQ(j["schema_version"].text, "1.0.0");
  EXPECT_EQ(j["metadata"]["timeunit"].text, "miliseconds");
  const auto& results = j["results"].items;
  ASSERT_EQ(results.size(), rows().size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Json& times = results[i]["times"];
    for (const char* key : {"compilation", "benchmark", "framework", "search_algorithm", "validation", "runtimes"})
      EXPECT_TRUE(times.has(key)) << key;
    const ResultRow& row = rows()[i];
    EXPECT_NEAR(times["compilation"].number, row.result.compile_ms, 1e-6);  // ms, not s
    ASSERT_EQ(times["runtimes"].items.size(), row.result.kernel_ms.size());
    for (std::size_t k = 0; k < row.result.kernel_ms.size(); ++k)
      EXPECT_NEAR(times["runtimes"].items[k].number, row.result.kernel_ms[k], 1e-9 * row.result.kernel_ms[k]);
    if (row.result.status == Status::ok) {
      EXPECT_EQ(results[i]["measurements"].items.front()["name"].text, "time");
      EXPECT_NEAR(results[i]["measurements"].items.front()["value"].number, row.result.kernel.median, 1e-6);
    }
  }
}

// odgaard/TuningSchema's results-schema.json (not vendored: no licence): what it requires of a result.
TEST(ExportT4, MeetsThePublishedSchemasRequirements) {
  const Json j = JsonParser(export_t4(rows())).document();
  const std::set<std::string> invalidity{"timeout", "compile", "runtime", "correctness", "constraints"};
  for (const Json& r : j["results"].items) {
    for (const char* key : {"configuration", "times", "invalidity", "correctness"}) EXPECT_TRUE(r.has(key)) << key;
    EXPECT_EQ(r["configuration"].type, Json::Type::object);
    EXPECT_EQ(r["correctness"].type, Json::Type::number);
    for (const auto& [name, v] : r["times"].fields)
      EXPECT_TRUE(v.type == (name == "runtimes" ? Json::Type::array : Json::Type::number)) << name;
    // Its enum lacks "correct", which Kernel Tuner writes for a valid result (tests/data/t4/SOURCE.md).
    EXPECT_TRUE(invalidity.count(r["invalidity"].text) || r["invalidity"].text == "correct");
    for (const Json& m : r["measurements"].items) EXPECT_EQ(m["value"].type, Json::Type::number);
  }
}

TEST(ExportT4, MetadataFileValidatesAgainstTheMetadataSchema) {
  const std::vector<RunRecord> runs{{1, {"host-a", "2026-11-24T00:00:00Z", "abc", "synthetic", "0.1.0", ""}}};
  const std::string doc = export_t4_metadata(rows(), runs);
  EXPECT_EQ(validate_t4(doc, "metadata-schema.json"), std::vector<std::string>{});
  const Json j = JsonParser(doc).document();
  EXPECT_EQ(j["metadata"]["hardware"]["hardware_description"].items.size(), 4u);  // three GPUs and the host
  EXPECT_EQ(j["metadata"]["environment"]["requirements"].items.front().text, "pimg-tune==0.1.0");
  EXPECT_FALSE(validate_t4(R"({"metadata":{"hardware":{"hardware_description":{}}}})", "metadata-schema.json").empty());
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

// The median the header gives a problem under a target macro (none: the default), read by compiling
// the header with the system's C++ compiler: a static_assert brackets the value.
bool header_median_between(const std::string& header, const std::string& target, const std::string& macro, double lo,
                           double hi) {
  const auto dir = std::filesystem::temp_directory_path() / ("pimg-header-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "best.h") << header;
  std::ofstream(dir / "use.cpp") << "#include \"best.h\"\nstatic_assert(" << macro << " > " << lo << " && " << macro
                                 << " < " << hi << ");\nstatic_assert(sizeof(" << macro.substr(0, macro.size() - 10)
                                 << "_VARIANT) > 1);\n";
  const std::string cmd = "c++ -std=c++17 -fsyntax-only " + (target.empty() ? "" : "-D" + target + " ") + (dir / "use.cpp").string() +
                          " 2>/dev/null";
  const int rc = std::system(cmd.c_str());
  std::filesystem::remove_all(dir);
  return rc == 0;
}

TEST(ExportHeader, SelectsByTargetDeviceWithADefaultAndShortStableNames) {
  const std::string h = export_header(rows());
  // Names come from the problem alone, short and stable: family, size, channels and a hash of the problem's
  // canonical text (its attributes can be whole filters, minus signs and all); the comment says what it is.
  const auto name_of = [&](int size) {
    const std::regex re("// (PIMG_CONV_" + std::to_string(size) + "X" + std::to_string(size) +
                        "_C1_[0-9A-F]{8}): conv " + std::to_string(size) + "x" + std::to_string(size));
    std::smatch m;
    return std::regex_search(h, m, re) ? m[1].str() : std::string("(none)");
  };
  const std::string p512 = name_of(512);
  EXPECT_NE(h.find("#define " + p512 + "_VARIANT \"cl_tiled\""), std::string::npos) << h;
  EXPECT_NE(h.find(name_of(1024) + "_MODE \"local\""), std::string::npos) << h;
  EXPECT_LE(p512.size(), 32u);
  // The same problem, the same name, whatever else the store holds.
  std::vector<ResultRow> one_device;
  for (const ResultRow& r : rows())
    if (r.device.name == "Other Card") one_device.push_back(r);
  EXPECT_NE(export_header(one_device).find("#define " + p512 + "_VARIANT"), std::string::npos);
  EXPECT_NE(h.find("#if defined(PIMG_TARGET_OPENCL_OTHER_CARD)"), std::string::npos);
  EXPECT_NE(h.find("#elif defined(PIMG_TARGET_OPENCL_TEST_GPU_8GB)"), std::string::npos);
  EXPECT_NE(h.find("#else  // default: opencl:Other Card"), std::string::npos);
  // The 512x512 winners: Other Card (speed 0.5) and Test GPU 8GB (speed 1.5) from the same landscape.
  double other = 0, slow = 0;
  for (const Ranking& k : rank_all(rows()))
    if (k.problem.width == 512) (k.device.name == "Other Card" ? other : slow) = k.winner->result.kernel.median;
  ASSERT_GT(other, 0);
  ASSERT_NEAR(slow / other, 3.0, 1e-6);
  if (std::system("c++ --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "no C++ compiler to compile the header with";
  const std::string m = p512 + "_MEDIAN_MS";
  EXPECT_TRUE(header_median_between(h, "", m, other * 0.99, other * 1.01)) << "the default is the first device";
  EXPECT_TRUE(header_median_between(h, "PIMG_TARGET_OPENCL_TEST_GPU_8GB", m, slow * 0.99, slow * 1.01));
  EXPECT_TRUE(header_median_between(h, "PIMG_TARGET_OPENCL_OTHER_CARD", m, other * 0.99, other * 1.01));
  EXPECT_FALSE(header_median_between(h, "PIMG_TARGET_OPENCL_TEST_GPU_8GB", m, other * 0.99, other * 1.01));
}

// --format t4 as Kernel Tuner writes it: one file per (variant, device, problem), search rows only, the
// configuration its parameters only; every file valid T4, every search row in exactly one.
TEST(ExportT4, OneFilePerVariantDeviceAndProblemOfSearchRowsOnly) {
  std::vector<ResultRow> with_confirm = rows();
  with_confirm.push_back(with_confirm.front());
  with_confirm.back().result.stage = "confirm";  // never exported by --format t4
  const std::vector<T4File> files = export_t4_files(with_confirm);
  std::set<std::tuple<std::string, std::string, std::string>> groups;
  std::size_t search = 0;
  for (const ResultRow& r : rows())
    if (r.result.stage == "search") {
      ++search;
      groups.emplace(r.problem.canonical(), r.device.name, r.variant.name);
    }
  ASSERT_EQ(files.size(), groups.size());
  std::set<std::string> names;
  std::size_t exported = 0;
  for (const T4File& f : files) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_TRUE(std::regex_match(f.name, std::regex("conv_[a-z0-9-]+_[a-z0-9-]+_[0-9]+x[0-9]+_[0-9a-f]{8}_T4\\.json")))
        << f.name;
    EXPECT_EQ(validate_t4(f.text), std::vector<std::string>{}) << f.name;
    const Json j = JsonParser(f.text).document();
    std::set<std::string> devices, problems, variants, stages;
    for (const Json& r : j["results"].items) {
      EXPECT_EQ(r["configuration"].find("variant"), nullptr) << f.name;
      devices.insert(r["device"].text);
      problems.insert(r["problem"].text);
      variants.insert(r["pimg"]["variant"]["name"].text);
      stages.insert(r["pimg"]["stage"].text);
    }
    EXPECT_EQ(devices.size(), 1u) << f.name;
    EXPECT_EQ(problems.size(), 1u) << f.name;
    EXPECT_EQ(variants.size(), 1u) << f.name;
    EXPECT_EQ(stages, std::set<std::string>{"search"}) << f.name;
    EXPECT_EQ(j["results"].items.size(), f.rows) << f.name;
    std::string variant = *variants.begin();
    std::replace(variant.begin(), variant.end(), '_', '-');
    EXPECT_EQ(f.name.rfind("conv_" + variant + "_", 0), 0u) << f.name;
    exported += f.rows;
  }
  EXPECT_EQ(exported, search);
}

TEST(ExportCommand, WritesTheFilesAndRefusesBadFormats) {
  synthetic::TempDb db("export-cli");
  {
    Store store(db.path.string());
    synthetic::fill(store, synthetic::gpu("Test GPU 16GB", 16), 1.0, {256});
  }
  const auto dir = std::filesystem::temp_directory_path() / ("pimg-export-" + std::to_string(::getpid()));
  const auto out = dir / "all.json";
  const std::string base = std::string(PIMG_TUNE_EXE) + " export --db " + db.path.string() + " --family conv";
  // t4-all: every row in one file.
  ASSERT_EQ(std::system((base + " --format t4-all --out " + out.string()).c_str()), 0);
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  EXPECT_EQ(validate_t4(text.str()), std::vector<std::string>{});
  // t4: several variants, so a directory is needed; without one, exit 2 naming what the selection holds.
  const std::string log = (dir / "log.txt").string();
  int r = std::system((base + " --format t4 > " + log + " 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(r), 2);
  std::stringstream said;
  said << std::ifstream(log).rdbuf();
  EXPECT_NE(said.str().find("give --out DIRECTORY/"), std::string::npos) << said.str();
  EXPECT_NE(said.str().find("cl_tiled on opencl:Test GPU 16GB"), std::string::npos) << said.str();
  ASSERT_EQ(std::system((base + " --format t4 --out " + (dir / "t4").string() + "/ > " + log).c_str()), 0);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "t4")) {
    ++files;
    std::stringstream one;
    one << std::ifstream(e.path()).rdbuf();
    EXPECT_EQ(validate_t4(one.str()), std::vector<std::string>{}) << e.path();
  }
  EXPECT_EQ(files, 3u);  // cl_tiled, cl_direct and serial on one device at one size
  std::filesystem::remove_all(dir);
  r = std::system((base + " --format yaml >/dev/null 2>&1").c_str());
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

// best_config() answers what `best` answers: the confirmation stage's winner where it ran (not the search's
// fastest row), for every (problem, device) of the store.
TEST(BestConfig, AnswersWhatBestAnswers) {
  synthetic::TempDb db("best-config-confirmed");
  DeviceInfo dev = synthetic::gpu("Test GPU 16GB", 16);
  {
    Store store(db.path.string());
    synthetic::fill(store, dev, 1.0, {256, 1024});
    // The confirmation stage re-measured the search's top two at 256x256 and found the second faster.
    const auto run = store.begin_run({"test", "2026-11-24T01:00:00Z", "abc", "confirm", "0"});
    const auto d = store.device_id(dev);
    const auto tiled = store.variant_id({"conv", "cl_tiled", "opencl", "t1"});
    const auto prob = store.problem_id({"conv", 256, 256, 1, {{"filter", "sharpen3"}, {"border", "zero"}}},
                                       {256.0 * 256, "MPix/s", {2.0 * 256 * 256, 9.0 * 256 * 256}});
    for (const auto& [a, b, ms] : {std::tuple{6, 3, 0.30}, std::tuple{5, 3, 0.20}}) {
      Config c;
      c.set("a", std::int64_t{a});
      c.set("b", std::int64_t{b});
      c.set("mode", std::string("local"));
      EvalResult r = synthetic::result(ms);
      r.stage = "confirm";
      r.ci_low_ms = ms * 0.99;
      r.ci_high_ms = ms * 1.01;
      store.save(run, d, prob, tiled, c, r);
    }
  }
  Store store(db.path.string(), Store::Mode::read_only);
  const std::vector<ResultRow> rows = store.ranking_rows();
  std::size_t tuned = 0;
  for (const Ranking& k : rank_all(rows)) {
    if (k.winner->variant.baseline) continue;  // the serial reference's own device: nothing tuned there
    ++tuned;
    const auto b = best_config(db.path.string(), "conv", k.device.name, k.problem.size());
    ASSERT_TRUE(b) << k.problem.size();
    EXPECT_EQ(b->match, BestConfig::Match::exact);
    EXPECT_EQ(b->row.id, k.winner->id) << k.problem.size();
    EXPECT_EQ(b->row.config.canonical(), k.winner->config.canonical());
  }
  EXPECT_EQ(tuned, 2u);
  const auto confirmed = best_config(db.path.string(), "conv", "Test GPU 16GB", "256x256");
  EXPECT_EQ(confirmed->row.config.integer("a"), 5);
  EXPECT_EQ(confirmed->row.result.stage, "confirm");
  EXPECT_NE(confirmed->how.find(", confirmed"), std::string::npos) << confirmed->how;
  const auto searched = best_config(db.path.string(), "conv", "Test GPU 16GB", "1024x1024");
  EXPECT_EQ(searched->row.config.integer("a"), 6);
  EXPECT_NE(searched->how.find(", search only"), std::string::npos) << searched->how;
}

// Every device form the tool accepts: the id `pimg-tune devices` prints (backend:index, the index alone: the
// position the device had when tuned), a backend, backend:name, a name substring; and why nothing was found.
TEST(BestConfig, DeviceIdsTheToolPrints) {
  synthetic::TempDb db("best-config-ids");
  {
    Store store(db.path.string());
    DeviceInfo first = synthetic::gpu("Test GPU 16GB", 16), second = synthetic::gpu("Other Card", 8);
    first.index = 0;
    second.index = 1;
    synthetic::fill(store, first, 1.0, {256});
    synthetic::fill(store, second, 0.5, {256});
  }
  const std::string path = db.path.string();
  auto device_of = [&](const std::string& selector) {
    std::string why;
    const auto b = best_config(path, "conv", selector, "256x256", {}, &why);
    return b ? b->row.device.name : "nothing: " + why;
  };
  EXPECT_EQ(device_of("opencl:0"), "Test GPU 16GB");
  EXPECT_EQ(device_of("opencl:1"), "Other Card");
  EXPECT_EQ(device_of("1"), "Other Card");
  EXPECT_EQ(device_of("opencl"), "Other Card");  // both match: the faster answer
  EXPECT_EQ(device_of("opencl:Test GPU 16GB"), "Test GPU 16GB");
  EXPECT_EQ(device_of("other"), "Other Card");
  EXPECT_EQ(device_of("opencl:2"),
            "nothing: no stored device matches 'opencl:2' and none is of its architecture ('2'); tuned: opencl:0 (Test "
            "GPU 16GB), opencl:1 (Other Card)");
  std::string why;
  EXPECT_FALSE(best_config(path, "sobel", "opencl:0", "256x256", {}, &why));
  EXPECT_EQ(why, "no stored row of family 'sobel'");
  EXPECT_FALSE(best_config(path, "conv", "opencl:0", "256x256", {{"filter", "box3"}}, &why));
  EXPECT_EQ(why, "no tuned configuration of family 'conv' passed for these attributes");
}

// A file written before schema 11 carries the MPI backend's communication times as a `comm_ms` array of its own
// beside `kernel_ms`; importing it gives the metrics a newer file carries (mpi.comm_ms, one per timed run, a 0 left
// out), and an array of the wrong length is refused naming the field.
TEST(ExportT4, AnOlderFilesCommunicationTimesImportAsMetrics) {
  std::vector<ResultRow> one(rows().begin(), rows().begin() + 1);
  one[0].result.metrics.clear();
  const std::size_t runs = one[0].result.kernel_ms.size();
  ASSERT_GE(runs, 2u);
  const std::string doc = export_t4(one);
  const std::size_t at = doc.find("\"wall_ms\":");
  ASSERT_NE(at, std::string::npos);
  std::string comm = "\"comm_ms\":[0.5";
  for (std::size_t i = 1; i < runs; ++i) comm += i == 1 ? ",0" : ",0.25";
  comm += "],";
  const std::string older =
      (std::filesystem::temp_directory_path() / ("pimg-older-comm-" + std::to_string(::getpid()) + "_T4.json")).string();
  std::ofstream(older) << doc.substr(0, at) + comm + doc.substr(at);
  const ImportedFile f = read_import(older, {});
  ASSERT_EQ(f.entries.size(), 1u);
  std::vector<std::pair<int, double>> got;
  for (const Metric& m : f.entries[0].result.metrics)
    if (m.name == "mpi.comm_ms") got.emplace_back(m.seq, m.value);
  std::vector<std::pair<int, double>> want{{0, 0.5}};
  for (std::size_t i = 2; i < runs; ++i) want.emplace_back(static_cast<int>(i), 0.25);
  EXPECT_EQ(got, want);
  std::ofstream(older) << doc.substr(0, at) + "\"comm_ms\":[0.5]," + doc.substr(at);
  try {
    (void)read_import(older, {});
    ADD_FAILURE() << "a comm_ms array of the wrong length was imported";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(".comm_ms: must have one value per timed run"), std::string::npos) << e.what();
  }
  std::remove(older.c_str());
}

// A problem's written bytes (schema 12) travel through an export and back; a file without them (older, or a family
// that does not say) imports without; a value outside 0..min_bytes is refused naming the field.
TEST(ExportT4, WrittenBytesRoundTrip) {
  std::vector<ResultRow> one(rows().begin(), rows().begin() + 1);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("pimg-written-" + std::to_string(::getpid()) + "_T4.json")).string();
  std::ofstream(path) << export_t4(one);
  EXPECT_FALSE(read_import(path, {}).entries.at(0).cost.traffic.written);
  one[0].cost.traffic.written = one[0].cost.traffic.bytes / 4;
  const std::string doc = export_t4(one);
  std::ofstream(path) << doc;
  const ImportedFile f = read_import(path, {});
  ASSERT_TRUE(f.entries.at(0).cost.traffic.written);
  EXPECT_DOUBLE_EQ(*f.entries[0].cost.traffic.written, one[0].cost.traffic.bytes / 4);
  const std::size_t at = doc.find("\"min_written\":");
  ASSERT_NE(at, std::string::npos);
  std::ofstream(path) << doc.substr(0, at) + "\"min_written\":1e30" + doc.substr(doc.find_first_of(",}", at));
  try {
    (void)read_import(path, {});
    ADD_FAILURE() << "a min_written over min_bytes was imported";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(".min_written: must be from 0 to min_bytes"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}
