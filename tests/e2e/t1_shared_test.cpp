// Real T1 files from other tools (../shared/t1: BAT's 14 files and the benchmark hub's convolution):
// each passes `pimg-tune t1 FILE --check` (with the problem size a runner would supply, where the
// file leaves it out) or is refused with exit code 2 naming the file and what is missing, and no file
// changes. Also the leniencies' warnings, --problem-size and --set, on the project's own T1 file.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "e2e_util.hpp"

namespace {

namespace fs = std::filesystem;

fs::path shared_t1() {
  for (const char* up : {"/../shared/t1", "/../../shared/t1"}) {  // beside the checkout, or a worktree's
    const fs::path p = std::string(PIMG_SOURCE_DIR) + up;
    if (fs::is_directory(p)) return fs::canonical(p);
  }
  return {};
}

struct Expected {
  std::string problem_size;           // BAT's runner's, which the file leaves out and never uses; empty: one run
  int code;                           // of the (last) run
  std::vector<std::string> messages;  // each in the output of the (last) run
};

// Paths relative to ../shared/t1. A file that leaves out the ProblemSize BAT's runner gives it, and uses it
// nowhere, passes without it (saying so) and with it.
const std::map<std::string, Expected> kExpected = {
    {"convolution_milo.json", {"", 0, {"10240 raw and"}}},
    {"TuningSchema.json", {"", 2, {"missing 'KernelSpecification'"}}},
    {"bat/GEMM/GEMM-CAFF.json",
     {"4096,4096", 0, {"15 parameters", "warning: KernelSpecification.Arguments[0].FillType: missing; the scalar is the constant",
                       "warning: Budget: an object, read as a list of one budget"}}},
    {"bat/convolution/convolution-CAFF.json", {"", 0, {"8 parameters", "16896 raw and"}}},
    {"bat/nbody/nbody-CAFF.json",
     {"131072", 0, {"8 parameters", "warning: KernelSpecification.Arguments[0].FillType",
                    "warning: KernelSpecification.Arguments[11]: 'newVel' is written and not compared: no argument is "
                    "marked Output, and pimg-tune validates one, the first written ('newBodyInfo')"}}},
    {"bat/MD5Hash/MD5Hash-CAFF.json",
     {"1000000", 0, {"8 parameters", "warning: KernelSpecification.Arguments[8].Output: 'foundKey' is not compared"}}},
    {"bat/TRIAD/TRIAD-CAFF.json", {"4096", 0, {"3 parameters", "4320 valid"}}},
    {"bat/hotspot/hotspot-CAFF.json",
     {"4096,4096", 0, {"13 parameters", "349853 valid", "TuningParameters[6].Default: 1 is not one of the values"}}},
    {"bat/pnpoly/pnpoly-CAFF.json", {"", 0, {"4 parameters", "warning: KernelSpecification.ProblemSize: one number"}}},
    {"bat/others/FFT/FFT-CAFF.json",
     {"262144", 0, {"806215680000 raw configurations, too many to list: the search draws from a uniform sample",
                    "warning: KernelSpecification.KernelFile: #include <math.h> left out"}}},
    {"bat/others/builtin_vectors/builtin_vectors-CAFF.json", {"4096", 0, {"1 parameters", "32 valid"}}},
    {"bat/others/MD/MD-CAFF.json", {"", 2, {"T1: missing 'KernelSpecification'"}}},
    {"bat/others/Reduction/Reduction-CAFF.json", {"", 2, {"T1: missing 'KernelSpecification'"}}},
    {"bat/others/SPMV/SPMV-CAFF.json", {"", 2, {"T1: missing 'KernelSpecification'"}}},
    {"bat/others/Scan/Scan-CAFF.json", {"", 2, {"not valid JSON"}}},
    {"bat/others/Sort/Sort-CAFF.json", {"", 2, {"not valid JSON"}}},
};

std::string bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(T1Shared, EveryFilePassesCheckOrIsRefusedNamingWhatIsMissing) {
  const fs::path root = shared_t1();
  if (root.empty()) GTEST_SKIP() << "../shared/t1 is absent";
  std::size_t files = 0, bat = 0, bat_passing = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    const std::string rel = fs::relative(e.path(), root).string();
    ASSERT_TRUE(kExpected.count(rel)) << rel << " has no expected outcome";
    const Expected& x = kExpected.at(rel);
    const std::string before = bytes(e.path());
    const std::string file = e.path().string();
    e2e::Ran r = e2e::run("t1 " + file + " --check");
    if (!x.problem_size.empty()) {
      EXPECT_EQ(r.code, x.code) << rel << ": " << r.out;
      EXPECT_NE(r.out.find(file + ":"), std::string::npos) << rel << ": " << r.out;
      EXPECT_NE(r.out.find("warning: KernelSpecification.ProblemSize: missing; nothing uses it (the grid is GlobalSize's)"),
                std::string::npos) << rel << ": " << r.out;
      for (const auto& m : x.messages) EXPECT_NE(r.out.find(m), std::string::npos) << rel << ": " << m << "\n" << r.out;
      r = e2e::run("t1 " + file + " --check --problem-size " + x.problem_size);
      EXPECT_EQ(r.out.find("ProblemSize: missing"), std::string::npos) << rel << ": " << r.out;
    }
    EXPECT_EQ(r.code, x.code) << rel << ": " << r.out;
    EXPECT_EQ(r.signal, 0) << rel;
    EXPECT_NE(r.out.find(file), std::string::npos) << rel << ": " << r.out;
    for (const auto& m : x.messages) EXPECT_NE(r.out.find(m), std::string::npos) << rel << ": " << m << "\n" << r.out;
    if (x.code == 0)
      EXPECT_TRUE(r.out.find("valid configurations") != std::string::npos || r.out.find("valid ones") != std::string::npos)
          << rel << ": " << r.out;
    EXPECT_EQ(bytes(e.path()), before) << rel << " changed";
    if (rel.rfind("bat/", 0) == 0) {
      ++bat;
      bat_passing += r.code == 0;
    }
  }
  EXPECT_EQ(files, kExpected.size());
  EXPECT_EQ(bat, 14u);
  EXPECT_EQ(bat_passing, 9u);  // all but BAT's five drafts (MD, Reduction, SPMV, Scan, Sort)
}

const std::string kSharpen = std::string(PIMG_TEST_DATA) + "/t1/sharpen.json";

// sharpen.json with `replace` pairs applied in order, written into dir (beside a copy of its kernel).
fs::path variant_of_sharpen(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& replace) {
  std::string j = bytes(kSharpen);
  for (const auto& [from, to] : replace) {
    const std::size_t at = j.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) j.replace(at, from.size(), to);
  }
  fs::create_directories(dir);
  fs::copy_file(std::string(PIMG_TEST_DATA) + "/t1/sharpen.cl", dir / "sharpen.cl", fs::copy_options::overwrite_existing);
  const fs::path out = dir / "lenient.json";
  std::ofstream(out) << j;
  return out;
}

TEST(T1Shared, LeniencyWarnsOnceNamingFileAndField) {
  const fs::path dir = e2e::temp_dir("t1-lenient");
  const fs::path f = variant_of_sharpen(
      dir, {{R"("Values": "[8, 16]", "Default": 8)", R"("Values": "[8, 16]", "Default": 64)"},
            {R"("Name": "width", "Type": "int32", "MemoryType": "Scalar", "FillType": "Constant",)",
             R"("Name": "width", "Type": "int", "MemoryType": "Scalar",)"}});
  const e2e::Ran r = e2e::run("t1 " + f.string() + " --check");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(f.string() + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: ConfigurationSpace.TuningParameters[0].Default: 64 is not one of the values; the first "
                       "value, 8, is the default"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: KernelSpecification.Arguments[2].Type: 'int' is read as the schema's 'int32'"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: KernelSpecification.Arguments[2].FillType: missing; the scalar is the constant FillValue 256"),
            std::string::npos) << r.out;
  std::size_t warnings = 0;
  for (std::size_t at = r.out.find("warning:"); at != std::string::npos; at = r.out.find("warning:", at + 1)) ++warnings;
  EXPECT_EQ(warnings, 3u) << r.out;
  fs::remove_all(dir);
}

TEST(T1Shared, ProblemSizeAndSetSupplyWhatARunnerWould) {
  const fs::path dir = e2e::temp_dir("t1-set");
  // Without ProblemSize and with a scalar that has no value: refused, naming the option.
  const fs::path f = variant_of_sharpen(
      dir, {{R"("ProblemSize": [)", R"("ProblemSizeOfTheRunner": [)"}, {R"("FillValue": 96)", R"("Comment": 96)"},
            {R"("Name": "height", "Type": "int32", "MemoryType": "Scalar", "FillType": "Constant", "Comment": 96)",
             R"("Name": "height", "Type": "int32", "MemoryType": "Scalar")"}});
  e2e::Ran r = e2e::run("t1 " + f.string() + " --check");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("give it with --problem-size"), std::string::npos) << r.out;
  r = e2e::run("t1 " + f.string() + " --check --problem-size 256x96");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("Arguments[3]: the scalar 'height' has no FillValue (a runner supplies it: give it with --set height=VALUE)"),
            std::string::npos) << r.out;
  r = e2e::run("t1 " + f.string() + " --check --problem-size 256x96 --set height=96 --set ppx=2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("3 parameters, 4 raw"), std::string::npos) << r.out;  // ppx has the one value 2
  for (const std::string bad : {"--set nosuch=1", "--set in=3", "--set ppx", "--problem-size 0", "--problem-size 1,2,3,4",
                                "--set ppx=1//0"}) {
    r = e2e::run("t1 " + f.string() + " --check --problem-size 256x96 --set height=96 " + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_EQ(r.signal, 0) << bad;
  }
  fs::remove_all(dir);
}

// A file without ProblemSize (the schema has none: KTT's files give a GlobalSize instead) is refused only where it
// uses one, naming the field and the option that supplies it.
TEST(T1Shared, AFileWithoutProblemSizeIsRefusedOnlyWhereItUsesOne) {
  const fs::path dir = e2e::temp_dir("t1-no-problem-size");
  using Edit = std::pair<std::string, std::string>;
  const Edit no_size{R"j("ProblemSize": [256, 96],)j", ""};
  const Edit fixed_global{R"j("GlobalSize": {"X": "(ProblemSize[0] // ppx)", "Y": "ProblemSize[1]",)j",
                          R"j("GlobalSize": {"X": "256 // ppx", "Y": "96",)j"};
  const Edit no_divs{R"j("GridDivX": ["block_size_x", "ppx"],
    "GridDivY": ["block_size_y"],)j", ""};
  const Edit in_size{R"j("RandomSeed": 1107, "Size": "ProblemSize[0]*ProblemSize[1]")j", R"j("RandomSeed": 1107, "Size": "256*96")j"};
  const Edit out_size{R"j("FillValue": 0, "Size": "ProblemSize[0]*ProblemSize[1]")j", R"j("FillValue": 0, "Size": 24576)j"};
  struct Case {
    std::vector<Edit> edits;
    std::string message;  // empty: it passes
  };
  const Case cases[] = {
      {{no_size}, "KernelSpecification.GlobalSize.X: uses ProblemSize, which the file does not give (BAT's runner "
                  "supplies it: give it with --problem-size N[,N[,N]])"},
      {{no_size, fixed_global}, "KernelSpecification.GridDivX: divides ProblemSize, which the file does not give"},
      {{no_size, fixed_global, no_divs, out_size}, "KernelSpecification.Arguments[0].Size: uses ProblemSize, which the file does not give"},
      {{no_size, fixed_global, no_divs, in_size, out_size}, ""},
  };
  for (const Case& c : cases) {
    const fs::path f = variant_of_sharpen(dir, c.edits);
    const std::string before = bytes(f);
    const e2e::Ran r = e2e::run("t1 " + f.string() + " --check");
    EXPECT_EQ(r.code, c.message.empty() ? 0 : 2) << r.out;
    EXPECT_NE(r.out.find(f.string() + ":"), std::string::npos) << r.out;
    if (c.message.empty()) {
      EXPECT_NE(r.out.find("warning: KernelSpecification.ProblemSize: missing; nothing uses it (the grid is GlobalSize's), "
                           "so the problem is named by its output's elements"),
                std::string::npos) << r.out;
      EXPECT_NE(r.out.find("3 parameters, 8 raw and 7 valid"), std::string::npos) << r.out;
    } else {
      EXPECT_NE(r.out.find(c.message), std::string::npos) << c.message << "\n" << r.out;
    }
    EXPECT_EQ(bytes(f), before);
  }
  fs::remove_all(dir);
}

// Another tuner's searcher (KTT's ProfileBased: its model file and batch size) has attributes that pimg-tune's
// stand-in (forest) does not: they are ignored, each with a warning, and the stand-in's own options still apply;
// a file naming a pimg-tune strategy keeps the check that catches a misspelt option.
TEST(T1Shared, AnotherTunersSearchAttributesAreIgnoredWithAWarning) {
  const fs::path dir = e2e::temp_dir("t1-foreign-search");
  const auto with_search = [&](const std::string& search) {
    return variant_of_sharpen(dir, {{"\n  }\n}", "\n  },\n  \"Search\": " + search + "\n}"}});
  };
  fs::path f = with_search(R"j({"Name": "ProfileBased", "Attributes": [{"Name": "modelPath", "Value": "/home/x/2080.sav"},
                                                               {"Name": "trees", "Value": "16"}]})j");
  e2e::Ran r = e2e::run("t1 " + f.string() + " --check");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(f.string() + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warning: Search.Attributes: 'modelPath' is an attribute of ProfileBased's searcher, which "
                       "pimg-tune's forest does not have; ignored"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("'trees'"), std::string::npos) << r.out;
  f = with_search(R"j({"Name": "ProfileBased", "Attributes": [{"Name": "trees", "Value": "0"}]})j");
  r = e2e::run("t1 " + f.string() + " --check");
  EXPECT_EQ(r.code, 2) << r.out;  // forest's own option, out of its range
  EXPECT_NE(r.out.find("trees"), std::string::npos) << r.out;
  f = with_search(R"j({"Name": "forest", "Attributes": [{"Name": "modelPath", "Value": "x.sav"}]})j");
  r = e2e::run("t1 " + f.string() + " --check");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("Search/Budget: strategy 'forest' has no option 'modelPath'"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// The assumptions are stored with the results (the problem's "assumed" attribute), and --set reaches
// the worker processes (which load the file again): without it they could not fill 'height'.
TEST(T1Shared, AssumptionsAndSettingsTravelWithTheRun) {
  if (e2e::run("devices").out.find("opencl:0") == std::string::npos) GTEST_SKIP() << "no OpenCL device (PoCL)";
  const fs::path dir = e2e::temp_dir("t1-assumed");
  const fs::path f = variant_of_sharpen(
      dir, {{R"("Values": "[8, 16]", "Default": 8)", R"("Values": "[8, 16]", "Default": 64)"},
            {R"("Name": "height", "Type": "int32", "MemoryType": "Scalar", "FillType": "Constant", "FillValue": 96)",
             R"("Name": "height", "Type": "int32", "MemoryType": "Scalar")"}});
  const fs::path db = dir / "t.db";
  const e2e::Ran r = e2e::run("t1 " + f.string() + " --device 0 --db " + db.string() + " --set height=96 --set ppx=1 --set block_size_y=1 "
                              "--repeats 1 --quiet", "PIMG_CACHE_DIR=" + (dir / "cache").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("2 measured, 2 ok"), std::string::npos) << r.out;
  const std::vector<std::string> problems = e2e::query(db.string(), "SELECT canonical FROM problems");
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(R"("assumed":"block_size_x.Default=8")"), std::string::npos) << problems[0];
  fs::remove_all(dir);
}

// An expression error in a value list exits 2 naming file, line, field and the column inside it.
TEST(T1Shared, ExpressionErrorsNameTheColumnInsideTheExpression) {
  const fs::path dir = e2e::temp_dir("t1-expr");
  const fs::path f = variant_of_sharpen(dir, {{R"("Values": "[8, 16]")", R"("Values": "[8, (-9223372036854775807-1) // -1]")"}});
  const e2e::Ran r = e2e::run("t1 " + f.string() + " --check");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find(f.string() + ":"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ConfigurationSpace.TuningParameters[0].Values: '[8, (-9223372036854775807-1) // -1]': column 30 of "
                       "the expression: integer overflow"),
            std::string::npos) << r.out;
  fs::remove_all(dir);
}

}  // namespace
