// Comparing two sets of stored rows: matching, the Mann-Whitney U test over raw samples, and the
// markdown and JSON outputs of `pimg-tune compare`.
#include "pimg/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "metrics.hpp"
#include "table.hpp"

namespace pimg {
namespace {

using namespace report_detail;

constexpr std::size_t kExactMax = 50;

// P(U <= u) for samples of sizes m and n without ties: counts of rank arrangements by U (a DP over
// the number of values taken from each sample).
double exact_cdf(std::size_t m, std::size_t n, double u) {
  // f[i][j][k]: arrangements of i x-values and j y-values with U = k (pairs x > y).
  const std::size_t umax = m * n;
  std::vector<std::vector<double>> prev(n + 1, std::vector<double>(umax + 1, 0)), cur = prev;
  for (std::size_t j = 0; j <= n; ++j) prev[j][0] = 1;  // i = 0
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      std::fill(cur[j].begin(), cur[j].end(), 0.0);
      for (std::size_t k = 0; k <= umax; ++k) {
        // The largest value is an x (adds j pairs) or a y.
        double v = k >= j ? prev[j][k - j] : 0;
        if (j > 0) v += cur[j - 1][k];
        cur[j][k] = v;
      }
    }
    std::swap(prev, cur);
  }
  double total = 0, below = 0;
  for (std::size_t k = 0; k <= umax; ++k) {
    total += prev[n][k];
    if (static_cast<double>(k) <= u + 1e-9) below += prev[n][k];
  }
  return below / total;
}

std::string key_config(const ResultRow& r) { return brief_or_dash(r.config); }

}  // namespace

double mann_whitney_p(const std::vector<double>& x, const std::vector<double>& y) {
  const std::size_t m = x.size(), n = y.size();
  if (m == 0 || n == 0) return 1;
  std::vector<std::pair<double, int>> all;
  for (double v : x) all.emplace_back(v, 0);
  for (double v : y) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end());
  double rank_x = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_x += avg;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double dm = static_cast<double>(m), dn = static_cast<double>(n);
  const double u = rank_x - dm * (dm + 1) / 2;
  const double u_min = std::min(u, dm * dn - u);
  if (!ties && m <= kExactMax && n <= kExactMax) return std::min(1.0, 2 * exact_cdf(m, n, u_min));
  const double N = dm + dn;
  const double var = dm * dn / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (!(var > 0)) return 1;
  const double z = (std::abs(u - dm * dn / 2) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(std::max(0.0, z) / std::sqrt(2.0)));
}

Comparison compare_rows(const std::vector<ResultRow>& a, const std::vector<ResultRow>& b, std::string label_a,
                        std::string label_b, bool match_device, double alpha) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  auto key = [&](const ResultRow& r) {
    return Key{r.problem.family, r.problem.canonical(), match_device ? device_label(r.device) + " " + r.device.driver : "",
               r.variant.name, r.variant.backend, r.config.canonical()};
  };
  std::map<Key, const ResultRow*> left, right;
  for (const ResultRow* r : sorted_rows(a)) left[key(*r)] = r;
  for (const ResultRow* r : sorted_rows(b)) right[key(*r)] = r;
  Comparison c;
  c.label_a = std::move(label_a);
  c.label_b = std::move(label_b);
  c.alpha = alpha;
  double log_sum = 0;
  for (const auto& [k, ra] : left) {
    auto it = right.find(k);
    if (it == right.end()) {
      ++c.only_a;
      continue;
    }
    const ResultRow* rb = it->second;
    if (ra->result.status != Status::ok || rb->result.status != Status::ok || !(ra->result.kernel.median > 0) ||
        !(rb->result.kernel.median > 0)) {
      ++c.failed;
      continue;
    }
    ComparedPair p;
    p.family = ra->problem.family;
    p.problem = ra->problem.label();
    p.device = match_device ? device_label(ra->device) : device_label(ra->device) + " / " + device_label(rb->device);
    p.variant = ra->variant.name;
    p.config = key_config(*ra);
    p.a = *ra;
    p.b = *rb;
    p.ratio = rb->result.kernel.median / ra->result.kernel.median;
    p.p_value = mann_whitney_p(ra->result.kernel_ms, rb->result.kernel_ms);
    p.significant = p.p_value < alpha;
    if (p.significant) (p.ratio < 1 ? c.faster : c.slower) += p.ratio != 1;
    log_sum += std::log(p.ratio);
    c.pairs.push_back(std::move(p));
  }
  for (const auto& [k, rb] : right) c.only_b += !left.count(k);
  if (!c.pairs.empty()) c.geomean_ratio = std::exp(log_sum / static_cast<double>(c.pairs.size()));
  return c;
}

std::string compare_markdown(const Comparison& c) {
  std::string out = fmt::format("# Comparison: {} (A) against {} (B)\n\n", md_escape(c.label_a), md_escape(c.label_b));
  if (c.pairs.empty()) {
    out += fmt::format("No configuration is ok on both sides ({} only in A, {} only in B, {} failed on a side).\n",
                       c.only_a, c.only_b, c.failed);
    return out;
  }
  out += fmt::format(
      "{} configurations ok on both sides: geometric mean of B/A {:.3f} ({}{:.1f}%); {} significantly faster in B, {} "
      "significantly slower (Mann-Whitney U over the raw samples, p < {:g}); {} only in A, {} only in B, {} failed "
      "on a side.\n\n",
      c.pairs.size(), c.geomean_ratio, c.geomean_ratio < 1 ? "" : "+", (c.geomean_ratio - 1) * 100, c.faster, c.slower,
      c.alpha, c.only_a, c.only_b, c.failed);
  Table t({{"problem"}, {"device"}, {"variant"}, {"configuration"}, {"A median ms", Table::Align::right},
           {"B median ms", Table::Align::right}, {"B/A", Table::Align::right}, {"p", Table::Align::right}, {"significant"}});
  for (const auto& p : c.pairs)
    t.add({p.problem, p.device, p.variant, p.config, fmt_ms(p.a.result.kernel.median), fmt_ms(p.b.result.kernel.median),
           fmt::format("{:.3f}", p.ratio), fmt::format("{:.3g}", p.p_value),
           p.significant ? (p.ratio < 1 ? "faster" : "slower") : "no"});
  return out + t.markdown();
}

std::string compare_json(const Comparison& c) {
  std::string out = fmt::format(
      "{{\"a\":{},\"b\":{},\"alpha\":{},\"pairs_compared\":{},\"geomean_ratio\":{:.6g},\"faster\":{},\"slower\":{},"
      "\"only_a\":{},\"only_b\":{},\"failed\":{},\"pairs\":[",
      json_string(c.label_a), json_string(c.label_b), c.alpha, c.pairs.size(), c.geomean_ratio, c.faster, c.slower,
      c.only_a, c.only_b, c.failed);
  for (std::size_t i = 0; i < c.pairs.size(); ++i) {
    const auto& p = c.pairs[i];
    out += fmt::format(
        "{}\n  {{\"family\":{},\"problem\":{},\"device\":{},\"variant\":{},\"config\":{},\"a_median_ms\":{:.6g},"
        "\"b_median_ms\":{:.6g},\"a_samples\":{},\"b_samples\":{},\"ratio\":{:.6g},\"p_value\":{:.6g},\"significant\":{}}}",
        i ? "," : "", json_string(p.family), json_string(p.problem), json_string(p.device), json_string(p.variant),
        json_string(p.config), p.a.result.kernel.median, p.b.result.kernel.median, p.a.result.kernel_ms.size(),
        p.b.result.kernel_ms.size(), p.ratio, p.p_value, p.significant ? "true" : "false");
  }
  return out + (c.pairs.empty() ? "]}\n" : "\n]}\n");
}

}  // namespace pimg
