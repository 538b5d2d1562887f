// The space file loader and constraint evaluation: good files parse and expand, enumeration honours
// constraints (text constants, device limits), and every error is one "file:line:col: message" line.
// The registry is built here: the conv family and serial variant plus stand-in variants and backends.
#include "pimg/space.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/test_names.hpp"
#include "common/usage_error.hpp"
#include "conv/conv_family.hpp"
#include "pimg/errors.hpp"
#include "pimg/registry.hpp"

namespace pimg::conv {
void register_serial(Registry& reg);  // variants/conv/host/serial.cpp
}

using namespace pimg;
namespace fs = std::filesystem;

namespace {

class TestBackend final : public Backend {
 public:
  explicit TestBackend(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  BackendStatus status() const override { return {true, ""}; }
  std::vector<DeviceInfo> devices() const override { return {}; }
  std::unique_ptr<Device> open(const DeviceInfo&) const override { return nullptr; }
  std::optional<CopyKernel> copy_kernel(std::size_t) const override { return std::nullopt; }

 private:
  std::string name_;
};

// A variant that only declares parameters: the loader never plans.
class TestVariant final : public Variant {
 public:
  TestVariant(std::string name, std::string backend, std::vector<ParamDecl> params)
      : name_(std::move(name)), backend_(std::move(backend)), params_(std::move(params)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return backend_; }
  std::string source() const override { return "none"; }
  std::string help() const override { return "test stand-in"; }
  std::vector<ParamDecl> parameters() const override { return params_; }
  LaunchPlan plan(const PlanContext&) const override {
    throw PlanError("test variant");
  }

 private:
  std::string name_, backend_;
  std::vector<ParamDecl> params_;
};

ParamDecl int_param(const std::string& name, std::int64_t def) { return {name, false, {}, def, ""}; }
// An integer parameter with the lower bound its real variant declares.
ParamDecl int_param(const std::string& name, std::int64_t def, std::int64_t min) {
  return {name, false, {}, def, "", {}, min};
}
ParamDecl text_param(const std::string& name, std::vector<std::string> choices) {
  std::string def = choices.front();
  return {name, true, std::move(choices), def, ""};
}

const Registry& registry() {
  static const Registry reg = [] {
    Registry r;
    r.add_family(std::make_unique<conv::ConvFamily>());
    conv::register_serial(r);
    r.add_variant(std::make_unique<TestVariant>(
        "cl_direct", "opencl",
        std::vector<ParamDecl>{int_param("block_x", 16), int_param("block_y", 1), int_param("items_x", 1),
                               text_param("filter_mem", {"global", "constant", "private", "image"}),
                               int_param("unroll", 1)}));
    r.add_variant(
        std::make_unique<TestVariant>("omp_rows", "openmp",
                                      std::vector<ParamDecl>{text_param("schedule", {"static", "dynamic", "guided"}),
                                                             int_param("chunk", 1, 1), int_param("threads", 0, 0)}));
    // Text choices that are not identifiers or that shadow a limit name stay usable as values.
    r.add_variant(std::make_unique<TestVariant>(
        "odd_names", "host",
        std::vector<ParamDecl>{text_param("mode", {"plain", "2d", "compute_units"}), int_param("n", 1)}));
    r.add_backend(std::make_unique<TestBackend>("host"));
    r.add_backend(std::make_unique<TestBackend>("opencl"));
    r.add_backend(std::make_unique<TestBackend>("openmp"));
    for (const StrategyInfo* s : Registry::builtin().strategies()) r.add_strategy(*s);  // every built-in strategy
    r.set_default_strategy("genetic");  // not the builtin one: the test shows the registry decides
    return r;
  }();
  return reg;
}

Space load(const std::string& text) { return load_space_text(text, "t.yaml", registry()); }

std::string error_of(const std::string& text) {
  return testcommon::usage_error_of([&] { load(text); }, "no error");
}

const std::string kHead = "family: conv\nproblems:\n  - sizes: [64]\nbackends: [host, opencl, openmp]\n";

DeviceInfo device(std::map<std::string, double> limits) {
  DeviceInfo d;
  d.backend = "opencl";
  d.name = "test device";
  d.limits = std::move(limits);
  return d;
}

const VariantSpace& variant(const Space& s, const std::string& name) {
  for (const auto& v : s.variants)
    if (v.variant == name) return v;
  throw std::runtime_error("no variant " + name);
}

const ParamValues& param(const VariantSpace& v, const std::string& name) {
  for (const auto& p : v.params)
    if (p.name == name) return p;
  throw std::runtime_error("no parameter " + name);
}

std::vector<Value> ints(std::initializer_list<std::int64_t> v) { return {v.begin(), v.end()}; }

std::string data(const std::string& rel) { return std::string(PIMG_TEST_DATA) + "/spaces/" + rel; }

}  // namespace

TEST(SpaceLoad, ReferenceFileParses) {
  Space s = load_space(data("good/01-reference.yaml"), registry());
  EXPECT_EQ(s.family, "conv");
  // 2 filters x 3 sizes x 2 channel counts, then one custom filter.
  ASSERT_EQ(s.problems.size(), 13u);
  EXPECT_EQ(s.problems[0].label(),
            "conv 256x256 c1 border=zero divisor=1 filter=sharpen3 input=random layout=interleaved seed=1107 "
            "weights=0,-1,0;-1,5,-1;0,-1,0");
  EXPECT_EQ(s.problems[1].size(), "256x256");
  EXPECT_EQ(s.problems[1].channels, 3);
  EXPECT_EQ(s.problems[2].size(), "512x512");
  EXPECT_EQ(s.problems[4].size(), "1024x768");
  EXPECT_EQ(s.problems[6].attr("filter"), "gaussian5");
  EXPECT_EQ(s.problems[12].attr("weights"), "1,2,1;2,4,2;1,2,1");
  EXPECT_EQ(s.problems[12].attr("divisor"), "16");
  EXPECT_EQ(s.problems[12].size(), "64x48");

  ASSERT_EQ(s.backends.size(), 3u);
  EXPECT_EQ(s.backends[0].backend, "opencl");
  EXPECT_EQ(s.backends[0].devices, std::vector<std::string>{"pthread"});
  EXPECT_TRUE(s.backends[1].devices.empty());

  const VariantSpace& cl = variant(s, "cl_direct");
  std::vector<std::string> names;
  for (const auto& p : cl.params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"block_x", "block_y", "filter_mem", "items_x", "unroll"}));
  EXPECT_EQ(param(cl, "block_x").values, ints({8, 16, 32}));
  EXPECT_EQ(param(cl, "block_y").values, ints({1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(param(cl, "items_x").values, ints({1, 2, 4}));
  EXPECT_EQ(param(cl, "filter_mem").values,
            (std::vector<Value>{std::string("global"), std::string("constant"), std::string("private")}));
  EXPECT_EQ(param(cl, "unroll").values, ints({1}));
  EXPECT_EQ(cl.raw_size(), 216u);
  ASSERT_EQ(cl.constraints.size(), 2u);
  EXPECT_EQ(cl.constraints[0].expr, "block_x * block_y <= max_work_group_size");
  EXPECT_EQ(cl.constraints[0].pos.str(), data("good/01-reference.yaml") + ":24:9");
  EXPECT_EQ(variant(s, "serial").raw_size(), 1u);

  EXPECT_EQ(s.strategy.name, "exhaustive");
  EXPECT_EQ(s.strategy.seed, 1u);
  EXPECT_EQ(s.measure.warmups, 1);
  EXPECT_EQ(s.measure.repeats, 5);
  EXPECT_EQ(s.measure.timeout_s, 10);
}

TEST(SpaceLoad, EveryGoodFileParses) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(data("good"))) {
    SCOPED_TRACE(e.path().string());
    EXPECT_NO_THROW(load_space(e.path().string(), registry()));
    ++n;
  }
  EXPECT_GE(n, 3);
}

TEST(SpaceLoad, DefaultsFillMissingParameters) {
  Space s = load(kHead + "variants:\n  cl_direct: {block_x: 8}\n  omp_rows:\n");
  const VariantSpace& cl = variant(s, "cl_direct");
  EXPECT_EQ(cl.params.size(), 5u);
  EXPECT_EQ(param(cl, "block_y").values, ints({1}));
  EXPECT_EQ(param(cl, "filter_mem").values, std::vector<Value>{std::string("global")});
  EXPECT_EQ(param(cl, "block_x").pos.str(), "t.yaml:6:24");
  EXPECT_EQ(param(cl, "block_y").pos.str(), "t.yaml:6:3");  // the variant's position
  EXPECT_EQ(variant(s, "omp_rows").params.size(), 3u);
  auto configs = cl.enumerate(device({}));
  ASSERT_EQ(configs.size(), 1u);
  EXPECT_EQ(configs[0].canonical(), R"({"block_x":8,"block_y":1,"filter_mem":"global","items_x":1,"unroll":1})");
}

TEST(SpaceLoad, RangesStepsAndPowersOfTwo) {
  Space s = load(kHead +
                 "variants:\n  cl_direct:\n    block_x: {range: [2, 16], step: 4}\n    block_y: {pow2: [2, 64]}\n"
                 "    items_x: {range: [-2, 2]}\n    unroll: [3, 1, 2]\n");
  const VariantSpace& cl = variant(s, "cl_direct");
  EXPECT_EQ(param(cl, "block_x").values, ints({2, 6, 10, 14}));
  EXPECT_EQ(param(cl, "block_y").values, ints({2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(param(cl, "items_x").values, ints({-2, -1, 0, 1, 2}));
  EXPECT_EQ(param(cl, "unroll").values, ints({3, 1, 2}));  // file order kept
}

TEST(SpaceLoad, StrategyAndMeasure) {
  Space s = load(kHead +
                 "variants: {serial: {}}\nstrategy: {name: random, seed: 42, options: {budget: 7}}\n"
                 "measure: {warmups: 0, repeats: 3, timeout_s: 2.5}\n");
  EXPECT_EQ(s.strategy.name, "random");
  EXPECT_EQ(s.strategy.seed, 42u);
  EXPECT_EQ(s.strategy.options.at("budget"), "7");
  EXPECT_EQ(s.strategy.options.at("fraction"), "0.1");  // the declared default
  EXPECT_EQ(s.measure.warmups, 0);
  EXPECT_EQ(s.measure.repeats, 3);
  EXPECT_EQ(s.measure.timeout_s, 2.5);
  EXPECT_EQ(load(kHead + "variants: {serial: }\nstrategy: random\n").strategy.name, "random");
}

TEST(SpaceLoad, NoiseTargetsComeFromTheDeviceClassUnlessTheSpaceGivesThem) {
  pimg::DeviceCaps cpu, gpu;
  cpu.host_cores = true;
  const pimg::MeasureSpec none = load(kHead + "variants: {serial: {}}\n").measure;
  EXPECT_EQ(none.for_device(gpu).noise, pimg::kAcceleratorNoise.noise);
  EXPECT_EQ(none.for_device(gpu).max_time_s, pimg::kAcceleratorNoise.max_time_s);
  EXPECT_EQ(none.for_device(gpu).confirm.max_time_s, pimg::kAcceleratorNoise.confirm_max_time_s);
  EXPECT_EQ(none.for_device(cpu).noise, pimg::kHostCoresNoise.noise);
  EXPECT_EQ(none.for_device(cpu).max_time_s, pimg::kHostCoresNoise.max_time_s);
  EXPECT_EQ(none.for_device(cpu).confirm.max_time_s, pimg::kHostCoresNoise.confirm_max_time_s);
  EXPECT_EQ(none.for_device(gpu).confirm.sessions, 2);
  EXPECT_EQ(none.for_device(cpu).confirm.sessions, 2);
  EXPECT_GT(pimg::kHostCoresNoise.noise, pimg::kAcceleratorNoise.noise);
  // What the space says holds on every device; what it leaves out still follows the class.
  const pimg::MeasureSpec some =
      load(kHead + "variants: {serial: {}}\nmeasure: {noise: 0.003, confirm: {max_time_s: 5, sessions: 3}}\n").measure;
  for (const pimg::DeviceCaps& caps : {cpu, gpu}) {
    EXPECT_EQ(some.for_device(caps).noise, 0.003);
    EXPECT_EQ(some.for_device(caps).confirm.max_time_s, 5);
    EXPECT_EQ(some.for_device(caps).confirm.sessions, 3);
  }
  EXPECT_EQ(some.for_device(cpu).max_time_s, pimg::kHostCoresNoise.max_time_s);
}

TEST(SpaceLoad, ASearchWithoutAStrategyNamedIsTheDefaultStrategy) {
  // No strategy entry: every configuration. Options without a name (a budget): the registry's
  // default search strategy, with those options; `default` names it too and is stored as its name.
  EXPECT_EQ(load(kHead + "variants: {serial: }\n").strategy.name, "exhaustive");
  const Space budget = load(kHead + "variants: {serial: }\nstrategy: {options: {budget: 40}}\n");
  EXPECT_EQ(budget.strategy.name, "genetic");
  EXPECT_EQ(budget.strategy.options.at("budget"), "40");
  EXPECT_EQ(budget.strategy.options.at("popsize"), "16");  // the default strategy's own defaults
  EXPECT_EQ(load(kHead + "variants: {serial: }\nstrategy: default\n").strategy.name, "genetic");
  const Space named = load(kHead + "variants: {serial: }\nstrategy: {name: default, seed: 3, options: {fraction: 0.2}}\n");
  EXPECT_EQ(named.strategy.name, "genetic");
  EXPECT_EQ(named.strategy.seed, 3u);
  EXPECT_EQ(named.strategy.options.at("fraction"), "0.2");
  // A seed alone asks for no search: still exhaustive.
  EXPECT_EQ(load(kHead + "variants: {serial: }\nstrategy: {seed: 5}\n").strategy.name, "exhaustive");
}

TEST(SpaceLoad, ProblemExpansionOrderAndMatrices) {
  Space s = load(
      "family: conv\nproblems:\n  - sizes: [8x4, 16]\n    border: [zero, valid]\n"
      "  - filter: custom\n    weights: [[[1]], [[0,1,0],[1,1,1],[0,1,0]]]\n    divisor: [1, 5]\n    sizes: 9\n"
      "backends: [host]\nvariants: {serial: {}}\n");
  ASSERT_EQ(s.problems.size(), 8u);
  EXPECT_EQ(s.problems[0].size(), "8x4");
  EXPECT_EQ(s.problems[0].attr("border"), "zero");
  EXPECT_EQ(s.problems[1].attr("border"), "valid");  // the last key varies fastest
  EXPECT_EQ(s.problems[2].size(), "16x16");
  EXPECT_EQ(s.problems[4].attr("weights"), "1");
  EXPECT_EQ(s.problems[5].attr("divisor"), "5");
  EXPECT_EQ(s.problems[6].attr("weights"), "0,1,0;1,1,1;0,1,0");
  EXPECT_EQ(s.problems[7].size(), "9x9");
}

TEST(SpaceEnumerate, OrderAndDeviceLimits) {
  Space s = load(kHead +
                 "variants:\n  cl_direct:\n    block_y: [4, 1]\n    block_x: [8, 32]\n"
                 "    constraints: [block_x * block_y <= max_work_group_size]\n");
  const VariantSpace& cl = variant(s, "cl_direct");
  auto all = cl.enumerate(device({{"max_work_group_size", 1024}}));
  ASSERT_EQ(all.size(), 4u);
  // block_x before block_y (name order); values in file order; the last parameter fastest.
  EXPECT_EQ(all[0].brief(), "block_x=8 block_y=4 filter_mem=global items_x=1 unroll=1");
  EXPECT_EQ(all[1].brief(), "block_x=8 block_y=1 filter_mem=global items_x=1 unroll=1");
  EXPECT_EQ(all[2].brief(), "block_x=32 block_y=4 filter_mem=global items_x=1 unroll=1");
  auto small = cl.enumerate(device({{"max_work_group_size", 64}}));
  ASSERT_EQ(small.size(), 3u);
  EXPECT_EQ(small[2].integer("block_x"), 32);
  EXPECT_EQ(small[2].integer("block_y"), 1);
  EXPECT_TRUE(cl.enumerate(device({})).empty());  // a missing limit is 0
}

TEST(SpaceEnumerate, ReferenceCountsWithConstraints) {
  Space s = load_space(data("good/01-reference.yaml"), registry());
  const VariantSpace& cl = variant(s, "cl_direct");
  EXPECT_EQ(cl.enumerate(device({{"max_work_group_size", 256}})).size(), 216u);
  // block_x=32 keeps block_y <= 4: 20 of 24 (block_x, block_y) pairs, times 3 x 3.
  EXPECT_EQ(cl.enumerate(device({{"max_work_group_size", 128}})).size(), 180u);
  EXPECT_EQ(variant(s, "serial").enumerate(device({})).size(), 1u);
}

TEST(SpaceEnumerate, TextConstants) {
  Space s = load(kHead +
                 "variants:\n  cl_direct:\n    filter_mem: [global, constant, private]\n    unroll: [1, 2, 4]\n"
                 "    constraints:\n      - filter_mem != private || unroll == 1\n      - filter_mem != image\n"
                 "  omp_rows:\n    schedule: [static, dynamic, guided]\n    chunk: [1, 8, 64]\n"
                 "    constraints: ['schedule == static ? chunk == 1 : chunk % 8 == 0']\n");
  // private only with unroll 1: 3 + 3 + 1; "image" is a declared choice the file does not list.
  EXPECT_EQ(variant(s, "cl_direct").enumerate(device({})).size(), 7u);
  auto omp = variant(s, "omp_rows").enumerate(device({}));
  ASSERT_EQ(omp.size(), 5u);
  EXPECT_EQ(omp[0].brief(), "chunk=1 schedule=static threads=0");
  EXPECT_EQ(omp[1].brief(), "chunk=8 schedule=dynamic threads=0");
}

TEST(SpaceEnumerate, OddTextValues) {
  Space s = load(kHead +
                 "variants:\n  odd_names:\n    mode: [plain, 2d, compute_units]\n"
                 "    constraints: [mode == plain || compute_units > 2]\n");
  const VariantSpace& v = variant(s, "odd_names");
  // compute_units is the device limit, not the text value; "2d" is no identifier but a fine value.
  EXPECT_EQ(v.enumerate(device({{"compute_units", 4}})).size(), 3u);
  EXPECT_EQ(v.enumerate(device({{"compute_units", 1}})).size(), 1u);
}

TEST(SpaceEnumerate, DivisionByZeroNamesTheConstraint) {
  Space s = load(kHead + "variants:\n  cl_direct:\n    items_x: [1, 0]\n    constraints:\n      - 64 / items_x > 2\n");
  try {
    variant(s, "cl_direct").enumerate(device({}));
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml:9:9: constraint '64 / items_x > 2': division by zero, overflow or undefined operation at block_x=16 "
              "block_y=1 filter_mem=global items_x=0 unroll=1 on opencl:0 (result 1); guard it with '?:', since "
              "&& and || evaluate both sides");
  }
}

TEST(SpaceEnumerate, HundredThousandPointsUnderASecond) {
  Space s = load(kHead +
                 "variants:\n  cl_direct:\n    block_x: {range: [1, 100]}\n    block_y: {range: [1, 100]}\n"
                 "    unroll: {range: [1, 10]}\n"
                 "    constraints: [block_x * block_y <= max_work_group_size, (block_x + unroll) % 2 == 0]\n");
  const VariantSpace& cl = variant(s, "cl_direct");
  EXPECT_EQ(cl.raw_size(), 100000u);
  auto t0 = std::chrono::steady_clock::now();
  auto configs = cl.enumerate(device({{"max_work_group_size", 256}}));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 1.0);
  std::size_t expected = 0;
  for (int x = 1; x <= 100; ++x)
    for (int y = 1; y <= 100; ++y)
      for (int u = 1; u <= 10; ++u) expected += x * y <= 256 && (x + u) % 2 == 0;
  EXPECT_EQ(configs.size(), expected);
}

TEST(EvalConstraint, Operators) {
  Constraint c{"a % 3 == 1 && min(a, b) < 5 && !(b > 10)", {"x.yaml", 3, 7}};
  EXPECT_TRUE(eval_constraint(c, {{"a", 4}, {"b", 2}}));
  EXPECT_FALSE(eval_constraint(c, {{"a", 5}, {"b", 2}}));
  EXPECT_FALSE(eval_constraint(c, {{"a", 4}, {"b", 11}}));
  EXPECT_TRUE(eval_constraint({"a > 1 ? b : 0", {}}, {{"a", 2}, {"b", 3}}));
  EXPECT_FALSE(eval_constraint({"a > 1 ? b : 0", {}}, {{"a", 0}, {"b", 3}}));
}

TEST(EvalConstraint, ErrorsNameThePosition) {
  auto error = [](const std::string& expr, std::map<std::string, double> vars) {
    try {
      eval_constraint({expr, {"x.yaml", 3, 7}}, vars);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error("a +", {{"a", 1}}).rfind("x.yaml:3:7: constraint 'a +': ", 0), 0u);
  EXPECT_EQ(error("c > 1", {{"a", 1}}), "x.yaml:3:7: constraint 'c > 1': unknown name 'c' (variables: a)");
  EXPECT_EQ(error("a = 2", {{"a", 1}}), "x.yaml:3:7: constraint 'a = 2': '=' at offset 2 assigns; compare with '=='");
  EXPECT_EQ(error("1 / a > 2", {{"a", 0}}),
            "x.yaml:3:7: constraint '1 / a > 2': division by zero, overflow or undefined operation at the given values "
            "(result 1); guard it with '?:', since && and || evaluate both sides");
  EXPECT_NE(error("a % 0", {{"a", 0}}).find("division by zero"), std::string::npos);
  EXPECT_TRUE(eval_constraint({"a == 0 ? 1 : 8 / a > 2", {}}, {{"a", 0}}));
}

// Errors with their exact position (1-based line and column of the offending node).
TEST(SpaceErrors, ExactPositions) {
  EXPECT_EQ(error_of(kHead + "variants: {serial: {}}\nmeasure: {repeats: five}\n"),
            "t.yaml:6:20: measure.repeats must be an integer, got 'five'");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct: {block_x: 8}\n  cl_direct: {}\n"),
            "t.yaml:7:3: duplicate key 'cl_direct' in variants (first at line 6)");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct:\n    blocks: [1]\n"),
            "t.yaml:7:5: unknown parameter 'blocks' for variant 'cl_direct' (did you mean 'block_x'?) "
            "(parameters: block_x, block_y, items_x, filter_mem, unroll)");
  EXPECT_NE(error_of(kHead + "variants:\n  cl_drect: {}\n").find("unknown variant 'cl_drect' for family conv (did you mean 'cl_direct'?)"),
            std::string::npos);
  EXPECT_NE(error_of("family: cnov\nproblems:\n  - sizes: [64]\nbackends: [host]\nvariants: {serial: {}}\n")
                .find("unknown family 'cnov' (did you mean 'conv'?)"),
            std::string::npos);
  EXPECT_EQ(error_of(kHead + "variants:\n  serial: {x: 1}\n"),
            "t.yaml:6:12: unknown parameter 'x' for variant 'serial' (it has no parameters)");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct:\n    filter_mem: [global, shared]\n"),
            "t.yaml:7:26: variants.cl_direct.filter_mem: 'shared' is not a choice "
            "(choices: global, constant, private, image)");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct:\n    block_x: {range: [4, 16], step: 0}\n"),
            "t.yaml:7:37: variants.cl_direct.block_x.step must be positive, got 0");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct:\n    constraints: [block_x < wgs]\n"),
            "t.yaml:7:19: constraint 'block_x < wgs': unknown name 'wgs' (parameters: block_x, block_y, items_x, "
            "filter_mem, unroll; text values: global, constant, private, image; device limits: "
            "max_work_group_size, local_mem_size, compute_units, global_mem_size, max_constant_buffer_size, "
            "max_work_item_size_0, max_work_item_size_1, max_work_item_size_2, image_support, "
            "image2d_max_width, image2d_max_height, max_threads)");
  EXPECT_EQ(error_of("family: conv\nproblems:\n  - filter: custom\n    weights: [[1, 2], [3, 4]]\n"
                     "    divisor: 1\n    sizes: [8]\nbackends: [host]\nvariants: {serial: }\n"),
            "t.yaml:4:14: problems.weights: the matrix must be KxK with K odd and at most 31, got 2 rows");
  EXPECT_EQ(error_of("family: conv\nproblems:\n  - filter: box3\nbackends: [host]\nvariants: {serial: }\n"),
            "t.yaml:3:5: problem (sizes not given): image size 0x0 is not positive");
  EXPECT_EQ(error_of("family: conv\nproblems:\n  - sizes: [8]\n    channels: [1, 2]\nbackends: [host]\n"
                     "variants: {serial: }\n"),
            "t.yaml:4:19: problems.channels: must be 1 or 3, got 2");
  EXPECT_EQ(error_of(kHead + "variants: {cl_direct: {block_x: 8}}\nstrategy: {name: random, options: {budget: x}}\n"),
            "t.yaml:6:44: strategy.options: strategy option 'budget' must be an integer, got 'x'");
  EXPECT_EQ(error_of("family: conv\nproblems: [{sizes: 8}]\nbackends: [host]\nvariants: {cl_direct: }\n"),
            "t.yaml:4:12: variant 'cl_direct' runs on backend 'opencl', which backends does not select "
            "(selected: host)");
  EXPECT_EQ(error_of("family: conv\nproblems: [{sizes: 8}]\nbackends:\n  host:\n  cuda: {}\nvariants: {}\n"),
            "t.yaml:5:3: unknown backend 'cuda' (backends: host, opencl, openmp)");
  EXPECT_EQ(error_of("family: conv\nproblems: [{sizes: 8}]\n\nvariants: {}\n"),
            "t.yaml:1:1: missing key 'backends' (a space file needs family, problems, backends, variants)");
  EXPECT_EQ(error_of(""),
            "t.yaml:1:1: the file is empty; a space file is a mapping with family, problems, "
            "backends and variants");
}

TEST(SpaceErrors, DuplicateKeysAtEveryLevel) {
  EXPECT_EQ(error_of(kHead + "variants: {serial: }\nfamily: conv\n"),
            "t.yaml:6:1: duplicate key 'family' in the space file (first at line 1)");
  EXPECT_EQ(error_of("family: conv\nproblems:\n  - sizes: 8\n    sizes: 9\nbackends: [host]\nvariants: {serial: }\n"),
            "t.yaml:4:5: duplicate key 'sizes' in a problem (first at line 3)");
  EXPECT_EQ(error_of(kHead + "variants:\n  cl_direct:\n    unroll: 1\n    unroll: 2\n"),
            "t.yaml:8:5: duplicate key 'unroll' in variant 'cl_direct' (first at line 7)");
  EXPECT_EQ(error_of(kHead + "variants: {serial: }\nmeasure:\n  repeats: 3\n  repeats: 4\n"),
            "t.yaml:8:3: duplicate key 'repeats' in measure (first at line 7)");
}

TEST(SpaceErrors, HostileShapesAreRefused) {
  std::string deep = kHead + "variants: {serial: }\nmeasure: " + std::string(70, '[') + std::string(70, ']') + "\n";
  EXPECT_EQ(error_of(deep).rfind("t.yaml:6:", 0), 0u);
  EXPECT_NE(error_of(deep).find("nesting deeper than 64 levels is refused"), std::string::npos);
  std::string deeper = std::string(5000, '[');  // past yaml-cpp's own recursion guard
  EXPECT_NE(error_of(deeper).find("nesting deeper than 64 levels is refused"), std::string::npos);
  std::string long_list = kHead + "variants:\n  cl_direct:\n    block_x: [";
  for (int i = 0; i < 100001; ++i) long_list += std::to_string(i) + ",";
  long_list += "]\n";
  EXPECT_EQ(error_of(long_list), "t.yaml:7:14: a list of 100001 entries is refused (at most 100000)");
  std::string many = "family: conv\nproblems:\n  - sizes: [";
  for (int i = 1; i <= 400; ++i) many += std::to_string(i) + ",";
  many += "]\n    seed: [";
  for (int i = 1; i <= 400; ++i) many += std::to_string(i) + ",";
  many += "]\nbackends: [host]\nvariants: {serial: }\n";
  EXPECT_EQ(error_of(many), "t.yaml:3:5: the problems expand to more than 100000 problems; refused");
}

TEST(SpaceErrors, MissingFile) {
  try {
    load_space("/nonexistent/space.yaml", registry());
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/space.yaml: cannot read (no such file)");
  }
  try {
    load_space(data("good"), registry());
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), data("good") + ": cannot read (a directory)");
  }
}

// tests/data/spaces/bad/NN-name.yaml: the first line is "# expect: <part of the message>". Files
// whose second line is "# via: tune ..." are refused only when tuning starts (devices, images
// relative to that folder, constraints evaluated on a device); tests/e2e/bad_input_test.cpp runs
// every file through the pimg-tune binary.
class BadSpace : public ::testing::TestWithParam<std::string> {};

TEST_P(BadSpace, FailsWithExpectedMessage) {
  const std::string path = GetParam();
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  const std::string tag = "# expect: ";
  ASSERT_EQ(first.rfind(tag, 0), 0u) << path << " lacks a first line '# expect: ...'";
  const std::string expected = first.substr(tag.size());
  try {
    load_space(path, registry());
    FAIL() << path << " loaded without error";
  } catch (const UsageError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << "message: " << msg << "\nexpected: " << expected;
  }
}

std::vector<std::string> bad_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(data("bad"))) {
    if (e.path().extension() != ".yaml") continue;
    std::ifstream in(e.path());
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    if (second.rfind("# via: tune", 0) != 0) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadSpace, ::testing::ValuesIn(bad_files()), testcommon::stem_name);

TEST(BadSpaceCorpus, IsLargeEnough) { EXPECT_GE(bad_files().size(), 25u); }
