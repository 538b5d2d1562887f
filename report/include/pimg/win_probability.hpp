// The probability of the answer: how often the winner's median is the smallest of the confirmed candidates'
// over bootstrap resamples of their pooled samples (docs/measurement.md, "The probability of the answer").
// A pure function of the samples: a fixed seed gives the same number on every machine.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace pimg {

inline constexpr int kBootstrapResamples = 2000;
inline constexpr std::uint64_t kBootstrapSeed = 20261129;

struct WinProbability {
  double fastest = 0;          // share of resamples in which the winner's median is the smallest
  double fastest_or_tied = 0;  // share in which the winner's or a tied candidate's median is the smallest
  std::size_t candidates = 0;  // the candidates compared, the winner among them
  std::size_t samples = 0;     // their samples, all together
  int resamples = 0;
};

// `samples[i]`: candidate i's timed runs (any order); `winner` and `tied` index them. Each resample draws
// every candidate's samples with replacement, as many as it has, and takes their median (the middle one,
// or the mean of the middle two); where several candidates share the smallest median, each gets its share
// of that resample. nullopt where there is no candidate, `winner` or a `tied` index is out of range, any
// candidate has no sample, or `resamples` < 1.
std::optional<WinProbability> bootstrap_win_probability(const std::vector<std::vector<double>>& samples,
                                                        std::size_t winner, const std::vector<std::size_t>& tied = {},
                                                        int resamples = kBootstrapResamples,
                                                        std::uint64_t seed = kBootstrapSeed);

}  // namespace pimg
