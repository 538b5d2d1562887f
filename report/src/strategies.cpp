// `pimg-tune strategies`: the replay comparison as terminal tables and as a markdown section with two
// convergence plots per replay space (mean over seeds of the fraction of the optimum found so far,
// against evaluations and against tuning time; one line per strategy), naming the objective and the priors used.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <optional>

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

// "strategy", then one column per budget ("25", ..., "1% (44)").
std::vector<Table::Column> budget_columns(const ReplayComparison& c) {
  std::vector<Table::Column> cols{{"strategy"}};
  if (!c.scores.empty())
    for (const auto& b : c.scores.front().budgets)
      cols.push_back({b.label.back() == '%' ? fmt::format("{} ({})", b.label, b.evaluations) : b.label, Table::Align::right});
  return cols;
}

// The field's metrics: mean (and standard deviation) of the fraction of the optimum at each budget,
// the share of seeds that found the optimum within the largest fixed budget, the time-based score.
Table fraction_table(const ReplayComparison& c) {
  std::vector<Table::Column> cols = budget_columns(c);
  if (c.scores.empty()) return Table(cols);
  cols.push_back({"optimum found", Table::Align::right});
  cols.push_back({"time score [95% CI]", Table::Align::right});
  Table t(cols);
  for (const auto& s : c.scores) {
    std::vector<std::string> row{s.strategy};
    const BudgetScore* last_fixed = nullptr;
    for (const auto& b : s.budgets) {
      row.push_back(fmt::format("{:.3f} \u00b1{:.3f}", b.mean, b.sd));
      if (b.label.back() != '%') last_fixed = &b;
    }
    row.push_back(last_fixed ? fmt::format("{}/{} by {}", last_fixed->found_optimum, c.seeds, last_fixed->evaluations)
                             : "\u2013");
    row.push_back(s.time_score ? fmt::format("{:+.3f} [{:+.3f}, {:+.3f}]", s.time_score->mean, s.time_score->low,
                                             s.time_score->high)
                               : "\u2013");
    t.add(row);
  }
  return t;
}

// The worst seed's fraction of the optimum and the 10th percentile's after N evaluations.
Table tail_table(const ReplayComparison& c) {
  Table t(budget_columns(c));
  for (const auto& s : c.scores) {
    std::vector<std::string> row{s.strategy};
    for (const auto& b : s.budgets) row.push_back(fmt::format("{:.3f} / {:.3f}", b.worst, b.p10));
    t.add(row);
  }
  return t;
}

std::string heading(const ReplayComparison& c) {
  return fmt::format("{}: {} configurations ({} ok), optimum {:.4g} ms by {}, {} seeds{}", c.label, c.points,
                     c.ok_points, c.optimum_ms, c.objective, c.seeds,
                     c.first_seed == 1 ? std::string() : fmt::format(" ({}..{})", c.first_seed, c.first_seed + c.seeds - 1));
}


}  // namespace

std::string strategies_table(const std::vector<ReplayComparison>& comparisons) {
  if (comparisons.empty()) return "No stored results to replay (no ok rows of tuned variants).\n";
  std::string out;
  for (const auto& c : comparisons) {
    out += fmt::format("\n{}\n  {}\n", heading(c), priors_note(c.priors)) + score_table(c).text("  ");
    out += fmt::format("  fraction of the optimum (mean \u00b1sd over seeds) after N evaluations; time budget {:.4g} s\n",
                       c.time_budget_ms / 1e3) + fraction_table(c).text("  ");
    out += "  fraction of the optimum of the worst seed / of the 10th-percentile seed after N evaluations\n" +
           tail_table(c).text("  ");
  }
  return out;
}

std::string strategies_json(const std::vector<ReplayComparison>& comparisons) {
  using report_detail::json_string;
  const auto number = [](std::optional<double> v) {
    return v && std::isfinite(*v) ? fmt::format("{:.6g}", *v) : std::string("null");
  };
  std::vector<std::string> spaces;
  for (const auto& c : comparisons) {
    std::vector<std::string> priors, scores;
    for (const auto& p : c.priors) priors.push_back(json_string(p));
    for (const auto& s : c.scores) {
      std::vector<std::string> budgets;
      for (const auto& b : s.budgets)
        budgets.push_back(fmt::format("{{\"budget\":{},\"evaluations\":{},\"mean\":{:.6g},\"sd\":{:.6g},\"worst\":{:.6g},"
                                      "\"p10\":{:.6g},\"found_optimum\":{}}}",
                                      json_string(b.label), b.evaluations, b.mean, b.sd, b.worst, b.p10, b.found_optimum));
      scores.push_back(fmt::format(
          "{{\"strategy\":{},\"median_to_5pct\":{},\"median_to_1pct\":{},\"reached_5pct\":{},\"reached_1pct\":{},"
          "\"vs_random\":{},\"budgets\":[{}],\"time_score\":{}}}",
          json_string(s.strategy), number(s.median_to_5pct), number(s.median_to_1pct), s.reached_5pct, s.reached_1pct,
          number(s.vs_random), fmt::join(budgets, ","),
          s.time_score ? fmt::format("{{\"mean\":{:.6g},\"low\":{:.6g},\"high\":{:.6g}}}", s.time_score->mean,
                                     s.time_score->low, s.time_score->high)
                       : std::string("null")));
    }
    spaces.push_back(fmt::format(
        "{{\"space\":{},\"points\":{},\"ok_points\":{},\"optimum_ms\":{:.6g},\"objective\":{},\"priors\":[{}],"
        "\"seeds\":{},\"first_seed\":{},\"time_budget_ms\":{:.6g},\"strategies\":[{}]}}",
        json_string(c.label), c.points, c.ok_points, c.optimum_ms, json_string(c.objective), fmt::join(priors, ","),
        c.seeds, c.first_seed, c.time_budget_ms, fmt::join(scores, ",\n    ")));
  }
  return fmt::format("[\n  {}\n]\n", fmt::join(spaces, ",\n  "));
}

Report strategies_report(const std::vector<ReplayComparison>& comparisons, const std::string& plot_prefix) {
  Report r;
  std::string& md = r.markdown;
  md += "## Search strategies on stored results\n\n";
  md += "Each strategy replayed on the stored results (no device): per device and problem, the tuned variants of "
        "the backend form one space; a configuration costs its stored time by the objective and its stored tuning time "
        "(compile, framework, validation and runs), a failed one costs an evaluation and its time. The first table: "
        "evaluations until the best found is within 5% and 1% of the stored optimum, median over seeds (percent of "
        "the space in brackets); \"vs random\" divides random search's median by the strategy's. The second: the "
        "fraction of the optimum (optimum / best found, 0 before any ok point) after N evaluations, mean and "
        "standard deviation over seeds; the seeds that found the optimum; and the time-based score P = (random - "
        "strategy) / (random - optimum) of the best found, averaged over the time budget, with its 95% bootstrap "
        "interval (docs/strategies.md defines it). The third: the fraction of the optimum of the worst seed and of the "
        "10th-percentile seed (the ceil(n/10)-th worst of n). The heading names the objective the times are ranked by "
        "(by default the one the results' writer recorded); the line below it, the stored results of other devices "
        "and problems the strategies were given as priors (only with --transfer).\n\n";
  if (comparisons.empty()) md += "No stored results to replay (no ok rows of tuned variants).\n\n";
  auto add_chart = [&](const charts::LineChart& chart, const std::string& what, const std::string& label) {
    std::string base = report_detail::slug(plot_prefix + " " + what + " " + label);
    std::string name = base + ".svg";
    for (int n = 2; r.files.count(name); ++n) name = fmt::format("{}-{}.svg", base, n);
    r.files.emplace(name, charts::line_chart(chart));
    md += fmt::format("![{}: {}]({})\n\n", what, report_detail::md_escape(label), name);
  };
  for (const auto& c : comparisons) {
    md += fmt::format("### {}\n\n{}\n\n", report_detail::md_escape(heading(c)), report_detail::md_escape(priors_note(c.priors))) +
          score_table(c).markdown() + "\n";
    md += fraction_table(c).markdown() + "\n";
    md += "Worst seed / 10th-percentile seed:\n\n" + tail_table(c).markdown() + "\n";
    charts::LineChart chart{"Convergence over evaluations: " + c.label, "evaluations (log2 scale)",
                            "fraction of the optimum, mean over seeds (log scale)", {}};
    for (const auto& s : c.scores) {
      charts::Series series{s.strategy, {}, s.strategy == "random"};
      // About 40 log-spaced evaluation counts keep the plot readable.
      std::size_t last = 0;
      for (double x = 1; x <= static_cast<double>(s.mean_fraction.size()); x *= 1.2) {
        const auto i = static_cast<std::size_t>(x);
        if (i == last) continue;
        last = i;
        series.points.emplace_back(i, s.mean_fraction[i - 1]);
      }
      if (!s.mean_fraction.empty() && last != s.mean_fraction.size())
        series.points.emplace_back(s.mean_fraction.size(), s.mean_fraction.back());
      chart.series.push_back(std::move(series));
    }
    add_chart(chart, "convergence", c.label);
    if (!c.time_points.empty()) {
      charts::LineChart tchart{fmt::format("Convergence over tuning time: {} (time budget {:.4g} s)", c.label,
                                           c.time_budget_ms / 1e3),
                               "tuning time, s (log2 scale)", "fraction of the optimum, mean over seeds (log scale)", {}};
      for (const auto& s : c.scores) {
        charts::Series series{s.strategy, {}, s.strategy == "random"};
        for (std::size_t k = 0; k < s.time_fraction.size(); k += (k < 10 ? 1 : 5))
          series.points.emplace_back(c.time_points[k] / 1e3, s.time_fraction[k]);
        tchart.series.push_back(std::move(series));
      }
      add_chart(tchart, "convergence over time", c.label);
    }
  }
  return r;
}

}  // namespace pimg
