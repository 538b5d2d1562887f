// Imports of other tuners' results: T4 files (plain and gzip) and Kernel Tuner caches become one
// device, problem and variant with statuses, times and metrics; importing twice adds nothing;
// malformed files are refused naming the file and field; the shared T4 spaces replay with failures
// counted as spent evaluations; replays rank by the writer's objective and use other devices' results
// only when asked.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/usage_error.hpp"
#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "pimg/registry.hpp"
#include "pimg/replay.hpp"
#include "synthetic_db.hpp"

using namespace pimg;
namespace fs = std::filesystem;

namespace {

const char* kT4 = R"({"schema_version": "1.0.0", "metadata": {"timeunit": "miliseconds"}, "results": [
 {"configuration": {"bx": 16, "tile": 1, "flag": true}, "invalidity": "correct", "correctness": 1,
  "times": {"compilation": 900.5, "framework": 100, "validation": 10, "runtimes": [2.0, 3.0, 4.0]},
  "measurements": [{"name": "time", "value": 3.0, "unit": ""}], "objectives": ["time"]},
 {"configuration": {"bx": 32, "tile": 1, "flag": true}, "invalidity": "correct", "correctness": 1,
  "times": {"compilation": 800, "framework": 50, "runtimes": [1.0, 1.0]},
  "measurements": [{"name": "time", "value": 1.0, "unit": ""}], "objectives": ["time"]},
 {"configuration": {"bx": 64, "tile": 2, "flag": false}, "invalidity": "runtime", "correctness": 0,
  "times": {"compilation": 700, "framework": 5},
  "measurements": [{"name": "time", "value": "RuntimeFailedConfig", "unit": ""}], "objectives": ["time"]},
 {"configuration": {"bx": 64, "tile": 4, "flag": false}, "invalidity": "constraints", "correctness": 0,
  "times": {}, "measurements": [], "objectives": ["time"]}
]})";

struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("pimg-import-" + name + "-" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
  std::string write_gz(const std::string& name, const std::string& text) const {
    const std::string p = (path / name).string();
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, text.data(), static_cast<unsigned>(text.size()));
    gzclose(f);
    return p;
  }
};

std::string error_of(const std::string& path) {
  return testcommon::usage_error_of([&] { read_import(path); }, "(no error)");
}

}  // namespace

TEST(Import, T4FileBecomesOneSpaceWithStatusesTimesAndMetrics) {
  TempDir dir("t4");
  const std::string path = dir.write_gz("convolution_A100_T4.json.gz", kT4);
  const ImportedFile f = read_import(path);
  EXPECT_EQ(f.format, "t4");
  EXPECT_EQ(f.device.name, "A100");
  EXPECT_EQ(f.problem.family, "t4:convolution");
  EXPECT_TRUE(is_imported_family(f.problem.family));
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.constraint_violations, 1u);

  synthetic::TempDb db("import");
  Store store(db.path.string());
  const RunInfo run{"h", "t", "c", "pimg-tune import", "v"};
  const ImportSummary s = store_import(store, f, run);
  EXPECT_EQ(s.added, 3u);
  EXPECT_EQ(s.already_stored, 0u);
  const ImportSummary again = store_import(store, f, run);
  EXPECT_EQ(again.added, 0u);
  EXPECT_EQ(again.already_stored, 3u);

  auto rows = store.rows_with_samples();
  ASSERT_EQ(rows.size(), 3u);
  const ResultRow& first = rows[0];
  EXPECT_EQ(first.config.integer("bx"), 16);
  EXPECT_EQ(first.config.integer("flag"), 1);
  EXPECT_EQ(first.result.status, Status::ok);
  EXPECT_DOUBLE_EQ(first.result.kernel.median, 3.0);
  EXPECT_EQ(first.result.kernel_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(first.result.compile_ms, 900.5);
  EXPECT_DOUBLE_EQ(first.result.eval_ms, 900.5 + 100 + 10 + 9);
  bool framework = false;
  for (const auto& m : first.result.metrics) framework |= m.name == "import.framework_ms" && m.value == 100;
  EXPECT_TRUE(framework);
  EXPECT_EQ(rows[2].result.status, Status::launch_error);
  EXPECT_DOUBLE_EQ(rows[2].result.eval_ms, 705);

  // One replay space: the failure is a point that costs an evaluation and its time.
  auto spaces = replay_spaces(store.rows());
  ASSERT_EQ(spaces.size(), 1u);
  EXPECT_EQ(spaces[0].space.size(), 3u);
  EXPECT_DOUBLE_EQ(spaces[0].optimum_ms, 1.0);
  EXPECT_EQ(std::count_if(spaces[0].cost.begin(), spaces[0].cost.end(), [](double c) { return !std::isfinite(c); }), 1);
}

// KTT writes its T4 files with the device in the metadata, times in microseconds and every value as text:
// the device is the metadata's, the times are converted, and a parameter whose every value is an integer's
// text is that integer (ordered as a number by the strategies); any other text stays text.
TEST(Import, KttT4FileNamesItsDeviceAndWritesValuesAsText) {
  TempDir dir("ktt");
  const std::string path = dir.write("FullSearchSpace.t4.json", R"({"metadata": {"autotuner": "KTT",
   "device": "NVIDIA RTX 500 Ada Generation Laptop GPU", "timeunit": "microseconds"}, "results": [
 {"configuration": {"bs": "32", "mode": "fast", "pad": "1"}, "invalidity": "correct", "correctness": 1,
  "times": {"compilation_time": 16215.0, "runtimes": [90.656]}, "measurements": [{"name": "time", "value": 90.656}],
  "objectives": ["time"]},
 {"configuration": {"bs": "-64", "mode": "slow", "pad": "01"}, "invalidity": "correct", "correctness": 1,
  "times": {"runtimes": [62.816]}, "measurements": [{"name": "time", "value": 62.816}], "objectives": ["time"]}
]})");
  const ImportedFile f = read_import(path);
  EXPECT_EQ(f.device.name, "NVIDIA RTX 500 Ada Generation Laptop GPU");
  EXPECT_EQ(f.problem.family, "t4:FullSearchSpace");
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.entries[0].config.integer("bs"), 32);
  EXPECT_EQ(f.entries[1].config.integer("bs"), -64);
  EXPECT_EQ(f.entries[0].config.at("mode"), Value(std::string("fast")));
  EXPECT_EQ(f.entries[0].config.at("pad"), Value(std::string("1")));  // "01" is no integer's text
  EXPECT_DOUBLE_EQ(f.entries[1].result.kernel_ms.at(0), 0.062816);
  EXPECT_EQ(read_import(path, {.device = "mine"}).device.name, "mine");  // --device still decides
  const std::string bad = dir.write("x_y.t4.json", R"({"metadata": {"device": 7}, "results": []})");
  EXPECT_NE(error_of(bad).find("metadata.device: must be the device's name (a string)"), std::string::npos) << error_of(bad);
}

TEST(Import, KernelTunerCache) {
  TempDir dir("cache");
  const std::string path = dir.write("anything.json", R"({"device_name": "NVIDIA RTX A4000", "kernel_name": "conv",
    "problem_size": [4096, 2048], "tune_params_keys": ["x", "y"], "tune_params": {"x": [1, 2], "y": [0.5, 1.5]},
    "objective": "time", "cache": {
      "1,0.5": {"x": 1, "y": 0.5, "time": 2.5, "times": [2.4, 2.5, 2.6], "compile_time": 300, "framework_time": 20,
                "verification_time": 0, "benchmark_time": 7.5, "strategy_time": 0, "timestamp": "2024"},
      "2,0.5": {"x": 2, "y": 0.5, "time": "CompilationFailedConfig", "compile_time": 100},
      "2,1.5": {"x": 2, "y": 1.5, "time": "InvalidConfig"}}})");
  const ImportedFile f = read_import(path);
  EXPECT_EQ(f.format, "kernel-tuner-cache");
  EXPECT_EQ(f.device.name, "NVIDIA RTX A4000");
  EXPECT_EQ(f.problem.family, "t4:conv");
  EXPECT_EQ(f.problem.width, 4096);
  EXPECT_EQ(f.problem.height, 2048);
  ASSERT_EQ(f.entries.size(), 2u);
  EXPECT_EQ(f.constraint_violations, 1u);
  EXPECT_EQ(f.entries[0].config.text("y"), "0.5");  // a non-integral value keeps its text
  EXPECT_DOUBLE_EQ(f.entries[0].result.kernel.median, 2.5);
  EXPECT_DOUBLE_EQ(f.entries[0].result.eval_ms, 300 + 20 + 7.5);
  EXPECT_EQ(f.entries[1].result.status, Status::compile_error);
}

TEST(Import, MalformedFilesAreRefusedNamingFileAndField) {
  TempDir dir("bad");
  auto bad = [&](const std::string& text) { return error_of(dir.write("k_D_T4.json", text)); };
  const std::string p = (dir.path / "k_D_T4.json").string();
  EXPECT_EQ(bad("{\"results\": [1]}"), p + ":1:14: results[0]: must be an object");
  EXPECT_EQ(bad("{\"results\": [{\"invalidity\": \"correct\"}]}"), p + ":1:14: results[0].configuration: missing");
  EXPECT_NE(bad(R"({"results": [{"configuration": {"a": 1}, "invalidity": "odd", "times": {}}]})").find("results[0].invalidity: unknown value 'odd'"),
            std::string::npos);
  EXPECT_NE(bad(R"({"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [-1]}}]})")
                .find("results[0].times.runtimes[0]: must be a finite number >= 0"),
            std::string::npos);
  EXPECT_NE(bad(R"({"results": [{"configuration": {"a": [1]}, "invalidity": "correct", "times": {}}]})")
                .find("results[0].configuration.a: must be a number, a string or a boolean"),
            std::string::npos);
  // The file's own text in a message (a value, a key) keeps the message one line.
  EXPECT_EQ(bad(R"({"results": [{"configuration": {}, "invalidity": "a\nb", "times": {}}]})"),
            p + ":1:50: results[0].invalidity: unknown value 'a\\x0ab' (correct, compile, runtime, correctness, constraints, timeout)");
  EXPECT_EQ(bad(R"({"results": [{"configuration": {"k\u0000\r": [1]}, "invalidity": "correct", "times": {}}]})"),
            p + ":1:46: results[0].configuration.k\\x00\\x0d: must be a number, a string or a boolean");
  EXPECT_EQ(bad("{\"results\": [}"), p + ": line 1, column 14: expected a value");
  EXPECT_NE(bad("{\"other\": 1}").find("results: missing"), std::string::npos);
  EXPECT_NE(bad("{\"results\": []}").find("results: no configuration to import"), std::string::npos);
  EXPECT_NE(error_of(dir.write("x.json.gz", "\x1f\x8b garbage")).find("gzip"), std::string::npos);
  EXPECT_NE(error_of((dir.path / "missing.json").string()).find("no such file"), std::string::npos);
  EXPECT_NE(error_of(dir.path.string()).find("a directory, not a file"), std::string::npos);
  EXPECT_NE(error_of("/dev/zero").find("not a regular file"), std::string::npos);
  // A correct configuration must have been measured: an "ok" of 0 ms would win every ranking.
  EXPECT_NE(bad(R"({"results": [{"configuration": {"a": 1}, "invalidity": "correct", "times": {"runtimes": [0]}}]})")
                .find("results[0].times.runtimes: a correct configuration with a run of 0 ms"),
            std::string::npos);
  // The limit on a file and on what gzip expands it to.
  const std::string big = dir.write("k_D_T4.json", "{\"results\": [" + std::string(2 << 20, ' ') + "]}");
  pimg::ImportOptions small;
  small.max_bytes = 1 << 20;
  try {
    pimg::read_import(big, small);
    ADD_FAILURE() << "a 2 MiB file read under a 1 MiB limit";
  } catch (const pimg::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("more than the import limit of 1 MiB (--max-size)"), std::string::npos) << e.what();
  }
}

// pimg-tune's own export tags each configuration with its variant: that key names the variant (the
// file's kernel otherwise), and the timestamp is kept as the row's time.
TEST(Import, VariantKeyAndTimestamp) {
  TempDir dir("variant");
  const std::string path = dir.write("k_D_T4.json", R"({"results": [
    {"timestamp": "2023-12-22 09:54:05.502007+00:00", "configuration": {"bx": 16, "variant": "fast"},
     "invalidity": "correct", "correctness": 1, "times": {"runtimes": [1.5]}},
    {"configuration": {"bx": 16, "variant": "slow"}, "invalidity": "correct", "correctness": 1, "times": {"runtimes": [3]}},
    {"configuration": {"bx": 32}, "invalidity": "compile", "correctness": 0, "times": {}}]})");
  const ImportedFile f = read_import(path);
  ASSERT_EQ(f.entries.size(), 3u);
  EXPECT_EQ(f.entries[0].variant.name, "fast");
  EXPECT_EQ(f.entries[1].variant.name, "slow");
  EXPECT_EQ(f.entries[2].variant.name, "k");
  EXPECT_FALSE(f.entries[0].config.has("variant"));
  synthetic::TempDb db("import-variant");
  Store store(db.path.string());
  EXPECT_EQ(store_import(store, f, {"h", "t", "c", "import", "v"}).added, 3u);
  const auto rows = store.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].variant.name, "fast");
  EXPECT_EQ(rows[0].created_at, "2023-12-22 09:54:05.502007+00:00");
  EXPECT_EQ(rows[1].variant.name, "slow");
  EXPECT_EQ(rows[0].config, rows[1].config);  // one configuration, two variants
  EXPECT_FALSE(rows[1].created_at.empty());    // no timestamp: the time of the import
}

TEST(Import, MalformedPimgFieldsAreRefusedNamingTheField) {
  TempDir dir("bad-pimg");
  auto bad = [&](const std::string& pimg) {
    return error_of(dir.write("k_D_T4.json", R"({"results": [{"configuration": {"a": 1, "variant": "v"},
      "invalidity": "correct", "correctness": 1, "times": {"runtimes": [1]}, "pimg": )" + pimg + "}]}"));
  };
  EXPECT_NE(bad("[]").find("results[0].pimg: must be an object"), std::string::npos) << bad("[]");
  EXPECT_NE(bad("{}").find("results[0].pimg.device: missing"), std::string::npos) << bad("{}");
  EXPECT_NE(bad(R"({"device": {"backend": 1}})").find("results[0].pimg.device.backend: must be a string, is a number"),
            std::string::npos)
      << bad(R"({"device": {"backend": 1}})");
  EXPECT_NE(error_of(dir.write("k_D_T4.json", R"({"results": [{"configuration": {"variant": 2}, "invalidity": "correct",
      "correctness": 1, "times": {"runtimes": [1]}}]})")).find("results[0].configuration.variant: must be the variant's name"),
            std::string::npos);
}

TEST(Import, SharedConvolutionSpaceReplaysWithFailuresSpent) {
  // ../shared beside the checkout (or beside the folder of worktrees).
  fs::path file = fs::path(PIMG_SOURCE_DIR) / "../shared/t4/convolution_A100_T4.json.gz";
  if (!fs::exists(file)) file = fs::path(PIMG_SOURCE_DIR) / "../../shared/t4/convolution_A100_T4.json.gz";
  if (!fs::exists(file)) GTEST_SKIP() << file << " not present";
  const ImportedFile f = read_import(file.string());
  EXPECT_EQ(f.entries.size(), 4362u);
  synthetic::TempDb db("import-shared");
  Store store(db.path.string());
  store_import(store, f, {"h", "t", "c", "import", "v"});
  auto spaces = replay_spaces(store.rows());
  ASSERT_EQ(spaces.size(), 1u);
  const ReplaySpace& s = spaces[0];
  EXPECT_EQ(s.space.size(), 4362u);
  EXPECT_EQ(std::count_if(s.cost.begin(), s.cost.end(), [](double c) { return std::isfinite(c); }), 4201);
  // Every evaluation, failed or not, takes its stored time; a run's tuning time is their sum.
  const StrategyInfo* random = Registry::builtin().strategy("random");
  auto st = random->make(s.space, resolve_options(*random, {{"budget", "30"}}), 1);
  const ReplayRun run = replay(s, *st, 30);
  ASSERT_EQ(run.best.size(), 30u);
  EXPECT_GT(run.time_ms.back(), 30 * 100.0);  // compiles alone take several hundred ms each
}

// Two devices' T4 files in one store (tests/data/t4/stencil_*): a replay on one device is ranked by the
// writer's objective (the median only when asked) and knows nothing of the other device unless asked.
TEST(Import, ReplayUsesTheWritersObjectiveAndOtherDevicesOnlyWithTransfer) {
  synthetic::TempDb db("import-two-devices");
  Store store(db.path.string());
  for (const char* dev : {"GPUA", "GPUB"})
    store_import(store, read_import(std::string(PIMG_TEST_DATA) + "/t4/stencil_" + dev + "_T4.json"),
                 {"h", "t", "c", "import", "v"});
  auto rows = store.rows();
  store.add_metrics(rows);
  auto on_a = [](const std::vector<ReplaySpace>& spaces) -> const ReplaySpace& {
    for (const auto& s : spaces)
      if (s.device.name == "GPUA") return s;
    throw std::runtime_error("no GPUA space");
  };
  const auto plain = replay_spaces(rows);
  ASSERT_EQ(plain.size(), 2u);
  const ReplaySpace& a = on_a(plain);
  EXPECT_DOUBLE_EQ(a.optimum_ms, 1.0);  // the mean, as written: bx 1 tile 1 (median 0.9) is 2.3 ms
  EXPECT_EQ(a.objective, "the writer's objective (its recorded time)");
  EXPECT_TRUE(a.priors.empty());
  const auto by_median = replay_spaces(rows, {ReplayObjective::median, false});
  EXPECT_DOUBLE_EQ(on_a(by_median).optimum_ms, 0.9);
  EXPECT_EQ(on_a(by_median).objective, "the median of the runs");
  const auto transfer = replay_spaces(rows, {ReplayObjective::writer, true});
  const ReplaySpace& at = on_a(transfer);
  ASSERT_EQ(at.priors.size(), 36u);  // GPUB's 35 ok configurations and its failure
  EXPECT_EQ(prior_groups(at.priors), std::vector<std::string>{"imported:GPUB " + a.problem.label() + " (36)"});

  // gp starts from the best points by its prior: with GPUB's results its first evaluation on GPUA is
  // GPUB's optimum (GPUA's too) on every seed; without them, its first points are random.
  const Registry& reg = Registry::builtin();
  auto after_one = [&](const ReplaySpace& s) {  // the 1% budget: one evaluation of the 36
    const auto c = compare_strategies({s}, reg, 20, {"gp"});
    const auto& budgets = c[0].scores.back().budgets;
    const auto it = std::find_if(budgets.begin(), budgets.end(), [](const BudgetScore& x) { return x.label == "1%"; });
    EXPECT_NE(it, budgets.end());
    const BudgetScore b = it != budgets.end() ? *it : BudgetScore{};
    EXPECT_EQ(b.evaluations, 1u);
    EXPECT_LE(b.worst, b.p10);
    EXPECT_LE(b.p10, b.mean + 1e-12);
    return b;
  };
  EXPECT_DOUBLE_EQ(after_one(at).worst, 1.0);
  EXPECT_LT(after_one(a).mean, 0.9);
}

// The writer's objective as imported: T4's `time` measurement unless the result names another
// objective first; a Kernel Tuner cache's `time`; a correct result's time that is no number is refused.
TEST(Import, WritersObjectiveIsStoredAsAMetric) {
  TempDir dir("objective");
  const ImportedFile f = read_import(dir.write("k_D_T4.json", kT4));
  ASSERT_TRUE(writer_objective_ms(f.entries[0].result));
  EXPECT_DOUBLE_EQ(*writer_objective_ms(f.entries[0].result), 3.0);
  EXPECT_FALSE(writer_objective_ms(f.entries[2].result));  // failed
  const ImportedFile other = read_import(dir.write("k_D_T4.json", R"({"results": [{"configuration": {"a": 1},
    "invalidity": "correct", "times": {"runtimes": [1, 2]}, "measurements": [{"name": "time", "value": 1.5},
    {"name": "GFLOP/s", "value": 9}], "objectives": ["GFLOP/s"]}]})"));
  EXPECT_FALSE(writer_objective_ms(other.entries[0].result));
  const ImportedFile cache = read_import(dir.write("c.json", R"({"device_name": "D", "kernel_name": "k",
    "tune_params_keys": ["x"], "cache": {"1": {"x": 1, "time": 2.5, "times": [2, 2, 3.5]}}})"));
  ASSERT_TRUE(writer_objective_ms(cache.entries[0].result));
  EXPECT_DOUBLE_EQ(*writer_objective_ms(cache.entries[0].result), 2.5);
  EXPECT_DOUBLE_EQ(cache.entries[0].result.kernel.median, 2.0);
  EXPECT_NE(error_of(dir.write("k_D_T4.json", R"({"results": [{"configuration": {"a": 1}, "invalidity": "correct",
    "times": {"runtimes": [1]}, "measurements": [{"name": "time", "value": "fast"}]}]})"))
                .find("results[0].measurements[0].value: must be a number, is a string"),
            std::string::npos);
}
