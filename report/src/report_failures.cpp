// `pimg-tune report`, the closing sections of a family: the failures by status with examples of their logs,
// and how to read the report.
#include "pimg/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
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

// Wrong results that wrote the same output (kOutputHashMetric) of one variant, problem and device, two or more:
// they agree with one another and not with the reference, which points at the reference or the inputs as much as
// at the kernel (a T1 file whose inputs give two layouts different data). Each group is said with the parameter
// values all of it has and no passing configuration of its problem has.
std::string same_wrong_outputs(const std::vector<const ResultRow*>& wrong, const std::vector<const ResultRow*>& all,
                               const std::function<std::string(const ResultRow&)>& where) {
  using Key = std::tuple<std::string, std::string, DeviceKey, double>;
  std::map<Key, std::vector<const ResultRow*>> groups;
  for (const ResultRow* r : wrong)
    for (const Metric& m : r->result.metrics)
      if (m.name == kOutputHashMetric)
        groups[{r->variant.name + "\n" + r->variant.backend, r->problem.canonical(), device_key(r->device), m.value}].push_back(r);
  std::string out;
  for (const auto& group : groups) {  // no structured bindings: the lambdas below capture them (clang 14)
    const Key& key = group.first;
    const std::vector<const ResultRow*>& rows = group.second;
    if (rows.size() < 2) continue;
    std::vector<std::string> shared;
    for (const auto& parameter : rows.front()->config.values()) {
      const std::string& name = parameter.first;
      const Value& value = parameter.second;
      const bool all_have = std::all_of(rows.begin(), rows.end(), [&](const ResultRow* r) {
        return r->config.has(name) && r->config.at(name) == value;
      });
      const bool passes_have = std::any_of(all.begin(), all.end(), [&](const ResultRow* r) {
        return r->result.status == Status::ok && r->variant.name == rows.front()->variant.name &&
               r->problem == rows.front()->problem && device_key(r->device) == std::get<2>(key) && r->config.has(name) &&
               r->config.at(name) == value;
      });
      if (all_have && !passes_have) shared.push_back(name + "=" + to_string(value));
    }
    out += fmt::format("- {} wrong results of {} wrote one and the same output: they agree with one another, not with "
                       "the reference, so the reference or the inputs may be what differs, not the kernel.{}\n",
                       rows.size(), where(*rows.front()),
                       shared.empty() ? std::string()
                                      : fmt::format(" All of them have {}, which no passing configuration has.",
                                                    fmt::join(shared, ", ")));
  }
  return out.empty() ? out : out + "\n";
}

}  // namespace

namespace report_detail {

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
    if (s == Status::wrong_result)
      md_ += same_wrong_outputs(rows, rows_, [&](const ResultRow& r) {
        return fmt::format("{} on {} ({})", variant_label(r.variant), labels_.at(device_key(r.device)),
                           problem_labels_.brief(r.problem));
      });
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
      "and driver), or for a problem that writes at most 1/64 of what it reads (a histogram) by the read ceiling, "
      "its input read once, {} where none is stored; a share above 100% is marked \"(over the copy)\": an error for a "
      "kernel that writes as much as it reads, possible for one that reads more than it writes, whose bytes cost "
      "the memory less than a copy's. Baselines are the serial reference and library "
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

}  // namespace report_detail
}  // namespace pimg
