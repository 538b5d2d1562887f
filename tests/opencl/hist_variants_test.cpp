// The hist and histeq OpenCL variants on PoCL: every variant over a covering sample of its knobs, on
// 1 and 3 channels, odd sizes (tails that no vector load covers) and uniform and peaked inputs, equal
// to the serial reference; a global-atomic variant stripped of its clear kernel must fail validation
// (the output is poisoned before every run), and the histeq pipelines (separate with the CDF on the
// device or the host, fused) match OpenCV's rule exactly.
#include <gtest/gtest.h>

#include "cl_fixture.hpp"

namespace pimg::cltest {
namespace {

Config cfg(std::initializer_list<std::pair<const char*, Value>> values) { return config(values); }
Value i(std::int64_t v) { return v; }
Value t(const char* v) { return std::string(v); }

EvalResult eval(const char* family, const Variant& v, const Problem& p, const Config& c) {
  const Family& f = *registry().family(family);
  const Workload w = f.make_workload(p);
  const std::vector<std::uint8_t> expected = f.reference(p, w);
  MeasureSpec measure = MeasureSpec::fixed(1, 1, 10);
  EvalContext ctx{f, p, w, expected, device(), measure};
  return evaluate(ctx, v, c);
}

const Variant& variant(const char* family, const char* name) {
  const Variant* v = registry().variant(family, name);
  if (!v) throw std::runtime_error(std::string("no variant ") + family + "/" + name);
  return *v;
}

std::vector<Problem> hist_problems() {
  const Family& f = *registry().family("hist");
  std::vector<Problem> out;
  for (int channels : {1, 3})
    for (auto [w, h, dist] : {std::tuple{37, 23, "uniform"}, std::tuple{1, 3, "peaked"}, std::tuple{129, 67, "peaked"}})
      out.push_back(f.make_problem(w, h, channels, {{"dist", dist}}));
  return out;
}

std::vector<std::pair<const char*, Config>> hist_configs() {
  return {
      {"cl_global", cfg({{"block", i(64)}, {"items", i(1)}})},
      {"cl_global", cfg({{"block", i(32)}, {"items", i(3)}})},
      {"cl_packed", cfg({{"block", i(64)}, {"items", i(1)}})},
      {"cl_packed", cfg({{"block", i(16)}, {"items", i(4)}})},
      {"cl_local", cfg({{"block", i(64)}, {"groups", i(3)}, {"copies", i(1)}, {"vec", i(1)}})},
      {"cl_local", cfg({{"block", i(64)}, {"groups", i(0)}, {"copies", i(2)}, {"vec", i(4)}})},
      {"cl_local", cfg({{"block", i(128)}, {"groups", i(5)}, {"copies", i(4)}, {"vec", i(16)}})},
      // Interleaved copies: 32 (a copy per lane), a count that does not divide the group, every load width.
      {"cl_local", cfg({{"block", i(64)}, {"groups", i(3)}, {"copies", i(32)}, {"vec", i(16)}, {"layout", t("interleaved")}})},
      {"cl_local", cfg({{"block", i(128)}, {"groups", i(0)}, {"copies", i(3)}, {"vec", i(4)}, {"layout", t("interleaved")}})},
      {"cl_local", cfg({{"block", i(32)}, {"groups", i(2)}, {"copies", i(8)}, {"vec", i(1)}, {"layout", t("interleaved")}})},
      {"cl_outpart", cfg({{"block", i(64)}, {"bpg", i(256)}, {"vec", i(1)}})},
      {"cl_outpart", cfg({{"block", i(32)}, {"bpg", i(64)}, {"vec", i(4)}})},
      {"cl_outpart", cfg({{"block", i(128)}, {"bpg", i(32)}, {"vec", i(16)}})},
  };
}

// A covering array (docs/ci.md): each configuration on one 1-channel and one 3-channel problem, the sizes in turn,
// so each meets both channel counts and two of the three sizes, and every problem meets several configurations.
TEST(HistOpenCl, EveryVariantMatchesTheReference) {
  const std::vector<Problem> problems = hist_problems();
  const auto configs = hist_configs();
  for (std::size_t k = 0; k < configs.size(); ++k)
    for (std::size_t block : {0u, 1u}) {
      const Problem& p = problems[block * 3 + (k + block) % 3];
      const auto& [name, c] = configs[k];
      SCOPED_TRACE(std::string(name) + " " + c.brief() + " on " + p.label());
      const EvalResult r = eval("hist", variant("hist", name), p, c);
      // 32 interleaved copies of 3 channels need 96 KiB of local memory: PoCL offers it on some machines
      // (this workstation), not on others (48 KiB on the GPU machine), where the plan must refuse it.
      const double need = c.has("copies") ? 256.0 * 4 * p.channels * static_cast<double>(c.integer("copies")) : 0;
      const double have = static_cast<double>(device().info().local_mem_bytes);
      if (std::string(name) == "cl_local" && have > 0 && need > have)
        EXPECT_EQ(r.status, Status::launch_error) << r.log;
      else
        EXPECT_EQ(r.status, Status::ok) << r.log;
    }
}

// Planar 3-channel histograms (seed 002): every OpenCL variant, planes whose ends fall inside a 4- or 16-byte
// load (37 x 23 = 851 samples a plane).
TEST(HistOpenCl, PlanarHistogramsMatchTheReference) {
  const Problem p = registry().family("hist")->make_problem(37, 23, 3, {{"dist", "peaked"}, {"layout", "planar"}});
  for (const auto& [name, c] : hist_configs()) {
    SCOPED_TRACE(std::string(name) + " " + c.brief() + " on " + p.label());
    const double need = c.has("copies") ? 256.0 * 4 * p.channels * static_cast<double>(c.integer("copies")) : 0;
    const double have = static_cast<double>(device().info().local_mem_bytes);
    const EvalResult r = eval("hist", variant("hist", name), p, c);
    EXPECT_EQ(r.status, std::string(name) == "cl_local" && have > 0 && need > have ? Status::launch_error : Status::ok)
        << r.log;
  }
}

TEST(HistOpenCl, DefaultsRun) {
  const Problem p = registry().family("hist")->make_problem(200, 100, 3, {});
  for (const char* name : {"cl_global", "cl_packed", "cl_local", "cl_outpart"}) {
    const EvalResult r = eval("hist", variant("hist", name), p, Config{});
    EXPECT_EQ(r.status, Status::ok) << name << ": " << r.log;
  }
}

// The variant's own plan with its first launch (the clear kernel) removed.
class WithoutClear final : public Variant {
 public:
  explicit WithoutClear(const Variant& v) : v_(v) {}
  std::string name() const override { return v_.name() + "_noclear"; }
  std::string family() const override { return v_.family(); }
  std::string backend() const override { return v_.backend(); }
  std::string source() const override { return v_.source(); }
  std::string help() const override { return v_.help(); }
  std::vector<ParamDecl> parameters() const override { return v_.parameters(); }
  LaunchPlan plan(const PlanContext& x) const override {
    LaunchPlan plan = v_.plan(x);  // the same parameters: parameters() forwards them
    EXPECT_TRUE(plan.entry == "hist_clear" || plan.entry == "histeq_clear") << plan.entry;
    EXPECT_FALSE(plan.steps.empty());
    const LaunchStep s = plan.steps.front();
    plan.steps.erase(plan.steps.begin());
    plan.entry = s.entry;
    plan.dims = s.dims;
    plan.global = s.global;
    plan.local = s.local;
    plan.args = s.args;
    return plan;
  }

 private:
  const Variant& v_;
};

TEST(HistOpenCl, ForgettingTheClearFailsValidation) {
  const Problem p = registry().family("hist")->make_problem(64, 32, 1, {});
  for (const char* name : {"cl_global", "cl_packed", "cl_local"}) {
    const WithoutClear stripped(variant("hist", name));
    const EvalResult r = eval("hist", stripped, p, Config{});
    EXPECT_EQ(r.status, Status::wrong_result) << name << ": " << r.log;
  }
}

// histeq's fused pipeline adds into a scratch histogram, poisoned before every run like the output.
TEST(HisteqOpenCl, ForgettingTheScratchClearFailsValidation) {
  const Problem p = registry().family("histeq")->make_problem(64, 32, 1, {{"dist", "peaked"}});
  const WithoutClear stripped(variant("histeq", "cl_fused"));
  const EvalResult r = eval("histeq", stripped, p, Config{});
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
}

TEST(HistOpenCl, ImpossibleGroupsAreLaunchErrors) {
  const Problem p = registry().family("hist")->make_problem(16, 16, 3, {});
  EXPECT_EQ(eval("hist", variant("hist", "cl_local"), p, cfg({{"copies", i(1000)}, {"block", i(1000)}})).status,
            Status::launch_error);
  EXPECT_EQ(eval("hist", variant("hist", "cl_outpart"), p, cfg({{"bpg", i(48)}})).status, Status::launch_error);
}

TEST(HisteqOpenCl, PipelinesMatchTheRule) {
  const Family& f = *registry().family("histeq");
  std::vector<Problem> problems;
  for (auto [w, h, dist] : {std::tuple{37, 23, "peaked"}, std::tuple{1, 1, "uniform"}, std::tuple{257, 131, "uniform"},
                            std::tuple{301, 97, "peaked"}})
    problems.push_back(f.make_problem(w, h, 1, {{"dist", dist}}));
  const std::vector<std::pair<const char*, Config>> configs = {
      {"cl_separate", cfg({{"cdf", t("device")}, {"groups", i(3)}, {"copies", i(2)}, {"vec", i(4)}, {"map_vec", i(4)}})},
      {"cl_separate", cfg({{"cdf", t("host")}, {"groups", i(0)}, {"vec", i(16)}, {"map_vec", i(16)}, {"map_groups", i(2)}})},
      {"cl_separate", cfg({{"cdf", t("device")}, {"hist_block", i(64)}, {"map_block", i(64)}})},
      {"cl_fused", cfg({{"groups", i(4)}, {"copies", i(4)}, {"vec", i(16)}, {"map_vec", i(4)}})},
      {"cl_fused", cfg({{"groups", i(1)}, {"map_block", i(512)}, {"map_groups", i(3)}})},
      // Interleaved sub-histograms and the map walked from the image's end, both load widths.
      {"cl_separate", cfg({{"layout", t("interleaved")}, {"copies", i(32)}, {"map_order", t("reverse")}, {"groups", i(3)},
                           {"vec", i(16)}, {"map_vec", i(16)}, {"map_groups", i(2)}})},
      {"cl_separate", cfg({{"layout", t("interleaved")}, {"copies", i(5)}, {"map_order", t("reverse")}, {"cdf", t("host")},
                           {"vec", i(4)}, {"map_vec", i(4)}})},
      {"cl_fused", cfg({{"layout", t("interleaved")}, {"copies", i(32)}, {"map_order", t("reverse")}, {"groups", i(4)},
                        {"vec", i(4)}, {"map_vec", i(16)}, {"map_groups", i(3)}})},
      {"cl_fused", cfg({{"layout", t("blocked")}, {"copies", i(2)}, {"map_order", t("reverse")}, {"vec", i(16)},
                        {"map_vec", i(4)}})},
  };
  // A covering array (docs/ci.md): each configuration on two of the four problems, in turn (the 1x1 image and the
  // odd ones meet every kernel and layout).
  for (std::size_t k = 0; k < configs.size(); ++k)
    for (std::size_t shift : {0u, 2u}) {
      const Problem& p = problems[(k + shift) % problems.size()];
      const auto& [name, c] = configs[k];
      SCOPED_TRACE(std::string(name) + " " + c.brief() + " on " + p.label());
      const EvalResult r = eval("histeq", variant("histeq", name), p, c);
      EXPECT_EQ(r.status, Status::ok) << r.log;
    }
  EXPECT_EQ(eval("histeq", variant("histeq", "cl_fused"), problems[0], cfg({{"map_block", i(128)}})).status,
            Status::launch_error);
}

}  // namespace
}  // namespace pimg::cltest
