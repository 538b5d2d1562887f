// The covering set (pimg/cover.hpp): the selection against brute force on small matrices, a set that must cover two
// devices with different optima, leave-one-device-out, the matching of stores and families (parameters, shared
// configurations, failures, the writer's objective) and the alias rows pimg::best_config answers.
#include "pimg/cover.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <random>

#include "cover_fixture.hpp"
#include "pimg/best_config.hpp"
#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "synthetic_db.hpp"

using namespace pimg;

namespace {

using CoverMatrix = std::vector<std::vector<double>>;

double cover_worst(const CoverMatrix& f, const std::vector<std::size_t>& devices, const std::vector<std::size_t>& set) {
  double w = 1;
  for (const std::size_t d : devices) {
    double best = 0;
    for (const std::size_t c : set) best = std::max(best, f[c][d]);
    w = std::min(w, best);
  }
  return w;
}

// The largest worst fraction of any set of at most k rows, by enumeration.
double cover_brute_force(const CoverMatrix& f, const std::vector<std::size_t>& devices, std::size_t k) {
  double top = 0;
  std::vector<std::size_t> set;
  std::function<void(std::size_t)> walk = [&](std::size_t from) {
    top = std::max(top, cover_worst(f, devices, set));
    if (set.size() == k) return;
    for (std::size_t c = from; c < f.size(); ++c) {
      set.push_back(c);
      walk(c + 1);
      set.pop_back();
    }
  };
  walk(0);
  return top;
}

std::vector<std::size_t> cover_columns(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

CoverSource cover_source(const synthetic::TempDb& db) {
  const Store s(db.path.string(), Store::Mode::read_only);
  CoverSource src{db.path.string(), s.ranking_rows()};
  s.add_metrics(src.rows);
  return src;
}

// The fixture's two stores, read as the command reads them.
struct CoverTwoStores {
  synthetic::TempDb a{"cover-a"}, b{"cover-b"};
  CoverTwoStores() {
    Store sa(a.path.string()), sb(b.path.string());
    cover_fixture::fill_two_stores(sa, sb);
  }
  CoverResult run(std::size_t k) const {
    CoverOptions o;
    o.families = {"conv", "t1-k"};
    o.k = k;
    return cover({cover_source(a), cover_source(b)}, o);
  }
};

const CoverDevice& cover_device(const CoverProblem& p, const std::string& name) {
  for (const CoverDevice& d : p.devices)
    if (d.device.name == name) return d;
  throw std::runtime_error("no device " + name);
}

}  // namespace

TEST(CoverSelect, CoversTwoDevicesWithDifferentOptima) {
  // X is device 0's optimum and half of device 1's, Y the reverse; Z is 0.8 of both. One configuration: Z. Two: X
  // and Y, every device at its optimum, though Z is the best first choice by the mean and by the worst device.
  const CoverMatrix f{{1.0, 0.5}, {0.5, 1.0}, {0.8, 0.8}, {0.3, 0.0}};
  const CoverSet one = select_cover(f, {0, 1}, 1);
  EXPECT_EQ(one.rows, (std::vector<std::size_t>{2}));
  EXPECT_EQ(one.core, 1u);
  EXPECT_TRUE(one.exact);
  CoverSet two = select_cover(f, {0, 1}, 2);
  EXPECT_EQ(two.core, 2u);
  std::sort(two.rows.begin(), two.rows.end());
  EXPECT_EQ(two.rows, (std::vector<std::size_t>{0, 1}));
  // More room: Z as a hedge, good on both; row 3 failed on device 1 and hedges nothing.
  const CoverSet four = select_cover(f, {0, 1}, 4);
  EXPECT_EQ(four.core, 2u);
  ASSERT_EQ(four.rows.size(), 3u);
  EXPECT_EQ(four.rows[2], 2u);
}

TEST(CoverSelect, NeverReadsADeviceLeftOut) {
  // Row 2 is device 2's only good configuration; covering devices 0 and 1 alone never picks it, as core or hedge.
  const CoverMatrix f{{1.0, 0.9, 0.0}, {0.9, 1.0, 0.0}, {0.0, 0.0, 1.0}};
  for (std::size_t k = 1; k <= 3; ++k) {
    const auto set = select_cover(f, {0, 1}, k).rows;
    EXPECT_EQ(std::count(set.begin(), set.end(), 2u), 0) << k;
  }
  EXPECT_EQ(select_cover(f, {2}, 2).rows, (std::vector<std::size_t>{2}));
}

TEST(CoverSelect, WorstDeviceIsTheOptimumOfEverySmallMatrix) {
  std::mt19937 rng(38);
  std::uniform_real_distribution<double> u(0.2, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 2 + trial % 4, m = 6 + trial % 7, k = 1 + trial % 3;
    CoverMatrix f(m, std::vector<double>(n));
    for (auto& row : f)
      for (auto& x : row) x = trial % 5 == 0 && u(rng) < 0.45 ? 0.0 : u(rng);  // failures on some devices
    for (std::size_t d = 0; d < n; ++d) f[(trial + d) % m][d] = 1.0;           // each device's optimum
    const CoverSet set = select_cover(f, cover_columns(n), k);
    ASSERT_TRUE(set.exact);
    ASSERT_LE(set.rows.size(), k);
    EXPECT_DOUBLE_EQ(cover_worst(f, cover_columns(n), set.rows), cover_brute_force(f, cover_columns(n), k))
        << "trial " << trial;
  }
}

TEST(CoverSelect, ManyDevicesFallBackToGreedyAndSwaps) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.3, 1.0);
  const std::size_t n = kCoverExactDevices + 2, m = 14, k = 3;
  CoverMatrix f(m, std::vector<double>(n));
  for (auto& row : f)
    for (auto& x : row) x = u(rng);
  const CoverSet set = select_cover(f, cover_columns(n), k);
  EXPECT_FALSE(set.exact);
  ASSERT_FALSE(set.rows.empty());
  ASSERT_LE(set.rows.size(), k);
  const double got = cover_worst(f, cover_columns(n), set.rows), best = cover_brute_force(f, cover_columns(n), k);
  EXPECT_LE(got, best);
  EXPECT_GT(got, 0.9 * best);  // a heuristic, but not a poor one here
}

TEST(Cover, MatchesFamiliesByParametersAndLeavesEachDeviceOut) {
  const CoverTwoStores stores;
  const CoverResult one = stores.run(1);
  ASSERT_EQ(one.problems.size(), 1u);
  EXPECT_NE(one.pairing.find("one problem"), std::string::npos) << one.pairing;
  EXPECT_FALSE(one.variant_in_key);
  const CoverProblem& p1 = one.problems[0];
  ASSERT_EQ(p1.devices.size(), 3u);
  EXPECT_EQ(p1.shared, 8u);
  ASSERT_EQ(p1.chosen.size(), 1u);
  EXPECT_EQ(p1.chosen[0].config.config.canonical(), R"({"a":3,"b":0})");  // Z
  EXPECT_NEAR(p1.worst_in_sample, 0.8, 1e-12);
  // Without GPU A, GPU B and C choose Z too; without C, A and B choose X, which gives C half its optimum.
  EXPECT_NEAR(*cover_device(p1, "GPU A").leave_one_out, 0.8, 1e-12);
  EXPECT_NEAR(*cover_device(p1, "GPU C").leave_one_out, 0.5, 1e-12);
  EXPECT_NEAR(*p1.worst_leave_one_out, 0.5, 1e-12);

  const CoverResult two = stores.run(2);
  const CoverProblem& p2 = two.problems[0];
  ASSERT_EQ(p2.chosen.size(), 2u);
  EXPECT_EQ(p2.chosen[0].config.config.canonical(), R"({"a":1,"b":0})");  // X: best on A and B
  EXPECT_EQ(p2.chosen[0].best_on, 2u);
  EXPECT_EQ(p2.chosen[1].config.config.canonical(), R"({"a":2,"b":0})");  // Y: best on C
  EXPECT_FALSE(p2.chosen[1].hedge);
  for (const CoverDevice& d : p2.devices) EXPECT_DOUBLE_EQ(d.in_sample, 1.0) << d.device.name;
  EXPECT_EQ(cover_device(p2, "GPU C").family, "t1-k");
  EXPECT_EQ(cover_device(p2, "GPU C").in_sample_via, std::optional<std::size_t>(1));
  EXPECT_DOUBLE_EQ(*cover_device(p2, "GPU A").leave_one_out, 1.0);  // B and C choose X and Y
  // A and B need X alone and take Z, 0.8 of both, as a hedge: C gets 0.8, where k = 1 gave it 0.5.
  const CoverDevice& c = cover_device(p2, "GPU C");
  EXPECT_NEAR(*c.leave_one_out, 0.8, 1e-12);
  ASSERT_EQ(c.leave_one_out_set.size(), 2u);
  EXPECT_EQ(c.leave_one_out_set[1].config.canonical(), R"({"a":3,"b":0})");
  EXPECT_EQ(cover_shortfalls(two, 0.9), (std::vector<std::string>{"opencl:GPU C 0.800"}));
  EXPECT_TRUE(cover_shortfalls(two, 0.8).empty());
  // Three: Z joins the set as a hedge; no device's best, every device's 0.8.
  const CoverResult three = stores.run(3);
  ASSERT_EQ(three.problems[0].chosen.size(), 3u);
  EXPECT_TRUE(three.problems[0].chosen[2].hedge);
  EXPECT_EQ(three.problems[0].chosen[2].best_on, 0u);
}

TEST(Cover, FailedConfigurationsDoNotHelp) {
  // X fails on GPU B: B's optimum is Z, and one configuration for both is Z (A at 0.8), not X (B nothing).
  synthetic::TempDb db("cover-fail");
  {
    Store s(db.path.string());
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU A", 16), cover_fixture::kConv,
                       cover_fixture::times(1.0, 2.0, 1.25));
    cover_fixture::Times b = cover_fixture::times(1.0, 2.0, 1.25);
    b[{1, 0}] = std::nullopt;
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU B", 16), cover_fixture::kConv, b);
  }
  CoverOptions o;
  o.families = {"conv"};
  o.k = 1;
  const CoverResult r = cover({cover_source(db)}, o);
  const CoverProblem& p = r.problems[0];
  EXPECT_EQ(p.chosen[0].config.config.canonical(), R"({"a":3,"b":0})");
  EXPECT_EQ(cover_device(p, "GPU B").valid, 7u);
  EXPECT_EQ(cover_device(p, "GPU B").stored, 8u);
  EXPECT_DOUBLE_EQ(cover_device(p, "GPU B").in_sample, 1.0);
  // Left out, B is scored on what A chooses, X, which failed there.
  EXPECT_DOUBLE_EQ(*cover_device(p, "GPU B").leave_one_out, 0.0);
}

TEST(Cover, ImportedRowsRankByTheirWritersObjective) {
  // The writer recorded Y faster than X (its own time), the runs' medians say the reverse.
  synthetic::TempDb db("cover-writer");
  {
    Store s(db.path.string());
    DeviceInfo dev = synthetic::gpu("A100", 40);
    dev.backend = "imported";
    cover_fixture::put(s, "t4:k", "k", dev, {"t4:k", 0, 0, 1, {{"kernel", "k"}}}, cover_fixture::times(1.0, 2.0, 3.0),
                       {{{1, 0}, 3.0}, {{2, 0}, 1.5}, {{3, 0}, 3.0}});
  }
  CoverOptions o;
  o.families = {"t4:k"};
  const CoverResult writer = cover({cover_source(db)}, o);
  EXPECT_EQ(writer.problems[0].devices[0].optimum.config.canonical(), R"({"a":2,"b":0})");
  EXPECT_DOUBLE_EQ(writer.problems[0].devices[0].optimum_ms, 1.5);
  EXPECT_FALSE(writer.problems[0].worst_leave_one_out);  // one device: nothing to leave out
  o.objective = CoverObjective::median;
  const CoverResult median = cover({cover_source(db)}, o);
  EXPECT_EQ(median.problems[0].devices[0].optimum.config.canonical(), R"({"a":1,"b":0})");
}

TEST(Cover, RefusesParametersOnOneSideNoSharedConfigurationsAndUnknownFamilies) {
  synthetic::TempDb db("cover-bad");
  {
    Store s(db.path.string());
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU A", 16), cover_fixture::kConv,
                       cover_fixture::times(1.0, 2.0, 1.25));
    // t1-p: the same values plus a parameter conv does not have.
    const auto run = s.begin_run({"test", "2026-11-30T00:00:00Z", "abc", "synthetic", "0"});
    const auto d = s.device_id(synthetic::gpu("GPU P", 16));
    const auto v = s.variant_id({"t1-p", "kern", "opencl", "p"});
    Problem t1p = cover_fixture::kT1;
    t1p.family = "t1-p";
    const auto prob = s.problem_id(t1p, {1, "MPix/s", {1, 1}});
    Config c;
    c.set("a", std::int64_t{1});
    c.set("b", std::int64_t{0});
    c.set("pad", std::int64_t{0});
    s.save(run, d, prob, v, c, synthetic::result(1.0));
    // t1-q: other values of the same parameters.
    cover_fixture::put(s, "t1-q", "kern", synthetic::gpu("GPU Q", 16), cover_fixture::kT1, {{{9, 9}, 1.0}});
  }
  auto run = [&](std::vector<std::string> families) {
    CoverOptions o;
    o.families = std::move(families);
    try {
      cover({cover_source(db)}, o);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string params = run({"conv", "t1-p"});
  EXPECT_NE(params.find("1 parameter is not stored on every device (opencl:GPU A (conv, "), std::string::npos)
      << params;
  EXPECT_NE(params.find(") lacks pad)"), std::string::npos) << params;
  const std::string shared = run({"conv", "t1-q"});
  EXPECT_NE(shared.find("no configuration is stored on every device"), std::string::npos) << shared;
  const std::string unknown = run({"conv", "t1-nope"});
  EXPECT_NE(unknown.find("--family t1-nope: no tuned configuration of it"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("families stored: conv, t1-p, t1-q"), std::string::npos) << unknown;
  CoverOptions zero;
  zero.families = {"conv"};
  zero.k = 0;
  EXPECT_THROW(cover({cover_source(db)}, zero), UsageError);
}

TEST(Cover, ProblemsOfOneFamilyPairByIdentity) {
  synthetic::TempDb db("cover-sizes");
  {
    Store s(db.path.string());
    const Problem big{"conv", 1024, 1024, 1, {{"filter", "sharpen3"}}};
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU A", 16), cover_fixture::kConv,
                       cover_fixture::times(1.0, 2.0, 1.25));
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU A", 16), big, cover_fixture::times(2.0, 1.0, 1.25));
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU B", 16), cover_fixture::kConv,
                       cover_fixture::times(1.0, 2.0, 1.25));
    cover_fixture::put(s, "conv", "cl_tiled", synthetic::gpu("GPU B", 16), big, cover_fixture::times(2.0, 1.0, 1.25));
  }
  CoverOptions o;
  o.families = {"conv"};
  o.k = 1;
  const CoverResult r = cover({cover_source(db)}, o);
  EXPECT_NE(r.pairing.find("identity"), std::string::npos) << r.pairing;
  ASSERT_EQ(r.problems.size(), 2u);
  for (const CoverProblem& p : r.problems) {
    EXPECT_EQ(p.devices.size(), 2u);
    EXPECT_DOUBLE_EQ(p.worst_in_sample, 1.0);
    EXPECT_DOUBLE_EQ(*p.worst_leave_one_out, 1.0);
  }
}

TEST(Cover, AliasRowsAnswerBestConfigAndAreNotReadAsDevices) {
  const CoverTwoStores stores;
  const CoverResult r = stores.run(2);
  synthetic::TempDb into("cover-into");
  {
    Store s(into.path.string());
    for (const ImportedFile& f : cover_aliases(r))
      store_import(s, f, {"test", "2026-11-30T00:00:00Z", "", "cover", "0"});
  }
  // Every family answers with the set, under its own problem: cover[1] is X, cover[2] is Y, cover[3] nothing.
  for (const auto& [family, size] : {std::pair{"conv", "256x256"}, std::pair{"t1-k", "4096x4096"}}) {
    const auto first = best_config(into.path.string(), family, "cover[1]", size);
    ASSERT_TRUE(first) << family;
    EXPECT_EQ(first->row.config.canonical(), R"({"a":1,"b":0})") << family;
    EXPECT_EQ(first->match, BestConfig::Match::exact);
    const auto second = best_config(into.path.string(), family, "cover[2]", "640x480");
    ASSERT_TRUE(second) << family;
    EXPECT_EQ(second->row.config.canonical(), R"({"a":2,"b":0})") << family;
    std::string why;
    EXPECT_FALSE(best_config(into.path.string(), family, "cover[3]", size, {}, &why)) << family;
  }
  // The alias rows beside the devices' own are left out of a cover of them.
  {
    Store s(stores.a.path.string());
    for (const ImportedFile& f : cover_aliases(r))
      store_import(s, f, {"test", "2026-11-30T00:00:00Z", "", "cover", "0"});
  }
  const CoverResult again = stores.run(2);
  EXPECT_EQ(again.problems[0].devices.size(), 3u);
  EXPECT_EQ(again.problems[0].chosen.size(), 2u);
}
