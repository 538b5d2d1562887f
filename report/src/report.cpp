// `pimg-tune report`: per family, the devices, size sweeps, per-problem rankings, parameter
// sensitivity and failures as markdown, with SVG plots beside it. A pure function of stored rows:
// rows are sorted first, so the same store always gives the same bytes.
// This file holds make_report and what a family's part has beside its sections: the sections themselves are in
// report_overview.cpp (summary to devices), report_results.cpp (sweeps to sensitivity) and report_failures.cpp.
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
namespace report_detail {

FamilyReport::FamilyReport(std::string family, std::vector<const ResultRow*> rows, std::vector<Ranking> rankings,
                           const BandwidthTable& bw, const ReportOptions& opt, Report& out)
    : family_(std::move(family)),
      rows_(std::move(rows)),
      rankings_(std::move(rankings)),
      problem_labels_(rows_),
      bw_(bw),
      opt_(opt),
      out_(out),
      md_(out.markdown) {
  std::map<std::string, int> uses;
  for (const ResultRow* r : rows_)
    if (devices_.emplace(device_key(r->device), r->device).second) ++uses[device_label(r->device)];
  for (const auto& [key, info] : devices_) {
    std::string label = device_label(info);
    if (uses[label] > 1) label += " (driver " + (key.driver.empty() ? std::string(kDash) : key.driver) + ")";
    labels_[key] = label;
  }
  unit_ = rows_.empty() ? "MPix/s" : unit_of(*rows_.front());
}

void FamilyReport::write() {
  summary();
  contents();
  provenance();
  devices();
  sweeps();
  problems();
  sensitivity();
  md_ += observation_sections(observed());
  failures();
  how_to_read();
}

std::string FamilyReport::add_plot(const std::string& kind, const std::string& detail, std::string svg) {
  std::string base;
  for (const std::string& part : {opt_.plot_prefix, slug(family_), kind, slug(detail)})
    if (!part.empty()) base += (base.empty() ? "" : "-") + part;
  base = bounded_stem(base);
  std::string name = base + ".svg";
  for (int n = 2; out_.files.count(name); ++n) name = fmt::format("{}-{}.svg", base, n);
  out_.files.emplace(name, std::move(svg));
  return name;
}

std::optional<double> FamilyReport::serial_ms(const Problem& p) const {
  std::optional<double> best;
  for (const ResultRow* r : rows_)
    if (r->result.status == Status::ok && is_serial(r->variant) && r->problem == p &&
        (!best || r->result.kernel.median < *best))
      best = r->result.kernel.median;
  return best;
}

const Ranking* FamilyReport::ranking_of(const Problem& problem, const DeviceKey& dk) const {
  for (const Ranking& k : rankings_)
    if (k.problem == problem && device_key(k.device) == dk) return &k;
  return nullptr;
}

std::string FamilyReport::problem_heading(const Problem& problem, const DeviceKey& dk) const {
  return fmt::format("{} on {}", problem_labels_.brief(problem), labels_.at(dk));
}

}  // namespace report_detail

using namespace report_detail;

Report make_report(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bandwidths,
                   const ReportOptions& opt) {
  const BandwidthTable bw(bandwidths);
  std::map<std::string, std::vector<const ResultRow*>> families;
  for (const ResultRow* r : sorted_rows(rows))
    if ((opt.family.empty() || r->problem.family == opt.family) && r->result.stage != "confirm")
      families[r->problem.family].push_back(r);
  std::map<std::string, std::vector<Ranking>> rankings;
  for (Ranking& k : rank_all(rows)) rankings[k.problem.family].push_back(std::move(k));

  // A family whose store holds its ladders alone (`--ladder-only`) is reported by its ladders.
  std::set<std::string> ladder_only;
  for (const LadderRow& l : opt.ladders)
    if ((opt.family.empty() || l.row.problem.family == opt.family) && !families.count(l.row.problem.family))
      ladder_only.insert(l.row.problem.family);
  Report report;
  if (families.empty() && ladder_only.empty()) {
    report.markdown = opt.family.empty()
                          ? "# pimg-tune report\n\nThe store holds no results.\n"
                          : fmt::format("# pimg-tune report: {}\n\nThe store holds no results for this family.\n",
                                        md_escape(opt.family));
    return report;
  }
  for (const std::string& family : ladder_only) families[family];
  for (auto& [family, family_rows] : families) {
    if (!report.markdown.empty()) report.markdown += "\n";
    if (ladder_only.count(family))
      report.markdown += fmt::format("# pimg-tune report: {}\n\nThe store holds this family's ladders alone (measured "
                                     "with `--ladder-only`: no search, so no ranking).\n",
                                     md_escape(family));
    else
      FamilyReport(family, std::move(family_rows), std::move(rankings[family]), bw, opt, report).write();
    if (const std::string ladders = ladder_section(opt.ladders, family); !ladders.empty())
      report.markdown += "\n" + ladders;
    if (const std::string pictures = pictures_section(opt.pictures, family, opt.pictures_prefix); !pictures.empty())
      report.markdown += "\n" + pictures;
  }
  return report;
}

}  // namespace pimg
