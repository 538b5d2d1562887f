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

}  // namespace
