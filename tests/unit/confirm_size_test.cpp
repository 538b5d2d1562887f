// How many candidates the confirmation stage takes (confirm_candidates_count, docs/measurement.md): as many as
// could still be tied with the best, not a fixed top five.
#include <gtest/gtest.h>

#include <vector>

#include "../../tuner/src/run/tuner_impl.hpp"

namespace {

pimg::ResultRow row(double median, double half_width) {
  pimg::ResultRow r;
  r.result.kernel.median = median;
  r.result.ci_low_ms = median - half_width;
  r.result.ci_high_ms = median + half_width;
  return r;
}

std::size_t count(const std::vector<pimg::ResultRow>& rows, const pimg::ConfirmSpec& spec) {
  std::vector<const pimg::ResultRow*> tuned;
  for (const auto& r : rows) tuned.push_back(&r);
  return pimg::confirm_candidates_count(tuned, spec);
}

TEST(ConfirmSize, ClearlySlowerTopConfigurationsStayOut) {
  const pimg::ConfirmSpec spec;  // top 5, within 4%, max 20
  // The best alone in its contest: the next is 30% slower with tight intervals.
  EXPECT_EQ(count({row(1.0, 0.01), row(1.3, 0.01), row(1.5, 0.01), row(2.0, 0.01)}, spec), 1u);
  // A wide interval reaching the best's keeps a configuration in, however far its median.
  EXPECT_EQ(count({row(1.0, 0.01), row(1.3, 0.3), row(1.5, 0.01)}, spec), 2u);
  // Within 4% by median or interval: in; the top stops at the first that cannot be tied.
  EXPECT_EQ(count({row(1.0, 0.01), row(1.03, 0.01), row(1.05, 0.02), row(1.2, 0.01), row(1.21, 0.0)}, spec), 3u);
  EXPECT_EQ(count({}, spec), 0u);
}

TEST(ConfirmSize, WithinWidensAndMaxCaps) {
  pimg::ConfirmSpec spec;
  std::vector<pimg::ResultRow> close;
  for (int i = 0; i < 30; ++i) close.push_back(row(1.0 + 0.001 * i, 0.001));
  EXPECT_EQ(count(close, spec), 20u);  // all within 4%: max
  spec.max = 3;
  EXPECT_EQ(count(close, spec), 3u);
  spec.max = 20;
  spec.top = 2;
  spec.within = 0.0;  // nothing within: only the best, and a second only when intervals touch
  EXPECT_EQ(count({row(1.0, 0.01), row(1.02, 0.015), row(1.5, 0.01)}, spec), 2u);
  EXPECT_EQ(count({row(1.0, 0.01), row(1.05, 0.01)}, spec), 1u);
}

std::size_t widened(const std::vector<pimg::ResultRow>& rows, std::size_t kept, double high,
                    const pimg::ConfirmSpec& spec) {
  std::vector<const pimg::ResultRow*> tuned;
  for (const auto& r : rows) tuned.push_back(&r);
  return pimg::confirm_widened_count(tuned, kept, high, 0.0, spec);
}

// PoCL on the 2-core machine (bench/results/2026-11-29-cpu-main-job-evict): the search put the best at 0.846 ms
// with a tight interval and the next at 1.109 ms, so the stage took the best alone; pooled over two processes its
// interval was [0.866, 1.179]. That interval reaches the second, which is confirmed too; a tight confirmed
// interval widens nothing.
TEST(ConfirmSize, AWideConfirmedIntervalTakesInWhatItReaches) {
  const pimg::ConfirmSpec spec;  // within 4%, max 20
  const std::vector<pimg::ResultRow> search{row(0.846, 0.005), row(1.109, 0.01), row(1.280, 0.01), row(1.697, 0.02)};
  EXPECT_EQ(count(search, spec), 1u);
  EXPECT_EQ(widened(search, 1, 1.179, spec), 2u);   // 1.099 <= 1.179 * 1.04; 1.27 is not
  EXPECT_EQ(widened(search, 1, 1.25, spec), 3u);    // 1.27 <= 1.30
  EXPECT_EQ(widened(search, 1, 0.851, spec), 1u);   // tight: nothing more
  EXPECT_EQ(widened(search, 2, 0.851, spec), 2u);   // those confirmed stay
  pimg::ConfirmSpec capped = spec;
  capped.max = 2;
  EXPECT_EQ(widened(search, 1, 5.0, capped), 2u);   // max caps
  // A best whose median moved 34% between the stage's two processes (PoCL, 2048x2048) reaches as far: what it
  // could be tied with (pimg::tied) is confirmed with it.
  std::vector<const pimg::ResultRow*> tuned;
  for (const auto& r : search) tuned.push_back(&r);
  EXPECT_EQ(pimg::confirm_widened_count(tuned, 1, 0.851, 0.34, spec), 2u);  // 1.099 <= 0.851 * 1.34; 1.27 is not
  EXPECT_EQ(pimg::confirm_widened_count(tuned, 1, 0.851, 0.01, spec), 1u);  // a small spread: within alone
}


// Where the confirmation's sessions disagree (confirm_decisive_spread, docs/measurement.md "More sessions where they
// disagree"): the spread that decides whether a problem gets more sessions is that of its winner, of the candidates
// within `within` of it and of its baselines; a clearly slower candidate that moved does not count.
pimg::EvalResult session_result(std::vector<double> samples) {
  pimg::EvalResult r;
  r.status = pimg::Status::ok;
  r.kernel_ms = std::move(samples);
  return r;
}

// Candidates 0..kept-1 tuned, the rest baselines; each session gives every candidate five samples around its level.
std::vector<std::vector<pimg::EvalResult>> sessions_at(const std::vector<std::vector<double>>& levels) {
  std::vector<std::vector<pimg::EvalResult>> out;
  for (const auto& session : levels) {
    std::vector<pimg::EvalResult> results;
    for (double l : session) results.push_back(session_result({l * 0.999, l, l, l * 1.001, l * 1.002}));
    out.push_back(std::move(results));
  }
  return out;
}

TEST(ConfirmSessions, MoreSessionsOnlyWhereTheDecidingRowsMoved) {
  const pimg::ConfirmSpec spec;  // within 4%
  // Steady: the winner, a close second and the baseline moved 0.2-0.5% between the sessions.
  const auto steady = sessions_at({{1.000, 1.010, 3.00}, {1.002, 1.015, 3.01}});
  EXPECT_LT(pimg::confirm_decisive_spread(steady, 2, spec), pimg::kSettleSpread);
  // A baseline at another level in the second session (NPP's filter on an H200: 25.4 us, then 19.3 us).
  const auto baseline = sessions_at({{1.000, 1.010, 3.00}, {1.002, 1.015, 2.30}});
  EXPECT_NEAR(pimg::confirm_decisive_spread(baseline, 2, spec), 3.00 / 2.30 - 1, 1e-3);
  EXPECT_GT(pimg::confirm_decisive_spread(baseline, 2, spec), pimg::kSettleSpread);
  // The winner moved 3.7% (an OpenCL histogram's two processes): more sessions.
  const auto winner = sessions_at({{1.037, 1.050, 3.00}, {1.000, 1.045, 3.00}});
  EXPECT_NEAR(pimg::confirm_decisive_spread(winner, 2, spec), 0.037, 1e-3);
  // A tuned candidate 20% behind the winner moved 10%: it decides nothing.
  const auto far = sessions_at({{1.000, 1.20, 3.00}, {1.001, 1.32, 3.00}});
  EXPECT_LT(pimg::confirm_decisive_spread(far, 2, spec), pimg::kSettleSpread);
  // ... but a candidate within `within` of the winner that moved 3% does.
  const auto close = sessions_at({{1.000, 1.01, 3.00}, {1.001, 1.04, 3.00}});
  EXPECT_GT(pimg::confirm_decisive_spread(close, 2, spec), pimg::kSettleSpread);
  // One session says nothing about the spread; a failed candidate is left out.
  EXPECT_EQ(pimg::confirm_decisive_spread(sessions_at({{1.0, 2.0}}), 1, spec), 0.0);
  auto failed = sessions_at({{1.000, 1.010, 3.00}, {1.002, 1.015, 3.01}});
  failed[1][1].status = pimg::Status::wrong_result;
  failed[0][1].kernel_ms = {5.0};
  EXPECT_LT(pimg::confirm_decisive_spread(failed, 2, spec), pimg::kSettleSpread);
}

TEST(ConfirmSessions, TheDeviceClassSetsTheMostSessionsUnlessTheSpaceDoes) {
  pimg::MeasureSpec m;
  pimg::DeviceCaps gpu, cpu;
  cpu.host_cores = true;
  EXPECT_EQ(m.for_device(gpu).confirm.max_sessions, pimg::kAcceleratorNoise.confirm_max_sessions);
  EXPECT_EQ(m.for_device(cpu).confirm.max_sessions, pimg::kHostCoresNoise.confirm_max_sessions);
  EXPECT_GT(pimg::kAcceleratorNoise.confirm_max_sessions, m.confirm.sessions);
  EXPECT_EQ(pimg::kHostCoresNoise.confirm_max_sessions, m.confirm.sessions);  // no more on the host's cores
  m.confirm.max_sessions = 3;
  m.confirm.max_sessions_given = true;
  EXPECT_EQ(m.for_device(cpu).confirm.max_sessions, 3);
  EXPECT_EQ(m.for_device(gpu).confirm.max_sessions, 3);
}

}  // namespace
