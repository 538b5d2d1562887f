// The winner of each (problem, device) as decide() (pimg/decision.hpp) decides it, with its baselines; the
// probability of the answer is bootstrapped from the confirmation rows' samples.
#include "pimg/ranking.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "metrics.hpp"

namespace pimg {
namespace {

using namespace report_detail;

// The winner's probability among the rows it was chosen from (the tuned ones, every one where none is
// tuned), with its ties among them.
std::optional<WinProbability> answer_probability(const Ranking& k) {
  const bool tuned = !is_baseline(k.winner->variant);
  std::vector<std::vector<double>> samples;
  std::size_t winner = 0;
  std::vector<std::size_t> ties;
  for (const ResultRow* r : k.ranked) {
    if (tuned && is_baseline(r->variant)) continue;
    if (r == k.winner) winner = samples.size();
    if (std::find(k.ties.begin(), k.ties.end(), r) != k.ties.end()) ties.push_back(samples.size());
    samples.push_back(r->result.kernel_ms);
  }
  return bootstrap_win_probability(samples, winner, ties);
}

}  // namespace

Ranking rank_group(const std::vector<const ResultRow*>& group, const std::vector<const ResultRow*>& problem_baselines) {
  Ranking out;
  if (group.empty()) return out;
  out.problem = group.front()->problem;
  out.device = group.front()->device;
  Decision d = decide(group);
  if (!d.winner) return out;
  out.confirmed = d.confirmed;
  out.ranked = std::move(d.ranked);
  out.winner = d.winner;
  out.ties = std::move(d.ties);
  out.loaded = d.loaded;
  out.method = out.winner->result.method;
  if (out.confirmed) out.probability = answer_probability(out);
  // Each baseline (variant on a device) by its own deciding rows.
  std::map<std::pair<std::string, DeviceKey>, std::vector<const ResultRow*>> by_baseline;
  for (const ResultRow* r : problem_baselines)
    if (is_baseline(r->variant) && r->problem == out.problem) by_baseline[{r->variant.name, device_key(r->device)}].push_back(r);
  for (const auto& [key, rows] : by_baseline) {
    const auto best = decide(rows).ranked;
    if (best.empty() || best.front() == out.winner || !(out.winner->result.kernel.median > 0)) continue;
    BaselineRatio b{best.front(), best.front()->result.kernel.median / out.winner->result.kernel.median, {}};
    const auto base = session_medians(*b.row), won = session_medians(*out.winner);
    if (!base.empty() && !won.empty()) {
      const auto [bmin, bmax] = std::minmax_element(base.begin(), base.end());
      const auto [wmin, wmax] = std::minmax_element(won.begin(), won.end());
      b.session_range = std::make_pair(*bmin / *wmax, *bmax / *wmin);
    }
    out.baselines.push_back(b);
  }
  return out;
}

bool unsteady(const BaselineRatio& b) {
  return b.session_range && b.session_range->first > 0 &&
         b.session_range->second > b.session_range->first * (1 + kTieResolution);
}

std::string ratio_text(const BaselineRatio& b) {
  if (!unsteady(b)) return fmt_speedup(b.ratio);
  std::string low = fmt_speedup(b.session_range->first);
  if (!low.empty() && low.back() == 'x') low.pop_back();
  return fmt::format("{} ({}-{} by session)", fmt_speedup(b.ratio), low, fmt_speedup(b.session_range->second));
}

std::vector<Ranking> rank_all(const std::vector<ResultRow>& rows) {
  std::map<std::pair<Problem, DeviceKey>, std::vector<const ResultRow*>, ProblemDeviceLess> groups;
  std::map<Problem, std::vector<const ResultRow*>, ProblemLess> baselines;
  for (const ResultRow* r : sorted_rows(rows)) {
    groups[{r->problem, device_key(r->device)}].push_back(r);
    if (is_baseline(r->variant)) baselines[r->problem].push_back(r);
  }
  std::vector<Ranking> out;
  for (const auto& [key, group] : groups) {
    Ranking r = rank_group(group, baselines[key.first]);
    if (r.winner) out.push_back(std::move(r));
  }
  return out;
}

std::string probability_text(const Ranking& k) {
  if (!k.confirmed) return "P(fastest) n/a (no confirmation stage: the search ranks)";
  if (!k.probability) return "P(fastest) n/a (the confirmation rows' samples were not read or not stored)";
  const WinProbability& p = *k.probability;
  return fmt::format("P(fastest) {:.2f}, with ties {:.2f} (bootstrap of {} samples of {} confirmed configuration{})",
                     p.fastest, p.fastest_or_tied, p.samples, p.candidates, p.candidates == 1 ? "" : "s");
}

std::string probability_cell(const Ranking& k) {
  if (!k.probability) return kDash;
  return fmt::format("{:.2f} [{:.2f}]", k.probability->fastest, k.probability->fastest_or_tied);
}

std::string probability_json(const Ranking& k) {
  if (!k.probability) return "\"p_fastest\":null,\"p_fastest_or_tied\":null,\"p_bootstrap\":null";
  const WinProbability& p = *k.probability;
  return fmt::format("\"p_fastest\":{:.4f},\"p_fastest_or_tied\":{:.4f},\"p_bootstrap\":{{\"candidates\":{},"
                     "\"samples\":{},\"resamples\":{}}}",
                     p.fastest, p.fastest_or_tied, p.candidates, p.samples, p.resamples);
}

std::string time_with_interval(const ResultRow& r) {
  if (!has_interval(r)) return fmt_ms(r.result.kernel.median) + " ms";
  return fmt::format("{} ms [{}, {}]", fmt_ms(r.result.kernel.median), fmt_ms(r.result.ci_low_ms),
                     fmt_ms(r.result.ci_high_ms));
}

}  // namespace pimg
