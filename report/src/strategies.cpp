// `pimg-tune strategies`: the replay comparison as a terminal table and as a markdown section with
// one convergence plot per replay space (median over seeds of the best found so far, relative to
// the stored optimum, against evaluations; one line per strategy).
#include <fmt/format.h>

#include <cmath>

#include "charts.hpp"
#include "metrics.hpp"
#include "pimg/report.hpp"
#include "table.hpp"

namespace pimg {
namespace {

using report_detail::Table;

std::string evals(const std::optional<double>& v, std::size_t points) {
  if (!v) return "not reached";
  return fmt::format("{:g} ({:.1f}%)", *v, 100.0 * *v / static_cast<double>(points));
}

Table score_table(const ReplayComparison& c) {
  Table t({{"strategy"},
           {"median evals to 5%", Table::Align::right},
           {"seeds reaching 5%", Table::Align::right},
           {"median evals to 1%", Table::Align::right},
           {"seeds reaching 1%", Table::Align::right},
           {"vs random (5%)", Table::Align::right}});
  for (const auto& s : c.scores)
    t.add({s.strategy, evals(s.median_to_5pct, c.points), fmt::format("{}/{}", s.reached_5pct, c.seeds),
           evals(s.median_to_1pct, c.points), fmt::format("{}/{}", s.reached_1pct, c.seeds),
           s.vs_random ? fmt::format("{:.2f}x", *s.vs_random) : "\u2013"});
  return t;
}

std::string heading(const ReplayComparison& c) {
  return fmt::format("{}: {} configurations ({} ok), optimum {:.4g} ms, {} seeds", c.label, c.points, c.ok_points,
                     c.optimum_ms, c.seeds);
}

}  // namespace

std::string strategies_table(const std::vector<ReplayComparison>& comparisons) {
  if (comparisons.empty()) return "No stored results to replay (no ok rows of tuned variants).\n";
  std::string out;
  for (const auto& c : comparisons) out += fmt::format("\n{}\n", heading(c)) + score_table(c).text("  ");
  return out;
}

Report strategies_report(const std::vector<ReplayComparison>& comparisons, const std::string& plot_prefix) {
  Report r;
  std::string& md = r.markdown;
  md += "## Search strategies on stored results\n\n";
  md += "Each strategy replayed on the stored results (no device): per device and problem, the tuned variants of "
        "the backend form one space; a configuration costs its stored median time, a failed one costs an "
        "evaluation. Evaluations until the best found is within 5% and 1% of the stored optimum, median over "
        "seeds (percent of the space in brackets); \"vs random\" divides random search's median by the "
        "strategy's. A run stops once within 1%; its curve keeps its last value.\n\n";
  if (comparisons.empty()) md += "No stored results to replay (no ok rows of tuned variants).\n\n";
  for (const auto& c : comparisons) {
    md += fmt::format("### {}\n\n", report_detail::md_escape(heading(c))) + score_table(c).markdown() + "\n";
    charts::LineChart chart{"Convergence: " + c.label, "evaluations (log2 scale)",
                            "best found / optimum, median over seeds (log scale)", {}};
    for (const auto& s : c.scores) {
      charts::Series series{s.strategy, {}, s.strategy == "random"};
      // About 40 log-spaced evaluation counts keep the plot readable.
      std::size_t last = 0;
      for (double x = 1; x <= static_cast<double>(s.median_curve.size()); x *= 1.2) {
        const auto i = static_cast<std::size_t>(x);
        if (i == last) continue;
        last = i;
        if (std::isfinite(s.median_curve[i - 1])) series.points.emplace_back(i, s.median_curve[i - 1]);
      }
      if (!s.median_curve.empty() && last != s.median_curve.size() && std::isfinite(s.median_curve.back()))
        series.points.emplace_back(s.median_curve.size(), s.median_curve.back());
      chart.series.push_back(std::move(series));
    }
    std::string base = report_detail::bounded_stem(report_detail::slug(plot_prefix + " convergence " + c.label));
    std::string name = base + ".svg";
    for (int n = 2; r.files.count(name); ++n) name = fmt::format("{}-{}.svg", base, n);
    r.files.emplace(name, charts::line_chart(chart));
    md += fmt::format("![convergence: {}]({})\n\n", report_detail::md_escape(c.label), name);
  }
  return r;
}

}  // namespace pimg
