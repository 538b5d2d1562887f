// decide(): confirmation-stage rows of the latest run that confirmed decide when present, else the search
// rows; the winner is the fastest tuned row; ties are rows whose median intervals overlap the winner's, or whose
// medians are within the tool's resolution of it, or within how far either moved between the confirmation's
// sessions.
#include "pimg/decision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace pimg {
namespace {

bool is_confirm(const ResultRow& r) { return r.result.stage == "confirm"; }

auto variant_tuple(const VariantKey& v) { return std::tie(v.name, v.backend, v.source_hash, v.family); }
auto device_tuple(const DeviceInfo& d) { return std::tie(d.backend, d.name, d.driver); }

}  // namespace

bool has_interval(const ResultRow& r) {
  return r.result.ci_high_ms > 0 && r.result.ci_low_ms > 0 && r.result.ci_low_ms <= r.result.ci_high_ms;
}

double session_spread(const ResultRow& r) {
  for (const Metric& m : r.result.metrics)
    if (m.name == "confirm.session_spread" && std::isfinite(m.value) && m.value > 0) return m.value;
  return 0;
}

std::vector<double> session_medians(const ResultRow& r) {
  std::vector<std::pair<int, double>> seq;
  for (const Metric& m : r.result.metrics)
    if (m.name == "confirm.session_median_ms" && m.seq >= 0 && std::isfinite(m.value) && m.value > 0)
      seq.emplace_back(m.seq, m.value);
  if (seq.size() < 2) return {};
  std::sort(seq.begin(), seq.end());
  std::vector<double> out;
  for (const auto& [s, v] : seq) out.push_back(v);
  return out;
}

bool tied(const ResultRow& a, const ResultRow& b) {
  if (!has_interval(a) || !has_interval(b)) return false;
  if (a.result.ci_low_ms <= b.result.ci_high_ms && b.result.ci_low_ms <= a.result.ci_high_ms) return true;
  const double fast = std::min(a.result.kernel.median, b.result.kernel.median);
  const double slow = std::max(a.result.kernel.median, b.result.kernel.median);
  const double resolution = std::max({kTieResolution, session_spread(a), session_spread(b)});
  return fast > 0 && slow <= fast * (1 + resolution);
}

bool problem_less(const Problem& a, const Problem& b) {
  const auto pixels = [](const Problem& p) { return static_cast<std::int64_t>(p.width) * p.height; };
  return std::forward_as_tuple(a.family, a.channels, a.attrs, pixels(a), a.width, a.height) <
         std::forward_as_tuple(b.family, b.channels, b.attrs, pixels(b), b.width, b.height);
}

bool row_less(const ResultRow& a, const ResultRow& b) {
  if (problem_less(a.problem, b.problem)) return true;
  if (problem_less(b.problem, a.problem)) return false;
  if (device_tuple(a.device) != device_tuple(b.device)) return device_tuple(a.device) < device_tuple(b.device);
  if (variant_tuple(a.variant) != variant_tuple(b.variant)) return variant_tuple(a.variant) < variant_tuple(b.variant);
  const std::string ca = a.config.canonical(), cb = b.config.canonical();
  if (ca != cb) return ca < cb;
  return a.id < b.id;
}

bool rank_less(const ResultRow& a, const ResultRow& b) {
  const auto key = [](const ResultRow& r) {
    const double m = r.result.kernel.median;
    return std::isfinite(m) ? m : std::numeric_limits<double>::infinity();
  };
  if (key(a) != key(b)) return key(a) < key(b);
  return row_less(a, b);
}

Decision decide(const std::vector<const ResultRow*>& group) {
  Decision d;
  std::int64_t confirm_run = -1;
  for (const ResultRow* r : group)
    if (r->result.status == Status::ok && is_confirm(*r)) confirm_run = std::max(confirm_run, r->run_id);
  for (const ResultRow* r : group)
    if (r->result.status == Status::ok && (confirm_run < 0 ? !is_confirm(*r) : is_confirm(*r) && r->run_id == confirm_run))
      d.ranked.push_back(r);
  std::stable_sort(d.ranked.begin(), d.ranked.end(), [](const ResultRow* a, const ResultRow* b) { return rank_less(*a, *b); });
  if (d.ranked.empty()) return d;
  d.confirmed = confirm_run >= 0;
  const auto tuned = std::find_if(d.ranked.begin(), d.ranked.end(), [](const ResultRow* r) { return !r->variant.baseline; });
  d.winner = tuned != d.ranked.end() ? *tuned : d.ranked.front();
  for (const ResultRow* r : d.ranked)
    if (r != d.winner && tied(*d.winner, *r)) d.ties.push_back(r);
  const auto loaded = [](const ResultRow* r) {
    return std::find(r->result.flags.begin(), r->result.flags.end(), "loaded") != r->result.flags.end();
  };
  d.loaded = loaded(d.winner) || std::any_of(d.ties.begin(), d.ties.end(), loaded);
  for (const ResultRow* r : d.ranked)  // the closest row the winner beat
    if (r != d.winner && std::find(d.ties.begin(), d.ties.end(), r) == d.ties.end() &&
        rank_less(*d.winner, *r) && r->variant.baseline == d.winner->variant.baseline) {
      d.loaded = d.loaded || loaded(r);
      break;
    }
  return d;
}

}  // namespace pimg
