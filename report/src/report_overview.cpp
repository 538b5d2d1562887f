// `pimg-tune report`, the opening sections of a family: the summary (the winner of each problem and device
// against the baselines), the contents, the provenance of the rows and the devices.
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

}  // namespace

namespace report_detail {

// Answer first: per problem and device the winner, its interval, the ratio to every baseline, the
// ties and the timing method.
void FamilyReport::summary() {
  std::set<std::pair<std::string, std::string>> variants;
  std::set<Problem, ProblemLess> problems;
  std::size_t ok = 0;
  for (const ResultRow* r : rows_) {
    variants.emplace(r->variant.name, r->variant.backend);
    problems.insert(r->problem);
    if (r->result.status == Status::ok) ++ok;
  }
  md_ += fmt::format("# pimg-tune report: {}\n\n", md_escape(family_));
  md_ += "## Summary\n\n";
  if (rankings_.empty()) {
    md_ += "No configuration succeeded (see Failures).\n\n";
  } else {
    Table t({{"problem"}, {"device"}, {"winner"}, {"median ms [95% interval]"}, {"vs baselines"}, {"tied", Align::right},
             {"P(fastest) [with ties]", Align::right}, {"method"}});
    // A baseline's device is named only where the same baseline ran on several devices.
    std::map<std::string, std::set<DeviceKey>> baseline_devices;
    for (const Ranking& k : rankings_)
      for (const auto& b : k.baselines) baseline_devices[b.row->variant.name].insert(device_key(b.row->device));
    std::string last_problem;
    for (const Ranking& k : rankings_) {
      const ResultRow& w = *k.winner;
      if (is_baseline(w.variant)) continue;  // a device that ran only baselines: they appear under "vs"
      std::string problem = problem_labels_.brief(k.problem);
      if (problem == last_problem) problem.clear();
      else last_problem = problem;
      std::string vs;
      for (const auto& b : k.baselines) {
        const bool named = baseline_devices[b.row->variant.name].size() > 1;
        vs += fmt::format("{}{} {}{}", vs.empty() ? "" : ", ", ratio_text(b), b.row->variant.name,
                          named ? " (" + device_name(b.row->device) + ")" : "");
      }
      std::string when = time_with_interval(w);
      when = when.substr(0, when.find(" ms")) + when.substr(when.find(" ms") + 3);
      if (const int images = images_of(k.problem); images > 1 && w.result.kernel.median > 0)
        when += fmt::format(", {} per image of {}", fmt_ms(w.result.kernel.median / images), images);
      t.add({problem, device_name(k.device),
             fmt::format("{} {}", w.variant.name, brief_or_dash(w.config)), when, vs.empty() ? kDash : vs,
             std::to_string(k.ties.size()), probability_cell(k),
             (k.method.empty() ? std::string(kDash) : k.method) + (k.confirmed ? " (confirmed)" : "") +
                 (k.loaded ? " (ran loaded)" : "")});
    }
    md_ += t.markdown() + "\n";
    md_ += fmt::format(
        "Every problem is {}; a problem here names only its size and the attributes that tell it apart (all of "
        "them under its results). The winner is the fastest "
        "tuned configuration on the device (median time with its 95% interval); \"vs\" gives each baseline's time "
        "over the winner's (above 1x the winner is faster; in parentheses, where the confirmation's sessions moved it by "
        "more than the resolution, how far it reached from session to session); \"tied\" counts configurations whose interval "
        "overlaps the winner's or whose median is within {:g}% of it (the resolution of the tool from one run "
        "to the next); P(fastest) is how often the winner is the fastest confirmed tuned configuration over "
        "bootstrap resamples of their samples, in brackets how often it or one of its ties is (docs/measurement.md).\n\n",
        md_escape(problem_labels_.shared()), kTieResolution * 100);
    if (std::any_of(rankings_.begin(), rankings_.end(), [](const Ranking& k) { return k.loaded; }))
      md_ += "\"(ran loaded)\": " + md_escape(kLoadedNote) + " (docs/measurement.md).\n\n";
    if (is_imported_family(family_))
      md_ += "These results are imported: this report ranks them by the median of their stored runs; `pimg-tune best` "
             "(by default) and `pimg-tune strategies` rank them by the objective their writer recorded (a T4 file's "
             "`time`, Kernel Tuner's mean of the runs).\n\n";
  }
  md_ += fmt::format("{} stored evaluations ({} ok, {} failed) of {} variants on {} devices and {} problems.\n\n",
                     rows_.size(), ok, rows_.size() - ok, variants.size(), devices_.size(), problems.size());
}

// Links to the sections below, and to each problem's results. A heading already used by an earlier
// family's part of the report gets GitHub's "-N" suffix.
void FamilyReport::contents() {
  std::map<std::string, int> used;
  {
    std::size_t start = 0;
    while (start < md_.size()) {
      std::size_t end = md_.find('\n', start);
      if (end == std::string::npos) end = md_.size();
      const std::string line = md_.substr(start, end - start);
      if (!line.empty() && line[0] == '#') ++used[gfm_anchor(md_unescape(line.substr(line.find(' ') + 1)))];
      start = end + 1;
    }
  }
  auto anchor = [&](const std::string& heading) {
    const std::string a = gfm_anchor(heading);
    auto it = used.find(a);
    return it == used.end() ? a : fmt::format("{}-{}", a, it->second);
  };
  md_ += "## Contents\n\n";
  std::vector<std::string> sections{"Provenance", "Devices", "Size sweep", "Results per problem and device",
                                    "Parameter sensitivity"};
  for (std::string& s : observation_headings(observed())) sections.push_back(std::move(s));
  sections.insert(sections.end(), {"Failures", "How to read this"});
  for (const std::string& s : sections) {
    md_ += fmt::format("- [{}](#{})\n", s, anchor(s));
    if (s != "Results per problem and device") continue;
    std::set<std::pair<Problem, DeviceKey>, bool (*)(const std::pair<Problem, DeviceKey>&, const std::pair<Problem, DeviceKey>&)>
        seen([](const std::pair<Problem, DeviceKey>& a, const std::pair<Problem, DeviceKey>& b) {
          if (problem_less(a.first, b.first)) return true;
          if (problem_less(b.first, a.first)) return false;
          return a.second < b.second;
        });
    for (const ResultRow* r : rows_) seen.insert({r->problem, device_key(r->device)});
    for (const auto& [p, dk] : seen) {
      const std::string h = problem_heading(p, dk);
      md_ += fmt::format("  - [{}](#{})\n", md_escape(h), anchor(h));
    }
  }
  md_ += "\n";
}

// Where the rows come from: each run's date, host, commit, tool version and command line, and where its time went.
void FamilyReport::provenance() {
  std::set<std::int64_t> ids;
  for (const ResultRow* r : rows_) ids.insert(r->run_id);
  md_ += "## Provenance\n\n";
  Table t({{"run", Align::right}, {"started (UTC)"}, {"host"}, {"commit"}, {"version"}, {"command line"}});
  std::size_t shown = 0;
  for (const RunRecord& run : opt_.runs) {
    if (!ids.count(run.id)) continue;
    ++shown;
    t.add({std::to_string(run.id), run.info.started_at, run.info.host, run.info.git_commit.substr(0, 12),
           run.info.version, run.info.command_line});
  }
  if (shown)
    md_ += t.markdown() + "\n";
  else
    md_ += fmt::format("Rows of runs {}; no run records were given to the report.\n\n", ids.size());
  for (const Ranking& k : rankings_) ids.insert(k.winner->run_id);  // a run that only confirmed
  if (!is_imported_family(family_))
    md_ += time_spent_section(opt_.times, opt_.runs, ids, [this](const DeviceInfo& d) { return device_name(d); });
}

void FamilyReport::devices() {
  md_ += "## Devices\n\n";
  Table t({{"backend"},
           {"device"},
           {"vendor"},
           {"driver"},
           {"compute units", Align::right},
           {"memory", Align::right},
           {"copy bandwidth", Align::right}});
  for (const auto& [key, d] : devices_) {
    const auto gbs = bw_.gbs(d);
    t.add({d.backend, d.name, d.vendor.empty() ? kDash : d.vendor, d.driver.empty() ? kDash : d.driver,
           d.compute_units > 0 ? std::to_string(d.compute_units) : kDash, fmt_bytes(d.global_mem_bytes),
           gbs ? fmt::format("{:.1f} GB/s", *gbs) : kDash});
  }
  md_ += t.markdown() + "\n";
  // Each ceiling of each device's latest run, with the copy that set it (docs/measurement.md, "The bandwidth
  // ceiling"): a kernel's "% of bandwidth" is against the one nearest its working set.
  Table c({{"device"}, {"working set", Align::right}, {"ceiling", Align::right}, {"set by"}, {"timed by"}, {"run", Align::right}});
  bool reads = false;
  for (const auto& [key, d] : devices_)
    for (const BandwidthRow& b : bw_.latest(d)) {
      reads = reads || b.kind == "read";
      const std::size_t split = b.method.find("; ");
      const double mib = b.bytes / (1024.0 * 1024.0);
      const std::string size = mib >= 10 ? fmt::format("{:.0f} MiB", mib)
                               : mib >= 1 ? fmt::format("{:.1f} MiB", mib)
                                          : fmt::format("{:.0f} KiB", b.bytes / 1024.0);
      c.add({device_name(d), size, fmt::format("{:.1f} GB/s{}", b.gbs, b.kind == "read" ? " read" : ""),
             split == std::string::npos ? kDash : b.method.substr(split + 2),
             split == std::string::npos ? (b.method.empty() ? kDash : b.method) : b.method.substr(0, split),
             b.run_id > 0 ? std::to_string(b.run_id) : kDash});
    }
  if (!c.empty())
    md_ += "Copy ceilings of each device's latest run, by working set (each of the copy's two buffers): the fastest of "
           "the API's device-to-device copy and the backend's copy kernels, and the copy that set it." +
           (reads ? std::string(" Rows marked read are read ceilings (the bytes read once, by the backend's read "
                                "kernels): a problem that writes at most 1/64 of what it reads (a histogram) is "
                                "compared with the read nearest the bytes it reads (docs/measurement.md, \"The read "
                                "ceiling\").")
                  : std::string()) +
           "\n\n" + c.markdown() + "\n";
}

}  // namespace report_detail
}  // namespace pimg
