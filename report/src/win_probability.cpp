// The bootstrap behind the probability of the answer: each resample redraws every candidate's samples
// with replacement and asks whose median is the smallest. Its own generator (splitmix64) and index
// mapping, so that a seed gives the same resamples with every standard library.
#include "pimg/win_probability.hpp"

#include <algorithm>

namespace pimg {
namespace {

class BootstrapRng {
 public:
  explicit BootstrapRng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) for n < 2^32, up to a bias below n / 2^32, by a multiply and a shift (no division).
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(((next() >> 32) * n) >> 32); }

 private:
  std::uint64_t state_;
};

// The median of one resample of `sorted` (ascending): n indices drawn with replacement are counted, and
// the resample's middle order statistics are read off the counts, so no resample is ever sorted.
double bootstrap_median(const std::vector<double>& sorted, std::vector<std::uint32_t>& counts, BootstrapRng& rng) {
  const std::size_t n = sorted.size();
  std::fill(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(n), 0u);
  for (std::size_t i = 0; i < n; ++i) ++counts[rng.below(n)];
  const std::size_t lo_rank = (n - 1) / 2, hi_rank = n / 2;  // 0-based ranks of the middle one or two
  double lo = sorted.back(), hi = sorted.back();
  std::size_t seen = 0;
  bool have_lo = false;
  for (std::size_t i = 0; i < n; ++i) {
    seen += counts[i];
    if (!have_lo && seen > lo_rank) {
      lo = sorted[i];
      have_lo = true;
    }
    if (seen > hi_rank) {
      hi = sorted[i];
      break;
    }
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::optional<WinProbability> bootstrap_win_probability(const std::vector<std::vector<double>>& samples,
                                                        std::size_t winner, const std::vector<std::size_t>& tied,
                                                        int resamples, std::uint64_t seed) {
  if (samples.empty() || winner >= samples.size() || resamples < 1) return std::nullopt;
  std::vector<bool> answer(samples.size(), false);  // the winner and its ties
  answer[winner] = true;
  for (std::size_t t : tied) {
    if (t >= samples.size()) return std::nullopt;
    answer[t] = true;
  }
  std::vector<std::vector<double>> sorted = samples;
  std::size_t largest = 0, total = 0;
  for (auto& s : sorted) {
    if (s.empty()) return std::nullopt;
    std::sort(s.begin(), s.end());
    largest = std::max(largest, s.size());
    total += s.size();
  }
  BootstrapRng rng(seed);
  std::vector<std::uint32_t> counts(largest);
  std::vector<double> medians(sorted.size());
  double wins = 0, answer_wins = 0;
  for (int b = 0; b < resamples; ++b) {
    for (std::size_t c = 0; c < sorted.size(); ++c) medians[c] = bootstrap_median(sorted[c], counts, rng);
    const double fastest = *std::min_element(medians.begin(), medians.end());
    std::size_t at_min = 0, answer_at_min = 0;
    for (std::size_t c = 0; c < medians.size(); ++c)
      if (medians[c] == fastest) {
        ++at_min;
        answer_at_min += answer[c] ? 1 : 0;
      }
    if (medians[winner] == fastest) wins += 1.0 / static_cast<double>(at_min);
    answer_wins += static_cast<double>(answer_at_min) / static_cast<double>(at_min);
  }
  WinProbability p;
  p.fastest = wins / resamples;
  p.fastest_or_tied = answer_wins / resamples;
  p.candidates = sorted.size();
  p.samples = total;
  p.resamples = resamples;
  return p;
}

}  // namespace pimg
