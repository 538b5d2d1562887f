// The confirmation stage's rounds on one device (executor.hpp): every candidate prepared several times over, run in
// shuffled interleaved rounds until their medians' intervals settle, and its preparations' or sessions' samples
// pooled (pool_parts, pool_sessions); and the median's interval the stages judge by (median_interval, finish_stats).
#include "pimg/executor.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <stdexcept>

#include "pimg/evaluator.hpp"
#include "measure/stopwatch.hpp"

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace


std::pair<double, double> median_interval(std::vector<double> v) {
  if (v.empty()) return {0, 0};
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  // The largest rank j with P(Binomial(n, 1/2) < j) <= 2.5%: X(j) and X(n+1-j) bound the median with at
  // least 95% confidence. Exact sums up to 1000 runs, the normal approximation beyond.
  std::size_t j = 0;
  if (n <= 1000) {
    const double log_total = std::lgamma(static_cast<double>(n) + 1) - static_cast<double>(n) * std::log(2.0);
    double below = 0;
    while (j < n) {
      const double term = std::exp(log_total - std::lgamma(static_cast<double>(j) + 1) -
                                   std::lgamma(static_cast<double>(n - j) + 1));
      if (below + term > 0.025) break;
      below += term;
      ++j;
    }
  } else {
    j = static_cast<std::size_t>(std::floor(n / 2.0 - 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0));
  }
  if (j == 0) return {v.front(), v.back()};  // too few runs for 95%: the whole range
  return {v[j - 1], v[n - j]};
}

void finish_stats(EvalResult& r) {
  r.kernel = Stats::of(r.kernel_ms);
  std::tie(r.ci_low_ms, r.ci_high_ms) = median_interval(r.kernel_ms);
}

std::vector<EvalResult> confirm_candidates(const Family& family, const Problem& problem, const Workload& workload,
                                           Device& device, const MeasureSpec& measure,
                                           const std::vector<ConfirmCandidate>& candidates, std::uint64_t seed,
                                           const std::vector<Observer*>& observers) {
  const auto t0 = Clock::now();
  std::vector<Observer*> machine;
  for (Observer* o : observers)
    if (o->observes_the_machine()) machine.push_back(o);
  const ConfirmSpec& spec = measure.confirm;
  // Every candidate prepared `preps` times over, all alive at once (so each preparation has buffers of its
  // own); plans[c * preps + k] is candidate c's k-th. A candidate whose preparation fails keeps that failure.
  const std::size_t preps = static_cast<std::size_t>(std::max(1, spec.preparations));
  std::vector<std::unique_ptr<PreparedPlan>> plans;
  for (const ConfirmCandidate& c : candidates)
    for (std::size_t k = 0; k < preps; ++k)
      plans.push_back(std::make_unique<PreparedPlan>(family, problem, workload, *c.expected, device, measure,
                                                     *c.variant, c.config));
  auto candidate_failed = [&](std::size_t c) {
    for (std::size_t k = 0; k < preps; ++k)
      if (plans[c * preps + k]->failed()) return true;
    return false;
  };
  device.set_run_timeout(measure.timeout_s);
  for (Observer* o : machine) o->begin();
  std::vector<std::int64_t> seq(plans.size(), 0);
  const int warmups = std::clamp(measure.warmups, 1, kMaxWarmups);
  for (std::size_t i = 0; i < plans.size(); ++i)
    for (int w = 0; w < warmups && !plans[i]->failed(); ++w) plans[i]->run(seq[i]++);
  std::vector<std::size_t> order(plans.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < std::max(spec.max_rounds, spec.rounds); ++round) {
    if (round >= spec.rounds) {
      bool settled = true;
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        if (candidate_failed(c)) continue;
        std::vector<double> k;  // every preparation's samples
        for (std::size_t j = 0; j < preps; ++j) {
          const auto& own = plans[c * preps + j]->result().kernel_ms;
          k.insert(k.end(), own.begin(), own.end());
        }
        const auto [lo, hi] = median_interval(k);
        const double median = Stats::of(k).median;
        settled = settled && median > 0 && (hi - lo) <= 2.0 * measure.noise * median;
      }
      if (settled || ms_since(t0) >= spec.max_time_s * 1000.0) break;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      PreparedPlan& p = *plans[i];
      if (p.failed()) continue;
      const std::optional<RunTimes> t = p.run(seq[i]++);
      if (!t) continue;
      EvalResult& r = p.mutable_result();
      t->add_parts(r.metrics, static_cast<int>(r.kernel_ms.size()));
      r.kernel_ms.push_back(t->kernel_ms);
      r.wall_ms.push_back(t->wall_ms);
    }
  }
  std::vector<Metric> seen;  // what the machine's observers saw over the stage, for every candidate
  std::vector<std::string> flags;
  for (Observer* o : machine) o->end(seen, flags);
  std::vector<EvalResult> out;
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    // A failed preparation's result, else every preparation's samples pooled (pool_parts).
    std::vector<EvalResult> parts;
    for (std::size_t k = 0; k < preps; ++k) {
      EvalResult part = plans[c * preps + k]->result();
      if (!plans[c * preps + k]->failed())
        part.status = part.kernel_ms.empty() ? Status::harness_error : Status::ok;
      parts.push_back(std::move(part));
    }
    EvalResult r = pool_parts(parts, "preparation");
    if (r.status == Status::harness_error && r.log.empty()) r.log = "no timed run executed";
    r.stage = "confirm";
    finish_stats(r);
    r.eval_ms = ms_since(t0);
    r.metrics.insert(r.metrics.end(), seen.begin(), seen.end());
    for (const std::string& f : flags)
      if (std::find(r.flags.begin(), r.flags.end(), f) == r.flags.end()) r.flags.push_back(f);
    out.push_back(std::move(r));
  }
  return out;
}

EvalResult pool_parts(const std::vector<EvalResult>& parts, const std::string& part) {
  if (parts.empty()) throw std::invalid_argument("pool_parts: no " + part);
  for (const EvalResult& r : parts)
    if (r.status != Status::ok) return r;
  EvalResult out = parts.front();
  out.kernel_ms.clear();
  out.wall_ms.clear();
  out.eval_ms = 0;
  double lo = 0, hi = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const EvalResult& r = parts[k];
    if (k > 0)  // the per-run metrics of the later parts, numbered on after the runs before them
      for (const Metric& x : r.metrics)
        if (x.seq >= 0 && x.name.rfind("confirm.", 0) != 0)
          out.metrics.push_back({x.name, x.unit, x.seq + static_cast<int>(out.kernel_ms.size()), x.value});
    out.kernel_ms.insert(out.kernel_ms.end(), r.kernel_ms.begin(), r.kernel_ms.end());
    out.wall_ms.insert(out.wall_ms.end(), r.wall_ms.begin(), r.wall_ms.end());
    out.eval_ms += r.eval_ms;
    for (const std::string& f : r.flags)  // a flag of any part qualifies the pooled row ("loaded", "remeasured")
      if (std::find(out.flags.begin(), out.flags.end(), f) == out.flags.end()) out.flags.push_back(f);
    const double median = Stats::of(r.kernel_ms).median;
    out.metrics.push_back({"confirm." + part + "_median_ms", "ms", static_cast<int>(k), median});
    lo = k == 0 ? median : std::min(lo, median);
    hi = std::max(hi, median);
  }
  out.metrics.push_back({"confirm." + part + "s", "count", -1, static_cast<double>(parts.size())});
  if (lo > 0) out.metrics.push_back({"confirm." + part + "_spread", "ratio", -1, hi / lo - 1});
  finish_stats(out);
  return out;
}

EvalResult pool_sessions(const std::vector<EvalResult>& sessions) { return pool_parts(sessions, "session"); }

}  // namespace pimg
