// The probability of the answer (pimg/win_probability.hpp): well-separated candidates give about 1, identical
// ones an equal share, ties add theirs, the seed fixes the number, and no samples give none; the counting
// median agrees with a plain bootstrap that sorts each resample.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "pimg/win_probability.hpp"

namespace pimg {
namespace {

// n samples around `center`, log-normal with a 1% spread, from `seed`.
std::vector<double> noisy(double center, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> d(0, 0.01);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * d(rng));
  return out;
}

TEST(WinProbability, WellSeparatedCandidatesGiveAboutOne) {
  const auto p = bootstrap_win_probability({noisy(1.0, 30, 1), noisy(1.2, 30, 2)}, 0);
  ASSERT_TRUE(p);
  EXPECT_GE(p->fastest, 0.999);
  EXPECT_GE(p->fastest_or_tied, 0.999);
  EXPECT_EQ(p->candidates, 2u);
  EXPECT_EQ(p->samples, 60u);
  EXPECT_EQ(p->resamples, kBootstrapResamples);
  // ... and the slower one, named winner, about never.
  EXPECT_LE(bootstrap_win_probability({noisy(1.0, 30, 1), noisy(1.2, 30, 2)}, 1)->fastest, 0.001);
}

// The same samples twice: each wins half of the resamples, within the bootstrap's own noise (2000 resamples:
// a standard error of about 0.011).
TEST(WinProbability, IdenticalCandidatesShareEvenly) {
  const auto s = noisy(1.0, 25, 3);
  const auto p = bootstrap_win_probability({s, s}, 0);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->fastest, 0.5, 0.05);
  EXPECT_NEAR(p->fastest_or_tied, p->fastest, 1e-12);  // no ties named
  const auto three = bootstrap_win_probability({s, s, s}, 2);
  ASSERT_TRUE(three);
  EXPECT_NEAR(three->fastest, 1.0 / 3, 0.05);
  // Constant samples give equal medians in every resample: each candidate gets exactly its share.
  EXPECT_DOUBLE_EQ(bootstrap_win_probability({{2, 2, 2}, {2, 2, 2}}, 0)->fastest, 0.5);
}

TEST(WinProbability, ThreeCandidatesAndTheTies) {
  const auto a = noisy(1.0, 20, 4);
  const std::vector<std::vector<double>> samples{a, a, noisy(1.5, 20, 5)};
  const auto p = bootstrap_win_probability(samples, 0, {1});
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->fastest, 0.5, 0.05);
  EXPECT_GE(p->fastest_or_tied, 0.999);  // the winner or its tie: the third is 50% slower
  EXPECT_EQ(p->candidates, 3u);
  // A third close to the first two takes its share from both.
  const auto close = bootstrap_win_probability({a, a, a}, 0, {1});
  EXPECT_NEAR(close->fastest_or_tied, 2.0 / 3, 0.05);
}

TEST(WinProbability, TheSeedFixesTheNumber) {
  const std::vector<std::vector<double>> s{noisy(1.0, 15, 6), noisy(1.003, 16, 7)};
  const auto a = bootstrap_win_probability(s, 0), b = bootstrap_win_probability(s, 0);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->fastest, b->fastest);
  EXPECT_EQ(a->fastest_or_tied, b->fastest_or_tied);
  EXPECT_GT(a->fastest, 0.05);  // a close pair: the number is not at an end where seeds agree anyway
  EXPECT_LT(a->fastest, 0.95);
  EXPECT_NE(bootstrap_win_probability(s, 0, {}, kBootstrapResamples, kBootstrapSeed + 1)->fastest, a->fastest);
}

TEST(WinProbability, NoSamplesNoProbability) {
  EXPECT_FALSE(bootstrap_win_probability({}, 0));
  EXPECT_FALSE(bootstrap_win_probability({{1.0, 1.1}, {}}, 0));
  EXPECT_FALSE(bootstrap_win_probability({{1.0}}, 1));        // the winner out of range
  EXPECT_FALSE(bootstrap_win_probability({{1.0}}, 0, {3}));   // a tie out of range
  EXPECT_FALSE(bootstrap_win_probability({{1.0}}, 0, {}, 0));  // no resample
  const auto alone = bootstrap_win_probability({{1.0, 1.2}}, 0);
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->fastest, 1.0);
}

// The statistic is the median, of an odd and of an even number of samples (the mean of the middle two). Odd: a
// resample of 3 ones among 11 samples (else tens) has a median of 1 only when 6 or more of its 11 draws are ones
// (p 0.051; a lower quantile would give 0.61). Even: 6 ones and 6 tens against a constant 5.5 win when 7 or more
// draws of 12 are ones and share when 6 are, exactly 0.5 by symmetry (the lower middle alone would give 0.61).
TEST(WinProbability, TheStatisticIsTheMedian) {
  std::vector<double> odd(11, 10.0), even(12, 10.0);
  std::fill(odd.begin(), odd.begin() + 3, 1.0);
  std::fill(even.begin(), even.begin() + 6, 1.0);
  EXPECT_NEAR(bootstrap_win_probability({odd, std::vector<double>(11, 5.0)}, 0)->fastest, 0.051, 0.025);
  EXPECT_NEAR(bootstrap_win_probability({even, std::vector<double>(12, 5.5)}, 0)->fastest, 0.5, 0.04);
}

// A plain bootstrap (std::mt19937, each resample sorted, the median as Stats::of takes it) agrees with the
// counting one within the noise of the two, for an odd and an even number of samples.
TEST(WinProbability, AgreesWithAPlainBootstrap) {
  const std::vector<std::vector<double>> s{noisy(1.0, 21, 8), noisy(1.004, 24, 9), noisy(1.01, 22, 10)};
  std::mt19937_64 rng(1);
  auto median_of_resample = [&](const std::vector<double>& v) {
    std::uniform_int_distribution<std::size_t> pick(0, v.size() - 1);
    std::vector<double> r;
    for (std::size_t i = 0; i < v.size(); ++i) r.push_back(v[pick(rng)]);
    std::sort(r.begin(), r.end());
    const std::size_t n = r.size();
    return n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
  };
  constexpr int kPlain = 4000;
  double wins = 0;
  for (int b = 0; b < kPlain; ++b) {
    std::vector<double> m;
    for (const auto& v : s) m.push_back(median_of_resample(v));
    wins += m[0] < m[1] && m[0] < m[2] ? 1 : 0;
  }
  const auto p = bootstrap_win_probability(s, 0);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->fastest, wins / kPlain, 0.05) << "plain " << wins / kPlain;
}

}  // namespace
}  // namespace pimg
