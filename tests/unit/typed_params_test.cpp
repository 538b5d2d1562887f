// Typed parameters declared once: every integer parameter of every built-in variant declares its range or
// values, which the space loader checks (a value outside them is a bad space naming its place, not a row of
// launch errors) and plan() checks through the same declaration for configurations made in code.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/builtin_variants.hpp"
#include "common/usage_error.hpp"
#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"

namespace pimg {
namespace {

TEST(TypedParameters, EveryBuiltinParameterDeclaresItsValuesAndItsDefaultIsOne) {
  int checked = 0;
  for (const auto& [f, v] : testcommon::builtin_variants())
    for (const ParamDecl& d : v->parameters()) {
      const std::string where = f->name() + "/" + v->name() + "." + d.name;
      ++checked;
      if (d.is_text) {
        EXPECT_FALSE(d.choices.empty()) << where;
        const auto* def = std::get_if<std::string>(&d.default_value);
        ASSERT_NE(def, nullptr) << where;
        EXPECT_NE(std::find(d.choices.begin(), d.choices.end(), *def), d.choices.end()) << where;
        continue;
      }
      EXPECT_TRUE(!d.allowed.empty() || (d.min && d.max)) << where << " declares neither values nor a range";
      const auto* def = std::get_if<std::int64_t>(&d.default_value);
      ASSERT_NE(def, nullptr) << where;
      EXPECT_EQ(param_value_error(d, *def), std::nullopt) << where;
    }
  EXPECT_GT(checked, 100);
}

TEST(TypedParameters, ListingsShowWhatAParameterTakes) {
  EXPECT_EQ(param_values_text(int_range("items_x", 1, "", 1, 64)), "1..64");
  EXPECT_EQ(param_values_text(int_choice("vec", 16, "", {4, 8, 16})), "4|8|16");
  EXPECT_EQ(param_values_text(text_choice("arith", {"mul", "lut"}, "mul", "")), "mul|lut");
  EXPECT_EQ(param_values_text(ParamDecl{"n", false, {}, std::int64_t{0}, ""}), "integer");
}

std::string load_error(const std::string& text) {
  return testcommon::usage_error_of([&] { load_space_text(text, "t.yaml", Registry::builtin()); }, "no error");
}

std::string space(const std::string& family, const std::string& backend, const std::string& variant,
                  const std::string& param, const std::string& values) {
  const std::string channels = family == "bgr2rgba" ? ", channels: 3" : "";  // B G R in, the family's only input
  return "family: " + family + "\nproblems:\n  - {sizes: [64]" + channels + "}\nbackends: [" + backend + "]\nvariants:\n  " + variant +
         ":\n    " + param + ": " + values + "\n";
}

struct Case {
  std::string family, backend, variant, param, values, says;
};

TEST(TypedParameters, ValuesOutsideTheDeclarationAreRefusedAtLoadWithTheirPlace) {
  const std::vector<Case> cases = {
      {"flip", "opencl", "cl_flip", "per_thread", "[1, 17]", "t.yaml:7:21: variants.cl_flip.per_thread: 17 is outside 1..16"},
      {"flip", "openmp", "omp_rows", "shuffle", "[2]", "t.yaml:7:15: variants.omp_rows.shuffle: 2 is not one of the values shuffle runs (0, 1)"},
      {"conv", "opencl", "cl_direct", "items_x", "[0, 2]", "t.yaml:7:15: variants.cl_direct.items_x: 0 is outside 1..4096"},
      {"conv", "opencl", "cl_vec", "vec", "[4, 12]", "t.yaml:7:14: variants.cl_vec.vec: 12 is not one of the values vec runs (4, 8, 16)"},
      {"conv", "cuda", "cuda_direct", "items_x", "[65]", "t.yaml:7:15: variants.cuda_direct.items_x: 65 is outside 1..64"},
      {"hist", "opencl", "cl_local", "vec", "[2]", "t.yaml:7:11: variants.cl_local.vec: 2 is not one of the values vec runs (1, 4, 16)"},
      {"hist", "openmp", "omp_private", "copies", "[1, 3]", "t.yaml:7:17: variants.omp_private.copies: 3 is not one of"},
      {"rotate", "openmp", "omp_rows", "simd", "[3]", "t.yaml:7:12: variants.omp_rows.simd: 3 is not one of the values simd runs (0, 1, 2)"},
      {"bgr2rgba", "openmp", "omp_rows", "shuffle", "[4]", "variants.omp_rows.shuffle: 4 is outside 0..3"},
      {"maxpool", "opencl", "cl_vec16", "groups", "{range: [1, 9]}", "variants.cl_vec16.groups: 9 is outside 1..8"},
  };
  for (const Case& c : cases) {
    if (!Registry::builtin().backend(c.backend)) continue;  // a backend this build was configured without
    const std::string text = space(c.family, c.backend, c.variant, c.param, c.values);
    EXPECT_NE(load_error(text).find(c.says), std::string::npos) << c.says << "\n" << load_error(text);
  }
  // Inside the declarations the same spaces load.
  if (Registry::builtin().backend("opencl")) {
    EXPECT_EQ(load_error(space("flip", "opencl", "cl_flip", "per_thread", "[1, 16]")), "no error");
    EXPECT_EQ(load_error(space("conv", "opencl", "cl_vec", "vec", "[4, 8, 16]")), "no error");
  }
}

TEST(TypedParameters, PlanChecksConfigurationsMadeInCodeAgainstTheSameDeclaration) {
  const Registry& reg = Registry::builtin();
  const Family& flip = *reg.family("flip");
  const Problem p = flip.make_problem(64, 8, 3, {});
  const Workload w = flip.make_workload(p);
  DeviceInfo d;
  d.backend = "opencl";
  d.max_work_group_size = 1024;
  struct InCode {
    std::string family, variant, param;
    std::int64_t value;
    std::string says;
  };
  for (const InCode& c : std::vector<InCode>{{"flip", "cl_flip", "per_thread", 17, "per_thread: 17 is outside 1..16"},
                                             {"hist", "omp_private", "copies", 3, "copies: 3 is not one of the values"},
                                             {"conv", "cl_vec", "vec", 12, "vec: 12 is not one of the values"}}) {
    const Family& f = *reg.family(c.family);
    const Variant* v = reg.variant(c.family, c.variant);
    ASSERT_NE(v, nullptr) << c.variant;
    const Problem fp = c.family == "flip" ? p : f.make_problem(64, 8, 1, {});
    const Workload fw = c.family == "flip" ? w : f.make_workload(fp);
    Config config;
    config.set(c.param, c.value);
    try {
      plan_for(*v, fp, fw, config, d);
      ADD_FAILURE() << c.variant << " planned " << c.param << "=" << c.value;
    } catch (const PlanError& e) {
      EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
    }
  }
}

// The spaces shipped with the project (spaces/, the benchmark results' spaces, the tests' good and e2e
// spaces) use only values their variants declare; other reasons a space may not load here (a backend this
// build lacks) are not this test's.
TEST(TypedParameters, EveryShippedSpaceUsesDeclaredValues) {
  namespace fs = std::filesystem;
  const fs::path root = PIMG_SOURCE_DIR;
  std::vector<fs::path> files;
  for (const char* dir : {"spaces", "spaces/repro", "tests/data/spaces/good", "tests/data/e2e"})
    for (const auto& e : fs::directory_iterator(root / dir))
      if (e.path().extension() == ".yaml") files.push_back(e.path());
  for (const auto& e : fs::recursive_directory_iterator(root / "bench"))
    if (e.path().extension() == ".yaml" && e.path().parent_path().filename() == "spaces") files.push_back(e.path());
  ASSERT_GT(files.size(), 20u);
  for (const fs::path& f : files) {
    try {
      load_space(f.string(), Registry::builtin());
    } catch (const std::exception& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find(" is outside "), std::string::npos) << what;
      EXPECT_EQ(what.find(" is not one of the values "), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace pimg
