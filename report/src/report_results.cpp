// `pimg-tune report`, the results of a family: the size sweeps, each problem on each device (its top
// configurations and the best of each variant, with a chart), and the parameter sensitivity.
#include "pimg/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "charts.hpp"
#include "family_report.hpp"
#include "metrics.hpp"
#include "observations.hpp"
#include "pimg/import.hpp"
#include "pimg/ranking.hpp"
#include "table.hpp"
#include "time_spent.hpp"

namespace pimg {
namespace {

using namespace report_detail;
using Align = Table::Align;

std::int64_t pixels(const Problem& p) { return static_cast<std::int64_t>(p.width) * p.height; }

// Larger pixel count first; among equal sizes the later problem in problem order.
bool larger(const Problem& a, const Problem& b) {
  if (pixels(a) != pixels(b)) return pixels(a) > pixels(b);
  return problem_less(b, a);
}

// What the problems of one size sweep share: channels and attributes.
std::string sweep_group(const Problem& p) {
  std::string out = fmt::format("c{}", p.channels);
  for (const auto& [k, v] : p.attrs) out += fmt::format(" {}={}", k, v);
  return out;
}

std::string image_link(const std::string& alt, const std::string& file) {
  const bool wrap = file.find_first_of(" ()<>") != std::string::npos;
  return fmt::format("![{}]({})\n\n", md_escape(alt), wrap ? "<" + file + ">" : file);
}

std::vector<const ResultRow*> ok_ranked(const std::vector<const ResultRow*>& rows) {
  std::vector<const ResultRow*> ok;
  for (const ResultRow* r : rows)
    if (r->result.status == Status::ok) ok.push_back(r);
  std::stable_sort(ok.begin(), ok.end(), [](const ResultRow* a, const ResultRow* b) { return rank_less(*a, *b); });
  return ok;
}

// Bar labels "rank. variant k=v ..." naming only the parameters that differ among the bars.
std::vector<std::string> bar_labels(const std::vector<const ResultRow*>& rows) {
  std::map<std::string, std::set<Value>> values;
  std::map<std::string, std::size_t> present;
  for (const ResultRow* r : rows)
    for (const auto& [k, v] : r->config.values()) {
      values[k].insert(v);
      ++present[k];
    }
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string label = fmt::format("{}. {}", i + 1, rows[i]->variant.name);
    for (const auto& [k, v] : rows[i]->config.values())
      if (values[k].size() > 1 || present[k] < rows.size()) label += fmt::format(" {}={}", k, to_string(v));
    labels.push_back(std::move(label));
  }
  return labels;
}

}  // namespace

namespace report_detail {

void FamilyReport::sweeps() {
  // A column: tuned variants of one device (kind 0), the serial baseline (1) or another baseline (2).
  using ColumnKey = std::tuple<int, std::string, DeviceKey>;
  std::map<std::pair<int, std::map<std::string, std::string>>, std::vector<const ResultRow*>> groups;
  for (const ResultRow* r : rows_) groups[{r->problem.channels, r->problem.attrs}].push_back(r);

  md_ += "## Size sweep\n\n";
  md_ += "Best ok median time (ms) per image size: one column per device over its tuned variants, one per "
         "baseline; below each, the speed-ups.\n\n";
  for (const auto& [gkey, rows] : groups) {
    std::set<Problem, ProblemLess> sizes;
    std::map<ColumnKey, std::map<std::pair<int, int>, double>> best;
    std::map<std::string, int> baseline_devices;
    for (const ResultRow* r : rows) {
      sizes.insert(r->problem);
      const int kind = !is_baseline(r->variant) ? 0 : is_serial(r->variant) ? 1 : 2;
      const ColumnKey key{kind, kind ? r->variant.name : "", device_key(r->device)};
      auto [col, added] = best.try_emplace(key);
      if (added && kind) ++baseline_devices[r->variant.name];
      if (r->result.status != Status::ok) continue;
      const std::pair<int, int> size{r->problem.width, r->problem.height};
      auto it = col->second.find(size);
      if (it == col->second.end() || r->result.kernel.median < it->second) col->second[size] = r->result.kernel.median;
    }
    std::vector<Table::Column> columns{{"size"}};
    std::vector<std::string> headers;
    for (const auto& [key, cells] : best) {
      const auto& [kind, variant, device] = key;
      std::string h = labels_.at(device);
      if (kind) h = baseline_devices[variant] > 1 ? variant + " (baseline, " + h + ")" : variant + " (baseline)";
      headers.push_back(h);
      columns.push_back({h, Align::right});
    }
    // Speed-ups go in a second table so each fits the page.
    std::vector<Table::Column> ratio_columns{{"size"}, {"best speed-up over serial", Align::right}};
    // The bars users read: the fastest tuned time against each library baseline and, where a device off the
    // host's cores is tuned too, against the best configuration of each device on them (a GPU's gain over the
    // same machine's CPU cores), when something beats it. A device from a store before schema 9 is neither.
    std::vector<std::size_t> versus;
    {
      const auto caps = [&](const DeviceKey& d) {
        const auto it = devices_.find(d);
        return it == devices_.end() ? DeviceCaps::from_stored("") : it->second.caps;
      };
      bool off_host = false;
      for (const auto& [key, cells] : best)
        off_host |= std::get<0>(key) == 0 && caps(std::get<2>(key)).known && !caps(std::get<2>(key)).host_cores;
      std::size_t c = 0;
      for (const auto& [key, cells] : best) {
        const auto& [kind, variant, device] = key;
        if (kind == 2 || (kind == 0 && off_host && caps(device).known && caps(device).host_cores)) {
          versus.push_back(c);
          ratio_columns.push_back({"over " + headers[c], Align::right});
        }
        ++c;
      }
    }
    Table t(std::move(columns));
    Table ratios(std::move(ratio_columns));
    for (const Problem& p : sizes) {
      const std::pair<int, int> size{p.width, p.height};
      std::vector<std::string> cells{p.size()};
      std::vector<std::string> ratio_cells{p.size()};
      std::optional<double> serial;
      std::optional<std::pair<double, std::string>> fastest, fastest_tuned;
      std::vector<std::optional<double>> times_here;
      std::size_t c = 0;
      for (const auto& [key, times] : best) {
        auto it = times.find(size);
        cells.push_back(it == times.end() ? kDash : fmt_ms(it->second));
        times_here.push_back(it == times.end() ? std::nullopt : std::optional<double>(it->second));
        if (it != times.end()) {
          if (std::get<0>(key) == 1 && (!serial || it->second < *serial)) serial = it->second;
          if (std::get<0>(key) != 1 && (!fastest || it->second < fastest->first)) fastest = {{it->second, headers[c]}};
          if (std::get<0>(key) == 0 && (!fastest_tuned || it->second < fastest_tuned->first))
            fastest_tuned = {{it->second, headers[c]}};
        }
        ++c;
      }
      ratio_cells.push_back(serial && fastest && fastest->first > 0
                                ? fmt::format("{} ({})", fmt_speedup(*serial / fastest->first), fastest->second)
                                : kDash);
      for (std::size_t v : versus) {
        const bool shown = times_here[v] && fastest_tuned && fastest_tuned->first > 0 &&
                           fastest_tuned->second != headers[v];
        ratio_cells.push_back(shown ? fmt::format("{} ({})", fmt_speedup(*times_here[v] / fastest_tuned->first),
                                                  fastest_tuned->second)
                                    : kDash);
      }
      t.add(std::move(cells));
      ratios.add(std::move(ratio_cells));
    }
    const std::string group = sweep_group(rows.front()->problem);
    std::string attrs = problem_labels_.brief(rows.front()->problem);
    attrs = attrs.substr(std::min(attrs.size(), rows.front()->problem.size().size() + 1));
    const std::string label = attrs.empty() ? family_ : family_ + " " + attrs;
    md_ += fmt::format("### {}\n\n", md_escape(label)) + t.markdown() + "\nSpeed-ups (the fastest column's time against each):\n\n" +
           ratios.markdown() + "\n";
    if (sizes.size() < 2) continue;
    charts::LineChart chart{"Size sweep: " + label, "image width (pixels, log2 scale)",
                            "best median time (ms, log scale)", {}};
    std::size_t c = 0;
    for (const auto& [key, times] : best) {
      charts::Series s{headers[c++], {}, std::get<0>(key) != 0};
      for (const Problem& p : sizes) {
        auto it = times.find({p.width, p.height});
        if (it != times.end()) s.points.emplace_back(p.width, it->second);
      }
      chart.series.push_back(std::move(s));
    }
    const std::string file = add_plot("sweep", groups.size() > 1 ? group : "",
                                      charts::line_chart(chart));
    md_ += image_link("size sweep: " + label, file);
  }
}

void FamilyReport::problems() {
  std::map<Problem, std::map<DeviceKey, std::vector<const ResultRow*>>, ProblemLess> by_problem;
  std::map<DeviceKey, Problem> largest;
  for (const ResultRow* r : rows_) {
    by_problem[r->problem][device_key(r->device)].push_back(r);
    if (r->result.status != Status::ok) continue;
    auto [it, added] = largest.try_emplace(device_key(r->device), r->problem);
    if (!added && larger(r->problem, it->second)) it->second = r->problem;
  }

  md_ += "## Results per problem and device\n\n";
  md_ += fmt::format("Ok configurations ranked by median time; {} and GB/s from the median, % of bandwidth "
                     "against the device's measured ceiling (its copy's; its read's for a problem that writes next to nothing).\n\n",
                     md_escape(unit_));
  for (const auto& [problem, by_device] : by_problem)
    for (const auto& [dk, rows] : by_device) {
      auto it = largest.find(dk);
      problem_on_device(problem, dk, rows, it != largest.end() && it->second == problem);
    }
}

void FamilyReport::problem_on_device(const Problem& problem, const DeviceKey& dk,
                                     const std::vector<const ResultRow*>& rows, bool plot) {
  const std::string& device = labels_.at(dk);
  md_ += fmt::format("### {}\n\n", md_escape(problem_heading(problem, dk)));
  if (problem_labels_.label(problem) != problem_labels_.brief(problem))
    md_ += fmt::format("Problem: {}.\n\n", md_escape(problem_labels_.label(problem)));
  const auto ok = ok_ranked(rows);
  const std::size_t failed = rows.size() - ok.size();
  if (ok.empty()) {
    md_ += fmt::format("No ok configuration; {} failed (see Failures).\n\n", failed);
    return;
  }
  const std::vector<const ResultRow*> shown(ok.begin(), ok.begin() + static_cast<std::ptrdiff_t>(top_count(ok.size())));
  md_ += fmt::format("Top {} of {} ok configurations{}.\n\n", shown.size(), ok.size(),
                     failed ? fmt::format(" ({} failed)", failed) : "");
  if (const Ranking* k = ranking_of(problem, dk); k && k->confirmed) md_ += md_escape(probability_text(*k)) + ".\n\n";
  // A batch of images in one run: each time per image too.
  const int images = images_of(problem);
  std::vector<Table::Column> columns = {{"rank", Align::right}, {"variant"}, {"configuration"}, {"median ms", Align::right}};
  if (images > 1) columns.push_back({fmt::format("ms per image (/{})", images), Align::right});
  for (const char* c : {"min ms", "stddev ms"}) columns.push_back({c, Align::right});
  for (const std::string& c : {unit_, std::string("GB/s"), std::string("% of bandwidth")}) columns.push_back({c, Align::right});
  Table top(columns);
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Metrics m = metrics_of(*shown[i], bw_);
    std::vector<std::string> cells = {std::to_string(i + 1), variant_label(shown[i]->variant),
                                      brief_or_dash(shown[i]->config), fmt_ms(m.median_ms)};
    if (images > 1) cells.push_back(fmt_ms(m.median_ms / images));
    for (const std::string& c : {fmt_ms(m.min_ms), fmt_ms(m.stddev_ms), fmt_rate(m.rate), fmt_gbs(m.gbs),
                                 fmt_pct(m.bandwidth_pct)})
      cells.push_back(c);
    top.add(std::move(cells));
  }
  md_ += top.markdown() + "\n";

  std::map<std::pair<std::string, std::string>, std::pair<int, int>> tried;  // ok, all
  for (const ResultRow* r : rows) {
    auto& [n_ok, n_all] = tried[{r->variant.name, r->variant.backend}];
    n_all += 1;
    n_ok += r->result.status == Status::ok ? 1 : 0;
  }
  const auto serial = serial_ms(problem);
  Table per_variant({{"variant"},
                     {"configuration"},
                     {"ok / tried", Align::right},
                     {"median ms", Align::right},
                     {unit_, Align::right},
                     {"GB/s", Align::right},
                     {"% of bandwidth", Align::right},
                     {"speed-up over serial", Align::right}});
  std::set<std::pair<std::string, std::string>> seen;
  for (const ResultRow* r : ok) {
    const std::pair<std::string, std::string> v{r->variant.name, r->variant.backend};
    if (!seen.insert(v).second) continue;
    const Metrics m = metrics_of(*r, bw_);
    per_variant.add({variant_label(r->variant), brief_or_dash(r->config),
                     fmt::format("{} / {}", tried[v].first, tried[v].second), fmt_ms(m.median_ms), fmt_rate(m.rate),
                     fmt_gbs(m.gbs), fmt_pct(m.bandwidth_pct),
                     serial && m.median_ms > 0 ? fmt_speedup(*serial / m.median_ms) : kDash});
  }
  md_ += "Best of each variant:\n\n" + per_variant.markdown() + "\n";
  if (plot) top_chart(problem, device, shown, ranking_of(problem, dk));
}

void FamilyReport::top_chart(const Problem& problem, const std::string& device,
                             const std::vector<const ResultRow*>& shown, const Ranking* ranking) {
  charts::BarChart chart{fmt::format("Top {} on {}: {}", shown.size(), device, problem_labels_.brief(problem)),
                         "median time (ms), bars: 95% interval", {}, {}};
  // The baselines of the problem (any device) below the ranked configurations.
  std::vector<const ResultRow*> drawn = shown;
  if (ranking)
    for (const auto& b : ranking->baselines)
      if (std::find(drawn.begin(), drawn.end(), b.row) == drawn.end()) drawn.push_back(b.row);
  std::set<std::string> names;
  for (const ResultRow* r : drawn) names.insert(variant_label(r->variant));
  chart.legend.assign(names.begin(), names.end());
  auto labels = bar_labels(shown);
  for (std::size_t i = shown.size(); i < drawn.size(); ++i)
    labels.push_back(fmt::format("{} on {}", variant_label(drawn[i]->variant), device_name(drawn[i]->device)));
  for (std::size_t i = 0; i < drawn.size(); ++i) {
    const EvalResult& e = drawn[i]->result;
    const auto color = static_cast<std::size_t>(
        std::find(chart.legend.begin(), chart.legend.end(), variant_label(drawn[i]->variant)) - chart.legend.begin());
    chart.bars.push_back({labels[i], e.kernel.median, fmt_ms(e.kernel.median) + " ms", color, e.ci_low_ms, e.ci_high_ms});
  }
  md_ += image_link("top configurations on " + device, add_plot("top", device, charts::bar_chart(chart)));
}

void FamilyReport::sensitivity() {
  std::map<std::pair<std::string, DeviceKey>, std::vector<const ResultRow*>> by_variant;
  for (const ResultRow* r : rows_)
    if (!is_baseline(r->variant)) by_variant[{r->variant.name, device_key(r->device)}].push_back(r);

  md_ += "## Parameter sensitivity\n\n";
  md_ += "Each tuned variant at its largest problem on each device: for every parameter with more than one "
         "value, the median over the ok configurations with that value of their median times.\n\n";
  bool any = false;
  for (const auto& [key, rows] : by_variant) {
    const auto& [variant, dk] = key;
    std::optional<Problem> largest;
    for (const ResultRow* r : rows)
      if (r->result.status == Status::ok && (!largest || larger(r->problem, *largest))) largest = r->problem;
    if (!largest) continue;
    any = true;
    struct Cell {
      std::vector<double> ok_ms;
      int failed = 0;
    };
    std::map<std::string, std::map<Value, Cell>> params;
    for (const ResultRow* r : rows) {
      if (!(r->problem == *largest)) continue;
      for (const auto& [name, value] : r->config.values()) {
        Cell& cell = params[name][value];
        if (r->result.status == Status::ok)
          cell.ok_ms.push_back(r->result.kernel.median);
        else
          ++cell.failed;
      }
    }
    const std::string title = fmt::format("{} on {}: {}", variant, labels_.at(dk), problem_labels_.brief(*largest));
    md_ += fmt::format("### {}\n\n", md_escape(title));
    Table t({{"parameter"},
             {"value"},
             {"ok configurations", Align::right},
             {"failed", Align::right},
             {"median ms", Align::right},
             {"best ms", Align::right}});
    charts::PanelChart chart{"Parameter sensitivity: " + title, "median over configurations of the median time (ms)",
                             {}};
    for (const auto& [name, values] : params) {
      if (values.size() < 2) continue;
      charts::Panel panel{name, {}};
      for (const auto& [value, cell] : values) {
        const Stats s = Stats::of(cell.ok_ms);
        const bool has = !cell.ok_ms.empty();
        t.add({name, to_string(value), std::to_string(cell.ok_ms.size()), std::to_string(cell.failed),
               has ? fmt_ms(s.median) : kDash, has ? fmt_ms(s.min) : kDash});
        if (has) panel.bars.emplace_back(to_string(value), s.median);
      }
      chart.panels.push_back(std::move(panel));
    }
    if (chart.panels.empty()) {
      md_ += "No parameter takes more than one value here.\n\n";
      continue;
    }
    md_ += image_link("parameter sensitivity of " + variant + " on " + labels_.at(dk),
                      add_plot("params", variant + "-" + labels_.at(dk), charts::panel_chart(chart)));
    md_ += t.markdown() + "\n";
  }
  if (!any) md_ += "No tuned variant has an ok configuration.\n\n";
}

}  // namespace report_detail
}  // namespace pimg
