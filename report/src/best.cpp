// `pimg-tune best`: the ok rows of each (problem, device) ranked by median time, as a terminal
// table and as JSON. Failed rows are never ranked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "metrics.hpp"
#include "observations.hpp"
#include "pimg/ranking.hpp"
#include "pimg/report.hpp"
#include "table.hpp"

namespace pimg {
namespace {

using namespace report_detail;

std::string json_number(const std::optional<double>& v, int decimals) {
  if (!v || !std::isfinite(*v)) return "null";
  return fmt::format("{:.{}f}", *v, decimals);
}

std::string json_ms(double ms) { return std::isfinite(ms) ? fmt::format("{:.6g}", ms) : "null"; }

std::size_t limit(int top, std::size_t n) { return top > 0 ? std::min<std::size_t>(n, top) : n; }

// The decision of one (problem, device) in words: winner, interval, method, ties, baseline ratios.
std::string decision_text(const Ranking& k) {
  const ResultRow& w = *k.winner;
  const std::string config = w.config.values().empty() ? "" : w.config.brief() + " ";
  std::string out = fmt::format("winner: {} {}{}{}{}{}", variant_label(w.variant), config, time_with_interval(w),
                                k.confirmed ? " (confirmed)" : "", k.loaded ? " [ran loaded]" : "",
                                w.older_build ? " [older build]" : "");
  if (!k.method.empty()) out += fmt::format(", method {}", k.method);
  out += "\n";
  if (!k.ties.empty()) {
    std::string ties;
    for (const ResultRow* t : k.ties)
      ties += fmt::format("{}{} {} {}", ties.empty() ? "" : "; ", variant_label(t->variant), brief_or_dash(t->config),
                          time_with_interval(*t));
    out += fmt::format("tied (interval overlaps the winner's, within {:g}%, or within how far one of them moved between "
                       "the confirmation's sessions): {}\n",
                       kTieResolution * 100, ties);
  }
  out += probability_text(k) + "\n";
  if (k.loaded) out += std::string(kLoadedNote) + "\n";
  if (!k.baselines.empty()) {
    std::string ratios;
    for (const auto& b : k.baselines)
      ratios += fmt::format("{}{} over {} on {}", ratios.empty() ? "" : ", ", ratio_text(b), b.row->variant.name,
                            device_label(b.row->device));
    out += "vs baselines: " + ratios + "\n";
  }
  return out;
}

std::string json_ranking(const Ranking& k) {
  const ResultRow& w = *k.winner;
  auto interval = [](const ResultRow& r) {
    return r.result.ci_high_ms > 0 ? fmt::format("[{},{}]", json_ms(r.result.ci_low_ms), json_ms(r.result.ci_high_ms))
                                   : std::string("null");
  };
  std::string ties, baselines;
  for (const ResultRow* t : k.ties)
    ties += fmt::format("{}{{\"variant\":{},\"config\":{},\"median_ms\":{},\"ci_ms\":{}}}", ties.empty() ? "" : ",",
                        json_string(t->variant.name), json_config(t->config), json_ms(t->result.kernel.median),
                        interval(*t));
  for (const auto& b : k.baselines)
    baselines += fmt::format(
        "{}{{\"variant\":{},\"backend\":{},\"device\":{},\"median_ms\":{},\"ci_ms\":{},\"ratio\":{},"
        "\"ratio_by_session\":{},\"unsteady\":{}}}",
        baselines.empty() ? "" : ",", json_string(b.row->variant.name), json_string(b.row->device.backend),
        json_string(b.row->device.name), json_ms(b.row->result.kernel.median), interval(*b.row), json_number(b.ratio, 4),
        b.session_range ? fmt::format("[{},{}]", json_number(b.session_range->first, 4),
                                      json_number(b.session_range->second, 4))
                        : std::string("null"),
        unsteady(b) ? "true" : "false");
  return fmt::format(
      "\"winner\":{{\"variant\":{},\"baseline\":{},\"config\":{},\"median_ms\":{},\"ci_ms\":{},\"method\":{},"
      "\"stage\":{}}},"
      "\"ties\":[{}],\"baselines\":[{}],\"loaded\":{},{},",
      json_string(w.variant.name), w.variant.baseline ? "true" : "false", json_config(w.config), json_ms(w.result.kernel.median), interval(w),
      json_string(k.method), json_string(w.result.stage), ties, baselines, k.loaded ? "true" : "false",
      probability_json(k));
}

// The row's whole-evaluation metrics as `,"metrics":{name:value,...}`; nothing for rows without any.
std::string json_metrics(const ResultRow& r) {
  std::string out;
  for (const Metric& m : r.result.metrics)
    if (m.seq == -1) out += fmt::format("{}{}:{}", out.empty() ? "" : ",", json_string(m.name), json_ms(m.value));
  return out.empty() ? "" : ",\"metrics\":{" + out + "}";
}

// `"cold":[...],`: the whole-program runs of the ranking's problem and device; nothing where there are none.
std::string json_cold(const Ranking& k, const std::vector<ResultRow>& cold) {
  std::string out;
  for (const ResultRow& r : cold)
    if (r.problem == k.problem && device_key(r.device) == device_key(k.device))
      out += fmt::format("{}{{\"variant\":{},\"config\":{},\"status\":{}{}}}", out.empty() ? "" : ",",
                         json_string(r.variant.name), json_config(r.config), json_string(to_string(r.result.status)),
                         json_metrics(r));
  return out.empty() ? "" : "\"cold\":[" + out + "],";
}

}  // namespace

std::string best_table(const std::vector<ResultRow>& all, const std::vector<BandwidthRow>& bw, int top) {
  const BandwidthTable bandwidth(bw);
  const auto rows = search_rows(all);
  const auto groups = ranked_groups(rows);
  const auto rankings = rank_all(all);
  if (rankings.empty()) return "No ok results stored.\n";
  std::vector<const ResultRow*> pointers;
  for (const auto& r : rows) pointers.push_back(&r);
  std::string out;
  std::string family;
  for (const auto& k : rankings) {
    if (k.problem.family != family) {
      family = k.problem.family;
      out += fmt::format("{}== {} ==\n", out.empty() ? "" : "\n", family);
    }
    out += fmt::format("\n{} on {} (driver {})\n", k.problem.label(), device_label(k.device),
                       k.device.driver.empty() ? kDash : k.device.driver);
    out += decision_text(k);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const RankedGroup& x) {
      return x.problem == k.problem && device_key(x.device) == device_key(k.device);
    });
    if (g == groups.end()) continue;
    Table t({{"rank", Table::Align::right},
             {"variant"},
             {"configuration"},
             {"median ms", Table::Align::right},
             {unit_of(*g->rows.front()), Table::Align::right},
             {"GB/s", Table::Align::right},
             {"% bw", Table::Align::right}});
    for (std::size_t i = 0; i < limit(top, g->rows.size()); ++i) {
      const ResultRow& r = *g->rows[i];
      const Metrics m = metrics_of(r, bandwidth);
      t.add({std::to_string(i + 1), variant_label(r.variant) + (r.older_build ? " [older build]" : ""),
             brief_or_dash(r.config), fmt_ms(m.median_ms),
             fmt_rate(m.rate), fmt_gbs(m.gbs), fmt_pct(m.bandwidth_pct)});
    }
    out += t.text("  ");
  }
  return out;
}

std::string best_json(const std::vector<ResultRow>& all, const std::vector<BandwidthRow>& bw, int top,
                      const std::vector<ResultRow>& cold) {
  const BandwidthTable bandwidth(bw);
  const auto rows = search_rows(all);
  const auto groups = ranked_groups(rows);
  const auto rankings = rank_all(all);
  std::string out = "[";
  for (std::size_t gi = 0; gi < rankings.size(); ++gi) {
    const Ranking& k = rankings[gi];
    const Problem& p = k.problem;
    std::string attrs;
    for (const auto& [key, v] : p.attrs)
      attrs += fmt::format("{}{}:{}", attrs.empty() ? "" : ",", json_string(key), json_string(v));
    out += fmt::format(
        "{}\n  {{\"family\":{},\"backend\":{},\"device\":{},\"driver\":{},\"size\":{},\"width\":{},\"height\":{},"
        "\"channels\":{},\"problem\":{{{}}},{}\"results\":[",
        gi ? "," : "", json_string(p.family), json_string(k.device.backend), json_string(k.device.name),
        json_string(k.device.driver), json_string(p.size()), p.width, p.height, p.channels, attrs,
        json_ranking(k) + json_cold(k, cold));
    auto g = std::find_if(groups.begin(), groups.end(), [&](const RankedGroup& x) {
      return x.problem == k.problem && device_key(x.device) == device_key(k.device);
    });
    const std::size_t n = g == groups.end() ? 0 : limit(top, g->rows.size());
    for (std::size_t i = 0; i < n; ++i) {
      const ResultRow& r = *g->rows[i];
      const Metrics m = metrics_of(r, bandwidth);
      out += fmt::format(
          "{}\n    {{\"rank\":{},\"variant\":{},\"config\":{},\"median_ms\":{},\"min_ms\":{},\"mpix_s\":{},"
          "\"gb_s\":{},\"bandwidth_pct\":{},\"ceiling\":{},\"source_hash\":{},\"older_build\":{}{}}}",
          i ? "," : "", i + 1, json_string(r.variant.name), json_config(r.config), json_ms(m.median_ms),
          json_ms(m.min_ms), json_number(m.rate, 3), json_number(m.gbs, 3), json_number(m.bandwidth_pct, 2),
          m.ceiling ? json_string(m.ceiling) : std::string("null"),
          json_string(r.variant.source_hash), r.older_build ? "true" : "false", json_metrics(r));
    }
    out += "]}";
  }
  return out + (rankings.empty() ? "]\n" : "\n]\n");
}

std::string best_objective_table(const std::vector<ResultRow>& all, const std::string& objective, int top) {
  const Objective o = objective_from_string(objective);
  const auto rows = search_rows(all);
  std::string out;
  for (const RankedGroup& g : ranked_groups(rows)) {
    std::vector<std::pair<double, const ResultRow*>> ranked;
    for (const ResultRow* r : g.rows)
      if (auto v = objective_value(*r, o)) ranked.emplace_back(*v, r);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out += fmt::format("{}{} on {}, by {}\n", out.empty() ? "" : "\n", g.problem.label(), device_label(g.device),
                       objective_unit(o));
    if (ranked.empty()) {
      out += fmt::format("  no row has what the objective needs ({})\n",
                         o == Objective::energy ? "energy.avg_w: RAPL or NVML" : "transfer.h2d_ms and transfer.d2h_ms");
      continue;
    }
    Table t({{"rank", Table::Align::right},
             {"variant"},
             {"configuration"},
             {objective_unit(o), Table::Align::right},
             {"median ms", Table::Align::right}});
    for (std::size_t i = 0; i < limit(top, ranked.size()); ++i) {
      const auto& [v, r] = ranked[i];
      t.add({std::to_string(i + 1), variant_label(r->variant), brief_or_dash(r->config),
             o == Objective::energy ? fmt::format("{:.4g}", v) : fmt_ms(v), fmt_ms(r->result.kernel.median)});
    }
    out += t.text("  ");
  }
  return out.empty() ? "No ok results stored.\n" : out;
}

std::string best_objective_json(const std::vector<ResultRow>& all, const std::string& objective, int top) {
  const Objective o = objective_from_string(objective);
  const auto rows = search_rows(all);
  std::string out = "[";
  bool first = true;
  for (const RankedGroup& g : ranked_groups(rows)) {
    std::vector<std::pair<double, const ResultRow*>> ranked;
    for (const ResultRow* r : g.rows)
      if (auto v = objective_value(*r, o)) ranked.emplace_back(*v, r);
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string results;
    for (std::size_t i = 0; i < limit(top, ranked.size()); ++i) {
      const auto& [v, r] = ranked[i];
      results += fmt::format("{}\n    {{\"rank\":{},\"variant\":{},\"config\":{},\"value\":{},\"median_ms\":{}{}}}",
                             i ? "," : "", i + 1, json_string(r->variant.name), json_config(r->config), json_ms(v),
                             json_ms(r->result.kernel.median), json_metrics(*r));
    }
    out += fmt::format("{}\n  {{\"family\":{},\"backend\":{},\"device\":{},\"size\":{},\"problem\":{},"
                       "\"objective\":{},\"unit\":{},\"results\":[{}]}}",
                       first ? "" : ",", json_string(g.problem.family), json_string(g.device.backend),
                       json_string(g.device.name), json_string(g.problem.size()), json_string(g.problem.label()),
                       json_string(objective), json_string(objective_unit(o)), results);
    first = false;
  }
  return out + (first ? "]\n" : "\n]\n");
}

}  // namespace pimg
