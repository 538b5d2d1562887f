// T1 kernel descriptions end to end: malformed files are refused with exit code 2 naming the place
// and leave no database; an OpenCL T1 kernel (conv's sharpen3, tests/data/t1/sharpen.json) is tuned
// on PoCL and validated against its default configuration and against raw reference files.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "e2e_util.hpp"
#include "json.hpp"

namespace {

namespace fs = std::filesystem;
const std::string kT1 = std::string(PIMG_TEST_DATA) + "/t1";
// Tuning runs name --device 0, the first OpenCL device, so their counts hold where there are several (PoCL beside
// NVIDIA's OpenCL on the GPU machine).

bool have_opencl() { return e2e::run("devices").out.find("opencl:0") != std::string::npos; }

// What each malformed file's message names besides FILE:LINE:COLUMN.
const std::map<std::string, std::string> kBad = {
    {"01-not-json.json", "not valid JSON"},
    {"02-not-an-object.json", "a T1 file is a JSON object"},
    {"03-no-kernel-specification.json", "missing 'KernelSpecification'"},
    {"05-vulkan.json", "KernelSpecification.Language: 'Vulkan' is not supported"},
    {"06-kernel-file-missing.json", "KernelSpecification.KernelFile"},
    {"07-kernel-name-not-in-file.json", "KernelSpecification.KernelName: 'blur_kernel' does not occur"},
    {"08-parameter-type.json", "TuningParameters[0].Type: 'complex'"},
    {"09-values-empty.json", "TuningParameters[0].Values: is empty"},
    {"10-values-not-a-list.json", "TuningParameters[0].Values: must be a list"},
    {"11-values-duplicate.json", "TuningParameters[0].Values: 8 is listed twice"},
    {"12-parameter-values-overflow.json",
     "TuningParameters[0].Values: '[8, 2**64]': column 6 of the expression: integer overflow: 2 ** 64 is beyond 64 bits"},
    {"13-condition-syntax.json", "Conditions[0].Expression"},
    {"14-condition-unknown-name.json", "Conditions[0].Expression: 'block_size_z' is not a tuning parameter"},
    {"15-condition-list.json", "Conditions[0].Expression: 'block_size_x in range(8, 17)': column 14 of the expression: "
                               "a condition takes 'in' with a list written out"},
    {"16-argument-type.json", "Arguments[0].Type: 'int128'"},
    {"17-fill-script.json", "Arguments[0].FillType: 'Script' is not supported"},
    {"18-fill-generator.json", "Arguments[0].DataSource: 'j % 256': column 1 of the expression: unknown name 'j'"},
    {"19-local-memory.json", "Arguments[0].MemoryType: 'Local' arguments are not supported"},
    {"20-size-negative.json", "Arguments[0].Size: must be a positive integer"},
    {"21-size-unknown-name.json",
     "Arguments[0].Size: 'ProblemSize[0] * image_depth': column 18 of the expression: unknown name 'image_depth'"},
    {"23-no-output.json", "KernelSpecification.Arguments: no output"},
    {"24-binary-raw-missing.json", "Arguments[0].DataSource"},
    {"25-three-lanes-on-opencl.json", "Arguments[1].Type: 'float3': a 3-lane vector is stored as 4 lanes in OpenCL"},
    {"26-grid-div-unknown.json", "GridDivX: 'tile_size_x' is not a tuning parameter"},
    {"27-problem-size-empty.json", "ProblemSize: must have 1 to 3 dimensions"},
    {"28-search-unknown.json", "Search.Name: 'QuantumAnnealing'"},
    {"29-budget-type.json", "Budget.Type: 'Energy'"},
    {"30-custom-type.json", "Arguments[0].Type: 'custom' types are not supported"},
    {"31-values-range-step-zero.json",
     "TuningParameters[0].Values: '[2**i for i in range(5, 0, 0)]': column 16 of the expression: range() step must not be zero"},
    {"32-duplicate-parameter.json", "parameter 'block_size_x' is declared twice"},
    {"33-symbol-on-opencl.json", "Arguments[0].MemoryType: 'Symbol' arguments exist only for CUDA"},
    {"34-local-size-unknown-name.json", "LocalSize.X: 'block_size_w': column 1 of the expression: unknown name 'block_size_w'"},
};

TEST(T1, EveryMalformedFileIsRefusedWithExitTwoNamingThePlace) {
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(kT1 + "/bad")) {
    ++files;
    const std::string name = e.path().filename().string();
    ASSERT_TRUE(kBad.count(name)) << name << " has no expected message";
    const fs::path dir = e2e::temp_dir("t1-bad");
    const fs::path db = dir / "t.db";
    const e2e::Ran r = e2e::run("t1 " + e.path().string() + " --db " + db.string() + " --quiet");
    EXPECT_EQ(r.code, 2) << name << ": " << r.out;
    EXPECT_NE(r.out.find(e.path().string()), std::string::npos) << name << ": " << r.out;
    EXPECT_NE(r.out.find(kBad.at(name)), std::string::npos) << name << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << name << ": one line: " << r.out;
    EXPECT_FALSE(fs::exists(db)) << name;
    fs::remove_all(dir);
  }
  EXPECT_EQ(files, kBad.size());
  EXPECT_GE(files, 15u);
}

TEST(T1, CheckPrintsTheSpaceWithoutADevice) {
  const e2e::Ran r = e2e::run("t1 " + kT1 + "/sharpen.json --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("family t1-sharpen, kernel sharpen (OpenCL), 3 parameters, 8 raw and 7 valid"), std::string::npos)
      << r.out;  const e2e::Ran j = e2e::run("t1 " + kT1 + "/sharpen.json --check --json");
  ASSERT_EQ(j.code, 0) << j.out;
  const Json space = JsonParser(j.out).document();
  EXPECT_EQ(space["family"].text, "t1-sharpen");
  EXPECT_EQ(space["language"].text, "OpenCL");
  EXPECT_EQ(space["parameters"].number, 3);
  EXPECT_EQ(space["raw"].number, 8);
  EXPECT_EQ(space["valid"].number, 7);
  EXPECT_FALSE(space["sampled"].boolean);
}

// A kernel written for HIP is checked as CUDA through the HIP-to-CUDA mapping, with a warning that says so; one that
// uses a HIP name the mapping does not cover is refused (exit 2), naming the name, the file and the field.
TEST(T1, AKernelWrittenForHipIsReadAsCudaAndAnUnmappedHipNameIsRefused) {
  e2e::Ran r = e2e::run("t1 " + kT1 + "/hip/sharpen_hip.json --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("(CUDA)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sharpen_hip.json:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: KernelSpecification.Language: a kernel written for HIP, compiled as CUDA"),
            std::string::npos)
      << r.out;
  r = e2e::run("t1 " + kT1 + "/hip/unmapped_hip.json --check");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unmapped_hip.json:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("KernelSpecification.KernelFile: a kernel written for HIP uses a HIP name that pimg-tune's "
                       "HIP-to-CUDA mapping (kernels/t1/hip_runtime.h) does not cover: __hip_move_dpp"),
            std::string::npos)
      << r.out;
}

TEST(T1, ConvolutionMiloLoadsWithItsConditions) {
  std::string milo = std::string(PIMG_SOURCE_DIR) + "/../shared/t1/convolution_milo.json";
  if (!fs::exists(milo)) milo = std::string(PIMG_SOURCE_DIR) + "/../../shared/t1/convolution_milo.json";  // a worktree
  if (!fs::exists(milo)) GTEST_SKIP() << milo << " is absent (../shared/t1)";
  const e2e::Ran r = e2e::run("t1 " + milo + " --check");
  ASSERT_EQ(r.code, 0) << r.out;
  // 16*5*4*4*2*2*2 raw points; the four conditions leave the space Kernel Tuner measured.
  EXPECT_NE(r.out.find("10240 raw and"), std::string::npos) << r.out;
}

std::string sqlite_count(const fs::path& db, const std::string& where) {
  return e2e::query(db.string(), "SELECT count(*) FROM evaluations WHERE stage = 'search' AND (" + where + ")").at(0);
}

TEST(T1, OpenClKernelIsTunedOnPoclAgainstItsDefaultConfiguration) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("t1-sharpen");
  const fs::path db = dir / "t.db";
  const std::string env = "PIMG_CACHE_DIR=" + (dir / "cache").string();
  e2e::Ran r = e2e::run("t1 " + kT1 + "/sharpen.json --device 0 --db " + db.string() + " --repeats 2 --quiet", env);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(sqlite_count(db, "status = 'ok'"), "7") << r.out;
  EXPECT_EQ(e2e::query(db.string(), "SELECT DISTINCT validation FROM evaluations"),
            std::vector<std::string>{"exact against the default configuration's output"});
  r = e2e::run("best t1-sharpen --db " + db.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("sharpen"), std::string::npos) << r.out;
  // Stored results are resumed, not measured again.
  r = e2e::run("t1 " + kT1 + "/sharpen.json --device 0 --db " + db.string() + " --quiet", env);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("0 measured, 0 ok, 0 failed, 7 already stored"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// A default configuration that leaves output elements unwritten gives no reference: the file is refused (exit 2),
// saying the output keeps the poison and where, before anything is tuned; the database is not created. The same
// kernel writing every element tunes. Also: the tuner's --report and report's --out make the folders they name.
TEST(T1, AReferenceWithUnwrittenElementsIsRefusedAndOutputFoldersAreMade) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("t1-unwritten");
  const std::string env = "PIMG_CACHE_DIR=" + (dir / "cache").string();
  fs::copy_file(kT1 + "/sharpen.json", dir / "sharpen.json");
  std::string cl = e2e::slurp(kT1 + "/sharpen.cl");
  const std::string store = "    out[y * width + x] = (uchar)clamp(acc, 0, 255);";
  ASSERT_NE(cl.find(store), std::string::npos);
  std::ofstream(dir / "sharpen.cl") << std::string(cl).replace(cl.find(store), store.size(),
                                                               "    if (x == 7 && y == 5) continue;\n" + store);
  const fs::path db = dir / "t.db";
  e2e::Ran r = e2e::run("t1 " + (dir / "sharpen.json").string() + " --device 0 --db " + db.string() + " --quiet", env);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("gives no reference"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("leaves its output unwritten: byte "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(db));
  std::ofstream(dir / "sharpen.cl") << cl;
  const fs::path report = dir / "new" / "folder" / "r.md";
  r = e2e::run("t1 " + (dir / "sharpen.json").string() + " --device 0 --db " + db.string() + " --repeats 1 --quiet", env);
  ASSERT_EQ(r.code, 0) << r.out;
  r = e2e::run("report --db " + db.string() + " --out " + report.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(fs::exists(report));
  fs::remove_all(dir);
}

// tests/data/t1/update: arguments the kernel reads and updates start from their fill in every run (a count or an
// output left from the run before would give other values from the second run on), the header beside the kernel
// is compiled in, and a Generator fills the input and the reference. Editing the header changes the kernel:
// the next run measures again, and the edited step fails validation.
TEST(T1, ReadWriteArgumentsStartFromTheirFillInEveryRunAndHeadersAreCompiledIn) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("t1-update");
  for (const char* f : {"update.json", "update.cl", "update_step.h"})
    fs::copy_file(kT1 + "/update/" + f, dir / f);
  const fs::path db = dir / "t.db";
  const std::string env = "PIMG_CACHE_DIR=" + (dir / "cache").string();
  const std::string tune = "t1 " + (dir / "update.json").string() + " --device 0 --db " + db.string() + " --repeats 3 --quiet";
  e2e::Ran r = e2e::run(tune, env);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(sqlite_count(db, "status = 'ok'"), "4") << r.out;
  EXPECT_EQ(sqlite_count(db, "status != 'ok'"), "0") << r.out;
  {
    std::ofstream h(dir / "update_step.h");
    h << "inline float update_step(float previous, float x, float counted) { return 2.0f * previous + x + 2.0f * counted; }\n";
  }
  r = e2e::run(tune, env);
  ASSERT_EQ(r.code, 4) << r.out;  // every configuration this run measured failed
  EXPECT_EQ(sqlite_count(db, "status = 'ok'"), "4") << r.out;
  EXPECT_EQ(sqlite_count(db, "status = 'wrong_result'"), "4") << "the edited header is measured again, and fails: " << r.out;
  fs::remove_all(dir);
}

// conv's sharpen3 rule on the host: the reference file the T1 file names.
std::vector<unsigned char> sharpen(const std::vector<unsigned char>& in, int w, int h) {
  auto px = [&](int x, int y) { return x < 0 || y < 0 || x >= w || y >= h ? 0 : static_cast<int>(in[y * w + x]); };
  std::vector<unsigned char> out(in.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out[y * w + x] = static_cast<unsigned char>(
          std::clamp(5 * px(x, y) - px(x - 1, y) - px(x + 1, y) - px(x, y - 1) - px(x, y + 1), 0, 255));
  return out;
}

void write(const fs::path& p, const std::vector<unsigned char>& b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

TEST(T1, ReferenceArgumentsFromRawFilesValidateAndCatchAWrongReference) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("t1-raw");
  const int w = 256, h = 96;
  std::vector<unsigned char> in(w * h);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  write(dir / "in.raw", in);
  std::vector<unsigned char> expected = sharpen(in, w, h);
  write(dir / "good.raw", expected);
  expected[w * 40 + 17] ^= 1;
  write(dir / "bad.raw", expected);
  fs::copy_file(kT1 + "/sharpen.cl", dir / "sharpen.cl");
  std::ifstream t(kT1 + "/sharpen.json");
  std::string json((std::istreambuf_iterator<char>(t)), std::istreambuf_iterator<char>());
  const std::string random = R"("FillType": "Random", "FillValue": 255, "RandomSeed": 1107,)";
  ASSERT_NE(json.find(random), std::string::npos);
  json.replace(json.find(random), random.size(), R"("FillType": "BinaryRaw", "DataSource": "in.raw",)");
  for (const std::string ref : {"good", "bad"}) {
    std::string j = json;
    const std::string anchor = R"("Arguments": [)";
    j.insert(j.find(anchor), R"("ReferenceArguments": [{"Name": "expected", "TargetName": "out", "FillType": "BinaryRaw", "DataSource": ")" +
                                 ref + R"(.raw", "ValidationMethod": "SideBySideComparison", "ValidationThreshold": 0}],
    )");
    std::ofstream(dir / (ref + ".json")) << j;
    const fs::path db = dir / (ref + ".db");
    const e2e::Ran r = e2e::run("t1 " + (dir / (ref + ".json")).string() + " --device 0 --db " + db.string() + " --repeats 1 --quiet",
                                "PIMG_CACHE_DIR=" + (dir / "cache").string());
    ASSERT_EQ(r.code, ref == "good" ? 0 : 4) << r.out;  // 4: no configuration passed
    if (ref == "good") {
      EXPECT_EQ(sqlite_count(db, "status = 'ok'"), "7") << r.out;
    } else {
      EXPECT_EQ(sqlite_count(db, "status = 'wrong_result'"), "7") << r.out;
      EXPECT_NE(e2e::query(db.string(), "SELECT log FROM evaluations LIMIT 1").at(0).find("element 10257"), std::string::npos);
    }
  }
  fs::remove_all(dir);
}

}  // namespace

namespace {

// User variants joining conv from a space file: tuned on PoCL and OpenMP, validated by conv's own
// reference, and measured again when their kernel text changes.
TEST(UserVariants, JoinConvOnPoclAndOpenMpAndFollowTheirKernelText) {
  if (!have_opencl()) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("user-variants");
  fs::create_directories(dir / "user");
  fs::create_directories(dir / "t1");
  fs::copy_file(std::string(PIMG_TEST_DATA) + "/user/conv-user.yaml", dir / "user/conv-user.yaml");
  fs::copy_file(std::string(PIMG_TEST_DATA) + "/user/sharpen_omp.cpp", dir / "user/sharpen_omp.cpp");
  fs::copy_file(kT1 + "/sharpen.cl", dir / "t1/sharpen.cl");
  const std::string env = "PIMG_CACHE_DIR=" + (dir / "cache").string();
  const std::string cmd = "conv --space " + (dir / "user/conv-user.yaml").string() + " --db " + (dir / "t.db").string() + " --repeats 1 --quiet";
  e2e::Ran r = e2e::run(cmd, env);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("7 measured, 7 ok, 0 failed"), std::string::npos) << r.out;
  const auto rows = e2e::query((dir / "t.db").string(),
                               "SELECT v.name, e.validation FROM evaluations e JOIN variants v ON v.id = e.variant_id "
                               "WHERE v.name LIKE 'my_%' ORDER BY v.name LIMIT 1");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], "my_sharpen_cl|exact");
  // The OpenCL kernel's text changes: its four configurations are measured again, the rest resumed.
  std::ofstream(dir / "t1/sharpen.cl", std::ios::app) << "// edited\n";
  r = e2e::run(cmd, env);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("4 measured, 4 ok, 0 failed, 3 already stored"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

TEST(UserVariants, MalformedDeclarationsAreRefusedWithThePlace) {
  const std::string good = e2e::slurp(std::string(PIMG_TEST_DATA) + "/user/conv-user.yaml");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"backend: opencl", "backend: vulkan"}, {"entry: my_sharpen", "entry: no_such_entry"},
      {"source: sharpen_omp.cpp", "source: missing.cpp"}, {"parameters: {CHUNK: 8}", "parameters: {CHUNK: eight}"},
      {"args: [in, out, width, height]\n\nvariants", "args: [in, out, width +]\n\nvariants"},
      {"    entry: my_sharpen\n", "    entry: my_sharpen\n    colour: blue\n"}};
  const std::vector<std::string> says = {"backend 'vulkan' is not opencl", "'no_such_entry' does not occur",
                                         "missing.cpp is not a readable kernel file", "default 'eight' is not an integer",
                                         "argument 'width +'", "unknown key 'colour'"};
  const fs::path dir = e2e::temp_dir("user-bad");
  fs::create_directories(dir / "user");
  fs::copy_file(std::string(PIMG_TEST_DATA) + "/user/sharpen_omp.cpp", dir / "user/sharpen_omp.cpp");
  fs::create_directories(dir / "t1");
  fs::copy_file(kT1 + "/sharpen.cl", dir / "t1/sharpen.cl");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::string text = good;
    const auto at = text.find(cases[i].first);
    ASSERT_NE(at, std::string::npos) << cases[i].first;
    text.replace(at, cases[i].first.size(), cases[i].second);
    const fs::path space = dir / "user/bad.yaml";
    std::ofstream(space) << text;
    const e2e::Ran r = e2e::run("conv --space " + space.string() + " --db " + (dir / "t.db").string());
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(space.string() + ":"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(says[i]), std::string::npos) << says[i] << ": " << r.out;
    EXPECT_FALSE(fs::exists(dir / "t.db"));
  }
  fs::remove_all(dir);
}

}  // namespace

namespace {

// Typed parameters: a value the variant declares it cannot run is refused when the space is loaded
// (the issue's `copies: [1, 3]`), not stored as launch errors.
TEST(TypedParameters, HistCopiesOutsideTheDeclaredValuesIsRefusedAtLoad) {
  const fs::path dir = e2e::temp_dir("typed-params");
  std::ofstream(dir / "hist.yaml") << "family: hist\nproblems:\n  - sizes: [64]\nbackends: [openmp]\nvariants:\n"
                                      "  omp_private:\n    copies: [1, 3]\n";
  const e2e::Ran r = e2e::run("hist --space " + (dir / "hist.yaml").string() + " --db " + (dir / "t.db").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("hist.yaml:7:17: variants.omp_private.copies: 3 is not one of the values copies runs (1, 2, 4)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir / "t.db"));
  fs::remove_all(dir);
}

}  // namespace
