// `pimg-tune best`: the ok rows of each (problem, device) ranked by median time, as a terminal
// table and as JSON. Failed rows are never ranked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "metrics.hpp"
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

}  // namespace

std::string best_table(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top) {
  const BandwidthTable bandwidth(bw);
  const auto groups = ranked_groups(rows);
  if (groups.empty()) return "No ok results stored.\n";
  std::string out;
  std::string family;
  for (const auto& g : groups) {
    if (g.problem.family != family) {
      family = g.problem.family;
      out += fmt::format("{}== {} ==\n", out.empty() ? "" : "\n", family);
    }
    out += fmt::format("\n{} on {} (driver {})\n", g.problem.label(), device_label(g.device),
                       g.device.driver.empty() ? kDash : g.device.driver);
    Table t({{"rank", Table::Align::right},
             {"variant"},
             {"configuration"},
             {"median ms", Table::Align::right},
             {unit_of(*g.rows.front()), Table::Align::right},
             {"GB/s", Table::Align::right},
             {"% bw", Table::Align::right}});
    for (std::size_t i = 0; i < limit(top, g.rows.size()); ++i) {
      const ResultRow& r = *g.rows[i];
      const Metrics m = metrics_of(r, bandwidth);
      t.add({std::to_string(i + 1), variant_label(r.variant), brief_or_dash(r.config), fmt_ms(m.median_ms),
             fmt_rate(m.rate), fmt_gbs(m.gbs), fmt_pct(m.bandwidth_pct)});
    }
    out += t.text("  ");
  }
  return out;
}

std::string best_json(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top) {
  const BandwidthTable bandwidth(bw);
  const auto groups = ranked_groups(rows);
  std::string out = "[";
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const RankedGroup& g = groups[gi];
    const Problem& p = g.problem;
    std::string attrs;
    for (const auto& [k, v] : p.attrs)
      attrs += fmt::format("{}{}:{}", attrs.empty() ? "" : ",", json_string(k), json_string(v));
    out += fmt::format(
        "{}\n  {{\"family\":{},\"backend\":{},\"device\":{},\"driver\":{},\"size\":{},\"width\":{},\"height\":{},"
        "\"channels\":{},\"problem\":{{{}}},\"results\":[",
        gi ? "," : "", json_string(p.family), json_string(g.device.backend), json_string(g.device.name),
        json_string(g.device.driver), json_string(p.size()), p.width, p.height, p.channels, attrs);
    for (std::size_t i = 0; i < limit(top, g.rows.size()); ++i) {
      const ResultRow& r = *g.rows[i];
      const Metrics m = metrics_of(r, bandwidth);
      std::string config;
      for (const auto& [k, v] : r.config.values()) {
        const auto* n = std::get_if<std::int64_t>(&v);
        config += fmt::format("{}{}:{}", config.empty() ? "" : ",", json_string(k),
                              n ? std::to_string(*n) : json_string(std::get<std::string>(v)));
      }
      out += fmt::format(
          "{}\n    {{\"rank\":{},\"variant\":{},\"config\":{{{}}},\"median_ms\":{},\"min_ms\":{},\"mpix_s\":{},"
          "\"gb_s\":{},\"bandwidth_pct\":{},\"source_hash\":{}}}",
          i ? "," : "", i + 1, json_string(r.variant.name), config, json_ms(m.median_ms),
          json_ms(m.min_ms), json_number(m.rate, 3), json_number(m.gbs, 3), json_number(m.bandwidth_pct, 2),
          json_string(r.variant.source_hash));
    }
    out += "]}";
  }
  return out + (groups.empty() ? "]\n" : "\n]\n");
}

}  // namespace pimg
