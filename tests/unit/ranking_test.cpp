// The winner of a (problem, device): confirmation rows decide when present, ties are overlapping
// intervals (never for rows without one), every baseline of the problem gets a ratio; and compare's
// Mann-Whitney U test and matching.
#include <gtest/gtest.h>

#include <cmath>

#include "json.hpp"
#include "pimg/compare.hpp"
#include "pimg/ranking.hpp"
#include "pimg/report.hpp"

namespace pimg {
namespace {

DeviceInfo device(const std::string& backend, const std::string& name) {
  DeviceInfo d;
  d.backend = backend;
  d.name = name;
  d.driver = "1";
  return d;
}

ResultRow row(std::int64_t id, const DeviceInfo& d, const std::string& variant, std::int64_t x, double median,
              double lo = 0, double hi = 0, const std::string& stage = "search", Status status = Status::ok) {
  ResultRow r;
  r.id = id;
  r.device = d;
  r.problem = {"conv", 1024, 1024, 1, {{"filter", "sharpen3"}}};
  r.variant = {"conv", variant, d.backend, "h-" + variant, variant == "npp" || variant == "serial"};
  if (!r.variant.baseline) r.config.set("x", x);
  r.result.status = status;
  r.result.kernel = {median, median, median, 0};
  r.result.ci_low_ms = lo;
  r.result.ci_high_ms = hi;
  r.result.stage = stage;
  r.result.method = "events";
  for (int i = 0; i < 9; ++i) r.result.kernel_ms.push_back(median * (1 + 0.001 * i));
  return r;
}

const DeviceInfo kRankGpu = device("cuda", "GPU");
const DeviceInfo kRankHost = device("host", "CPU");

TEST(Ranking, ConfirmationRowsDecideAndTiesOverlap) {
  std::vector<ResultRow> rows{
      row(1, kRankGpu, "vec", 1, 1.00, 0.98, 1.02),  // search: fastest
      row(2, kRankGpu, "vec", 2, 1.10, 1.08, 1.12),
      row(3, kRankGpu, "vec", 3, 1.30, 1.25, 1.35),
      row(4, kRankGpu, "npp", 0, 2.00, 1.95, 2.05),
      // confirmation: x=2 wins, x=1 overlaps it, npp measured in the same series
      row(5, kRankGpu, "vec", 1, 1.06, 1.03, 1.09, "confirm"),
      row(6, kRankGpu, "vec", 2, 1.05, 1.04, 1.07, "confirm"),
      row(7, kRankGpu, "npp", 0, 2.10, 2.05, 2.15, "confirm"),
      row(8, kRankHost, "serial", 0, 40.0),
  };
  const auto all = rank_all(rows);
  ASSERT_EQ(all.size(), 2u);  // the GPU and the host
  const Ranking& k = all[0].device.backend == "cuda" ? all[0] : all[1];
  EXPECT_TRUE(k.confirmed);
  ASSERT_NE(k.winner, nullptr);
  EXPECT_EQ(k.winner->id, 6);
  ASSERT_EQ(k.ties.size(), 1u);
  EXPECT_EQ(k.ties[0]->id, 5);
  EXPECT_EQ(k.method, "events");
  ASSERT_EQ(k.baselines.size(), 2u);
  std::map<std::string, double> ratio;
  for (const auto& b : k.baselines) ratio[b.row->variant.name] = b.ratio;
  EXPECT_NEAR(ratio["npp"], 2.10 / 1.05, 1e-12);  // the confirmation row of the baseline
  EXPECT_NEAR(ratio["serial"], 40.0 / 1.05, 1e-12);
  EXPECT_EQ(time_with_interval(*k.winner), "1.050 ms [1.040, 1.070]");
}

// A decision ran loaded when the winner, a row tied with it or the closest row it beat carries "loaded"; a loaded
// row farther behind does not mark it.
TEST(Ranking, ADecisionWhoseRowsRanLoadedIsMarked) {
  const auto loaded = [](ResultRow r) {
    r.result.flags.push_back("loaded");
    return r;
  };
  const auto decided = [](const std::vector<ResultRow>& rows) { return rank_all(rows).at(0).loaded; };
  const ResultRow a = row(1, kRankGpu, "vec", 1, 1.00, 0.99, 1.01), b = row(2, kRankGpu, "vec", 2, 1.50, 1.49, 1.51),
                  c = row(3, kRankGpu, "vec", 3, 3.00, 2.99, 3.01), tie = row(4, kRankGpu, "vec", 4, 1.01, 1.0, 1.02);
  EXPECT_FALSE(decided({a, b, c}));
  EXPECT_TRUE(decided({loaded(a), b, c}));
  EXPECT_TRUE(decided({a, loaded(b), c}));    // the closest row it beat
  EXPECT_FALSE(decided({a, b, loaded(c)}));   // farther behind
  EXPECT_TRUE(decided({a, b, loaded(tie)}));  // tied with it
  EXPECT_TRUE(decided({a, loaded(tie), b}));
}

TEST(Ranking, SearchRowsWithoutIntervalsAreNeverTied) {
  std::vector<ResultRow> rows{row(1, kRankGpu, "vec", 1, 1.0), row(2, kRankGpu, "vec", 2, 1.0), row(3, kRankGpu, "vec", 3, 1.0, 0.9, 1.1)};
  const auto all = rank_all(rows);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].confirmed);
  EXPECT_EQ(all[0].winner->id, 1);  // ties broken by the total order
  EXPECT_TRUE(all[0].ties.empty());
  EXPECT_FALSE(tied(rows[0], rows[2]));
  EXPECT_TRUE(tied(rows[2], row(4, kRankGpu, "vec", 4, 1.2, 1.05, 1.3)));
  EXPECT_FALSE(tied(rows[2], row(4, kRankGpu, "vec", 4, 1.2, 1.11, 1.3)));
}

// Medians within the tool's resolution (2%) are tied even when their intervals are apart; beyond it,
// only overlapping intervals tie.
TEST(Ranking, MediansWithinTheResolutionAreTied) {
  const ResultRow w = row(1, kRankGpu, "vec", 1, 1.000, 0.999, 1.001);
  EXPECT_TRUE(tied(w, row(2, kRankGpu, "vec", 2, 1.019, 1.018, 1.020)));
  EXPECT_FALSE(tied(w, row(3, kRankGpu, "vec", 3, 1.021, 1.020, 1.022)));
  EXPECT_TRUE(tied(row(4, kRankGpu, "vec", 4, 1.019, 1.018, 1.020), w));  // symmetric
  EXPECT_FALSE(tied(w, row(5, kRankGpu, "vec", 5, 1.001)));               // no interval: never tied
}

// A row whose median moved between the confirmation's sessions by more than the resolution ties what lies within
// that move, from either side; without the metric, or with a spread under 2%, the resolution alone decides.
TEST(Ranking, MediansWithinARowsSessionSpreadAreTied) {
  auto spread = [](ResultRow r, double s) {
    r.result.metrics.push_back({"confirm.session_spread", "ratio", -1, s});
    return r;
  };
  const ResultRow w = row(1, kRankGpu, "vec", 1, 1.000, 0.990, 1.010);
  const ResultRow b = row(2, kRankGpu, "vec", 2, 1.100, 1.090, 1.110);  // 10% slower, intervals apart
  EXPECT_FALSE(tied(w, b));
  EXPECT_TRUE(tied(spread(w, 0.12), b));   // the winner moved 12% between two processes
  EXPECT_TRUE(tied(w, spread(b, 0.12)));   // or the other one did
  EXPECT_TRUE(tied(spread(b, 0.12), w));   // symmetric
  EXPECT_FALSE(tied(spread(w, 0.08), b));  // a smaller move does not reach
  EXPECT_FALSE(tied(spread(w, 0.01), row(3, kRankGpu, "vec", 3, 1.021, 1.020, 1.022)));  // under 2%: the resolution
  EXPECT_DOUBLE_EQ(session_spread(spread(w, 0.12)), 0.12);
  EXPECT_DOUBLE_EQ(session_spread(w), 0.0);
}

// Two runs' confirmation stages are two series measured apart: only the latest run's rows decide.
TEST(Ranking, OnlyTheLatestConfirmingRunDecides) {
  std::vector<ResultRow> rows{row(1, kRankGpu, "vec", 1, 1.00, 0.99, 1.01, "confirm"),  // run 1
                              row(2, kRankGpu, "vec", 2, 1.50, 1.49, 1.51, "confirm"),  // run 2
                              row(3, kRankGpu, "vec", 3, 1.60, 1.59, 1.61, "confirm")};
  rows[0].run_id = 1;
  rows[1].run_id = rows[2].run_id = 2;
  const auto all = rank_all(rows);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].winner->id, 2);
  EXPECT_EQ(all[0].ranked.size(), 2u);
}

TEST(Ranking, FailuresNeverWinAndATunedRowBeatsAFasterBaseline) {
  std::vector<ResultRow> rows{row(1, kRankGpu, "vec", 1, 0.5, 0, 0, "search", Status::wrong_result),
                              row(2, kRankGpu, "npp", 0, 0.8), row(3, kRankGpu, "vec", 2, 1.0)};
  const auto all = rank_all(rows);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].winner->id, 3);
  ASSERT_EQ(all[0].baselines.size(), 1u);
  EXPECT_NEAR(all[0].baselines[0].ratio, 0.8, 1e-12);  // the baseline is faster: below 1x
  EXPECT_TRUE(rank_all({row(1, kRankGpu, "vec", 1, 0.5, 0, 0, "search", Status::timeout)}).empty());
}

TEST(Ranking, BestJsonCarriesTheDecision) {
  std::vector<ResultRow> rows{row(1, kRankGpu, "vec", 1, 1.00, 0.98, 1.02), row(2, kRankGpu, "vec", 2, 1.01, 0.99, 1.03),
                              row(3, kRankGpu, "npp", 0, 2.00, 1.9, 2.1)};
  const Json j = JsonParser(best_json(rows, {}, 5)).document();
  ASSERT_EQ(j.items.size(), 1u);
  const Json& g = j.items[0];
  EXPECT_EQ(g["winner"]["variant"].text, "vec");
  EXPECT_EQ(g["winner"]["ci_ms"].items.size(), 2u);
  EXPECT_EQ(g["winner"]["method"].text, "events");
  EXPECT_EQ(g["ties"].items.size(), 1u);
  EXPECT_NEAR(g["baselines"].items[0]["ratio"].number, 2.0, 1e-3);
  EXPECT_EQ(g["p_fastest"].type, Json::Type::null);  // a search ranking
  EXPECT_EQ(g["p_bootstrap"].type, Json::Type::null);
  const std::string table = best_table(rows, {}, 5);
  EXPECT_NE(table.find("winner: vec x=1 1.000 ms [0.9800, 1.020], method events"), std::string::npos) << table;
  EXPECT_NE(table.find("tied (interval overlaps the winner's, within 2%, or within how far one of them moved between the "
                       "confirmation's sessions): vec x=2"), std::string::npos) << table;
  EXPECT_NE(table.find("vs baselines: 2.00x over npp on cuda:GPU"), std::string::npos) << table;
}

// A baseline that runs at several levels by process: the ratio is given with its range over the confirmation's
// sessions (the baseline's fastest session over the winner's slowest, and the other way), in words where the range
// is wider than the resolution. The session medians are NPP's 5x5 filter on three channels at 1024x1024 and the
// tuned kernel beside it on an H200 (bench/results/2026-12-01-h200-wide-conv).
TEST(Ranking, AnUnsteadyBaselineGivesItsRatioBySession) {
  auto sessions = [](ResultRow r, std::vector<double> medians) {
    for (std::size_t i = 0; i < medians.size(); ++i)
      r.result.metrics.push_back({"confirm.session_median_ms", "ms", static_cast<int>(i), medians[i]});
    return r;
  };
  const ResultRow won = sessions(row(1, kRankGpu, "vec", 1, 0.0142, 0.0141, 0.0143, "confirm"), {0.01414, 0.01437});
  const ResultRow npp = sessions(row(2, kRankGpu, "npp", 0, 0.0206, 0.0204, 0.0209, "confirm"),
                                 {0.02475, 0.02498, 0.0209, 0.02056, 0.02493, 0.02502, 0.02485, 0.01918});
  const auto all = rank_all({won, npp});
  ASSERT_EQ(all.size(), 1u);
  ASSERT_EQ(all[0].baselines.size(), 1u);
  const BaselineRatio& b = all[0].baselines[0];
  ASSERT_TRUE(b.session_range);
  EXPECT_NEAR(b.session_range->first, 0.01918 / 0.01437, 1e-9);
  EXPECT_NEAR(b.session_range->second, 0.02502 / 0.01414, 1e-9);
  EXPECT_TRUE(unsteady(b));
  EXPECT_EQ(ratio_text(b), "1.45x (1.33-1.77x by session)");
  const std::string table = best_table({won, npp}, {}, 5);
  EXPECT_NE(table.find("vs baselines: 1.45x (1.33-1.77x by session) over npp"), std::string::npos) << table;
  const Json j = JsonParser(best_json({won, npp}, {}, 5)).document();
  const Json& base = j.items[0]["baselines"].items[0];
  EXPECT_TRUE(base["unsteady"].boolean);
  ASSERT_EQ(base["ratio_by_session"].items.size(), 2u);
  EXPECT_NEAR(base["ratio_by_session"].items[0].number, 1.3347, 1e-4);
  EXPECT_EQ(base["ci_ms"].items.size(), 2u);
  // Sessions within the resolution of each other: the ratio alone, the range still in the JSON.
  const ResultRow steady = sessions(row(3, kRankGpu, "npp", 0, 0.0206, 0.0204, 0.0209, "confirm"), {0.0205, 0.0206});
  const auto calm = rank_all({sessions(row(1, kRankGpu, "vec", 1, 0.0142, 0.0141, 0.0143, "confirm"), {0.0142, 0.01421}),
                              steady});
  ASSERT_EQ(calm[0].baselines.size(), 1u);
  EXPECT_FALSE(unsteady(calm[0].baselines[0]));
  EXPECT_EQ(ratio_text(calm[0].baselines[0]), "1.45x");
  // One session (or none stored): no range.
  EXPECT_FALSE(rank_all({won, row(4, kRankGpu, "npp", 0, 0.0206, 0.0204, 0.0209, "confirm")})[0].baselines[0].session_range);
}

// The probability of the answer: drawn from the confirmation rows' samples, among the tuned candidates (the
// baseline is compared by its ratio), with the ties; none for a search ranking or rows read without samples.
TEST(Ranking, TheProbabilityOfTheAnswerComesFromTheConfirmationSamples) {
  std::vector<ResultRow> rows{
      row(1, kRankGpu, "vec", 1, 1.00, 0.98, 1.02),
      row(5, kRankGpu, "vec", 1, 1.06, 1.03, 1.09, "confirm"),  // tied with the winner; its samples all slower
      row(6, kRankGpu, "vec", 2, 1.05, 1.04, 1.07, "confirm"),
      row(7, kRankGpu, "npp", 0, 2.10, 2.05, 2.15, "confirm"),
  };
  auto all = rank_all(rows);
  ASSERT_EQ(all.size(), 1u);
  ASSERT_TRUE(all[0].probability);
  EXPECT_EQ(all[0].probability->candidates, 2u);  // vec x=1 and x=2, not npp
  EXPECT_EQ(all[0].probability->samples, 18u);
  EXPECT_EQ(all[0].probability->fastest, 1.0);
  EXPECT_EQ(all[0].probability->fastest_or_tied, 1.0);
  EXPECT_EQ(probability_text(all[0]),
            "P(fastest) 1.00, with ties 1.00 (bootstrap of 18 samples of 2 confirmed configurations)");
  EXPECT_EQ(probability_cell(all[0]), "1.00 [1.00]");
  const Json j = JsonParser(best_json(rows, {}, 5)).document();
  EXPECT_EQ(j.items[0]["p_fastest"].number, 1.0);
  EXPECT_EQ(j.items[0]["p_fastest_or_tied"].number, 1.0);
  EXPECT_EQ(j.items[0]["p_bootstrap"]["candidates"].number, 2);
  EXPECT_EQ(j.items[0]["p_bootstrap"]["resamples"].number, kBootstrapResamples);
  const std::string table = best_table(rows, {}, 5);
  EXPECT_NE(table.find("P(fastest) 1.00, with ties 1.00 (bootstrap of 18"), std::string::npos) << table;
  // The winner's samples moved among its tie's: about an even share, all of it with the tie.
  rows[2].result.kernel_ms = rows[1].result.kernel_ms;
  all = rank_all(rows);
  ASSERT_TRUE(all[0].probability);
  EXPECT_NEAR(all[0].probability->fastest, 0.5, 0.05);
  EXPECT_EQ(all[0].probability->fastest_or_tied, 1.0);
  // Confirmation rows read without their samples: none, and said so.
  for (auto& r : rows) r.result.kernel_ms.clear();
  all = rank_all(rows);
  EXPECT_FALSE(all[0].probability);
  EXPECT_NE(probability_text(all[0]).find("n/a (the confirmation rows' samples"), std::string::npos);
  EXPECT_EQ(JsonParser(best_json(rows, {}, 5)).document().items[0]["p_fastest"].type, Json::Type::null);
  // A search ranking: none.
  all = rank_all({row(1, kRankGpu, "vec", 1, 1.00, 0.98, 1.02), row(2, kRankGpu, "vec", 2, 1.5, 1.4, 1.6)});
  EXPECT_FALSE(all[0].probability);
  EXPECT_EQ(probability_text(all[0]), "P(fastest) n/a (no confirmation stage: the search ranks)");
  // Baselines alone: the winner is the fastest of them, and they are the candidates.
  all = rank_all({row(1, kRankGpu, "npp", 0, 1.0, 0.9, 1.1, "confirm"), row(2, kRankHost, "serial", 0, 9.0),
                  row(3, kRankGpu, "serial", 0, 5.0, 4.9, 5.1, "confirm")});
  const Ranking& gpu = all[0].device.backend == "cuda" ? all[0] : all[1];
  ASSERT_TRUE(gpu.probability);
  EXPECT_EQ(gpu.probability->candidates, 2u);
}

// Reference values of the exact distribution, by hand: fully separated samples of m and n give
// 2/C(m+n, m); interleaved 1,3,5,7 against 2,4,6,8 has U = 6 and P(U <= 6) = 24/70.
TEST(MannWhitney, ExactSmallSamples) {
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);  // 2/C(6,3)
  EXPECT_NEAR(mann_whitney_p({1, 3, 5, 7}, {2, 4, 6, 8}), 0.6857142857142857, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1, 2}), 1.0);
}

TEST(MannWhitney, NormalApproximationWithTies) {
  // Ties force the normal approximation (tie-corrected, continuity-corrected): two constant samples
  // of 20 that differ are as far apart as ranks go (z = 5.9); identical samples give 1.
  std::vector<double> a(20, 1.0), b(20, 2.0);
  EXPECT_LT(mann_whitney_p(a, b), 1e-6);
  EXPECT_DOUBLE_EQ(mann_whitney_p(a, a), 1.0);
  std::vector<double> x, y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i % 7);
    y.push_back(i % 7 + (i % 3 == 0 ? 1 : 0));
  }
  const double p = mann_whitney_p(x, y);
  EXPECT_GT(p, 0.01);
  EXPECT_LT(p, 0.9);
}

TEST(Compare, MatchesConfigurationsAndSummarisesTheGeometricMean) {
  std::vector<ResultRow> a{row(1, kRankGpu, "vec", 1, 1.0), row(2, kRankGpu, "vec", 2, 2.0), row(3, kRankGpu, "vec", 3, 3.0)};
  std::vector<ResultRow> b{row(11, kRankGpu, "vec", 1, 0.5), row(12, kRankGpu, "vec", 2, 2.0), row(14, kRankGpu, "vec", 4, 1.0)};
  const Comparison c = compare_rows(a, b, "old", "new", true);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.only_a, 1u);
  EXPECT_EQ(c.only_b, 1u);
  EXPECT_NEAR(c.geomean_ratio, std::sqrt(0.5 * 1.0), 1e-12);
  EXPECT_EQ(c.faster, 1u);  // x=1 halved: 9 samples each, fully separated
  EXPECT_EQ(c.slower, 0u);
  EXPECT_TRUE(c.pairs[0].significant);
  EXPECT_FALSE(c.pairs[1].significant);  // identical samples
  const std::string md = compare_markdown(c);
  EXPECT_NE(md.find("geometric mean of B/A 0.707 (-29.3%)"), std::string::npos) << md;
  const Json j = JsonParser(compare_json(c)).document();
  EXPECT_EQ(j["pairs"].items.size(), 2u);
  EXPECT_EQ(j["pairs"].items[0]["significant"].type, Json::Type::boolean);
  // Two devices: the device leaves the key.
  std::vector<ResultRow> other{row(21, device("cuda", "GPU2"), "vec", 1, 2.0)};
  EXPECT_EQ(compare_rows(a, other, "GPU", "GPU2", false).pairs.size(), 1u);
  EXPECT_EQ(compare_rows(a, other, "GPU", "GPU2", true).pairs.size(), 0u);
}

}  // namespace
}  // namespace pimg
