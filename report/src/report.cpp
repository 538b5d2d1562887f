// `pimg-tune report`: per family, the devices, size sweeps, per-problem rankings, parameter
// sensitivity and failures as markdown, with SVG plots beside it. A pure function of stored rows:
// rows are sorted first, so the same store always gives the same bytes.
#include "pimg/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "charts.hpp"
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

// The kernels' own outcomes; harness_error and env_error are listed apart (not the kernels' failures).
constexpr std::array<Status, 6> kStatuses = {Status::ok,      Status::compile_error, Status::launch_error,
                                             Status::timeout, Status::wrong_result,  Status::crash};
constexpr std::size_t kFailureExamples = 3;
constexpr std::size_t kLogChars = 160;

// The first non-blank line of a log, trimmed and cut to kLogChars characters.
std::string first_line(const EvalResult& r) {
  const std::string& text = r.log.find_first_not_of(" \t\r\n") == std::string::npos ? r.validation : r.log;
  std::size_t start = 0;
  std::string line;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    line = text.substr(start, end - start);
    const auto b = line.find_first_not_of(" \t\r");
    if (b != std::string::npos) {
      line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
      break;
    }
    line.clear();
    start = end + 1;
  }
  if (line.empty()) return kDash;
  std::size_t chars = 0, cut = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (++chars == kLogChars) cut = i;
    if (chars > kLogChars) return line.substr(0, cut) + "\u2026";
  }
  return line;
}

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

class FamilyReport {
 public:
  FamilyReport(std::string family, std::vector<const ResultRow*> rows, std::vector<Ranking> rankings,
               const BandwidthTable& bw, const ReportOptions& opt, Report& out);
  void write();

 private:
  void summary();
  void contents();
  void provenance();
  void devices();
  void sweeps();
  void problems();
  void problem_on_device(const Problem& problem, const DeviceKey& dk, const std::vector<const ResultRow*>& rows,
                         bool plot);
  void top_chart(const Problem& problem, const std::string& device, const std::vector<const ResultRow*>& shown,
                 const Ranking* ranking);
  const Ranking* ranking_of(const Problem& problem, const DeviceKey& dk) const;
  std::string problem_heading(const Problem& problem, const DeviceKey& dk) const;
  std::string device_name(const DeviceInfo& d) const {
    auto it = labels_.find(device_key(d));
    return it == labels_.end() ? device_label(d) : it->second;
  }
  void sensitivity();
  ObservationInput observed() const {
    return {rows_, rankings_, opt_.cold, problem_labels_, [this](const DeviceInfo& d) { return device_name(d); }, opt_.top};
  }
  void failures();
  void how_to_read();
  std::string add_plot(const std::string& kind, const std::string& detail, std::string svg);
  std::optional<double> serial_ms(const Problem& p) const;
  std::size_t top_count(std::size_t n) const { return opt_.top > 0 ? std::min<std::size_t>(n, opt_.top) : n; }

  std::string family_;
  std::vector<const ResultRow*> rows_;  // search-stage rows, in sorted_rows() order
  std::vector<Ranking> rankings_;       // per (problem, device), from both stages
  ProblemLabels problem_labels_;
  const BandwidthTable& bw_;
  const ReportOptions& opt_;
  Report& out_;
  std::string& md_;
  std::map<DeviceKey, DeviceInfo> devices_;
  std::map<DeviceKey, std::string> labels_;
  std::string unit_;
};

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
        vs += fmt::format("{}{} {}{}", vs.empty() ? "" : ", ", fmt_speedup(b.ratio), b.row->variant.name,
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
        "over the winner's (above 1x the winner is faster); \"tied\" counts configurations whose interval "
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
  for (const auto& [key, d] : devices_)
    for (const BandwidthRow& b : bw_.latest(d)) {
      const std::size_t split = b.method.find("; ");
      const double mib = b.bytes / (1024.0 * 1024.0);
      const std::string size = mib >= 10 ? fmt::format("{:.0f} MiB", mib)
                               : mib >= 1 ? fmt::format("{:.1f} MiB", mib)
                                          : fmt::format("{:.0f} KiB", b.bytes / 1024.0);
      c.add({device_name(d), size, fmt::format("{:.1f} GB/s", b.gbs),
             split == std::string::npos ? kDash : b.method.substr(split + 2),
             split == std::string::npos ? (b.method.empty() ? kDash : b.method) : b.method.substr(0, split),
             b.run_id > 0 ? std::to_string(b.run_id) : kDash});
    }
  if (!c.empty())
    md_ += "Copy ceilings of each device's latest run, by working set (each of the copy's two buffers): the fastest of "
           "the API's device-to-device copy and the backend's copy kernels, and the copy that set it.\n\n" +
           c.markdown() + "\n";
}

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
                     "against the device's measured copy bandwidth.\n\n",
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

void FamilyReport::failures() {
  std::map<std::pair<std::string, std::string>, std::array<int, kStatuses.size()>> counts;
  std::map<std::pair<std::string, std::string>, std::string> names;
  std::array<std::vector<const ResultRow*>, kStatuses.size()> examples;
  std::vector<const ResultRow*> not_kernels;  // the tool's or the machine's faults, listed apart
  for (const ResultRow* r : rows_) {
    const auto k = std::find(kStatuses.begin(), kStatuses.end(), r->result.status);
    if (k == kStatuses.end()) {
      not_kernels.push_back(r);
      continue;
    }
    const std::pair<std::string, std::string> v{r->variant.name, r->variant.backend};
    names[v] = variant_label(r->variant);
    const auto s = static_cast<std::size_t>(k - kStatuses.begin());
    auto [it, added] = counts.try_emplace(v);
    if (added) it->second.fill(0);
    ++it->second[s];
    if (r->result.status != Status::ok) examples[s].push_back(r);
  }

  md_ += "## Failures\n\n";
  std::vector<Table::Column> columns{{"variant"}};
  for (Status s : kStatuses) columns.push_back({to_string(s), Align::right});
  Table t(std::move(columns));
  for (const auto& [v, n] : counts) {
    std::vector<std::string> cells{names[v]};
    for (int c : n) cells.push_back(std::to_string(c));
    t.add(std::move(cells));
  }
  md_ += t.markdown() + "\n";
  bool any = false;
  for (std::size_t k = 0; k < kStatuses.size(); ++k) {
    const Status s = kStatuses[k];
    const auto& rows = examples[k];
    if (rows.empty()) continue;
    any = true;
    md_ += fmt::format("### {} ({})\n\n", to_string(s), rows.size());
    Table ex({{"variant"}, {"device"}, {"problem"}, {"configuration"}, {"first line of the log"}});
    for (std::size_t i = 0; i < std::min(rows.size(), kFailureExamples); ++i) {
      const ResultRow& r = *rows[i];
      ex.add({variant_label(r.variant), labels_.at(device_key(r.device)), problem_labels_.brief(r.problem),
              brief_or_dash(r.config), first_line(r.result)});
    }
    md_ += ex.markdown() + "\n";
  }
  if (!any) md_ += "Every evaluation succeeded.\n\n";
  if (not_kernels.empty()) return;
  md_ += fmt::format("### Not the kernels' failures ({})\n\n", not_kernels.size());
  md_ += "`env_error`: the cause lay outside the configuration (a worker killed from outside or stopped, no room "
         "for the compiler, a lost device); a resumed run measures these again. `harness_error`: the tool itself "
         "failed on the configuration. Neither counts against a variant above.\n\n";
  Table ex({{"status"}, {"variant"}, {"device"}, {"problem"}, {"configuration"}, {"first line of the log"}});
  for (const ResultRow* r : not_kernels)
    ex.add({to_string(r->result.status), variant_label(r->variant), labels_.at(device_key(r->device)),
            r->problem.label(), brief_or_dash(r->config), first_line(r->result)});
  md_ += ex.markdown() + "\n";
}

void FamilyReport::how_to_read() {
  std::set<std::size_t> runs;
  for (const ResultRow* r : rows_)
    if (r->result.status == Status::ok && !r->result.kernel_ms.empty()) runs.insert(r->result.kernel_ms.size());
  std::string medians = "medians of each configuration's timed kernel runs";
  if (runs.size() == 1) medians = fmt::format("medians of {} timed kernel runs", *runs.begin());
  if (runs.size() > 1) medians = fmt::format("medians of {} to {} timed kernel runs", *runs.begin(), *runs.rbegin());
  md_ += "## How to read this\n\n";
  md_ += fmt::format(
      "Times are {} (min and stddev over the same runs). Every ok row was validated against the serial CPU "
      "reference, exactly. GB/s counts the problem's minimum traffic (each input read once, the output written "
      "once); % of bandwidth divides it by the copy-kernel bandwidth measured on the same device (backend, name "
      "and driver), {} where none is stored. Baselines are the serial reference and library "
      "implementations.\n\nThe summary's winner is the fastest tuned configuration of each problem on each device. "
      "Where the store has confirmation-stage rows (the top configurations and the baselines re-measured in one "
      "interleaved series) those decide, and the summary says \"confirmed\"; the tables below rank the search "
      "stage. The 95% interval is that of the median; two configurations whose intervals overlap, or whose "
      "medians are within {:g}% of each other (the tool's run-to-run resolution) or within how far either one's "
      "median moved between the confirmation stage's sessions, are tied, and "
      "rows measured before intervals were stored are never called tied. A ratio to a baseline divides the "
      "baseline's median by the winner's; the plots of the top configurations draw the intervals as error "
      "bars and the baselines as bars of their own.\n",
      medians, kDash, kTieResolution * 100);
  // Libraries validated against a documented rule of their own (e.g. NPP's division toward zero).
  std::set<std::string> ruled;
  for (const ResultRow* r : rows_) {
    const std::string& v = r->result.validation;
    if (r->result.status == Status::ok && v.find("(rule ") != std::string::npos)
      ruled.insert(fmt::format("{} ({})", r->variant.name, v.substr(v.find("(rule ") + 1, v.size() - v.find("(rule ") - 2)));
  }
  if (!ruled.empty()) {
    std::string list;
    for (const auto& x : ruled) list += (list.empty() ? "" : ", ") + x;
    md_ += fmt::format("\nValidated exactly against their library's own documented rounding instead of the family's: {}.\n",
                       md_escape(list));
  }
}

}  // namespace

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
