// Where each run's time went, per device: the stored evaluations summed by stage (the search's by the
// runner's wall time of each configuration, raced or not; the interleaved stages by each problem's stage
// time; whole programs by each child's), and the rest of the device's span between stored timestamps.
#include "time_spent.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "metrics.hpp"
#include "table.hpp"

namespace pimg::report_detail {
namespace {

struct SpentPart {
  std::size_t count = 0;  // evaluations (interleaved stages: problems)
  double ms = 0;
};

struct DeviceSpent {
  DeviceInfo device;
  SpentPart contenders, raced, confirm, other, cold;  // other: ladders and any further stage
  std::map<std::pair<std::string, std::int64_t>, double> interleaved;  // (stage, problem) -> its longest row
  std::optional<double> last_s;                                        // the last stored evaluation
  std::optional<double> span_s;                                        // from its start to last_s
  double measured_ms() const { return contenders.ms + raced.ms + confirm.ms + other.ms + cold.ms; }
};

// The devices of one run in the order they first stored an evaluation (the runner opens one at a time).
std::vector<DeviceSpent> spent_by_device(const std::vector<EvaluationTime>& times, std::int64_t run,
                                         std::optional<double> run_start) {
  std::vector<DeviceSpent> out;
  std::map<DeviceKey, std::size_t> index;
  for (const EvaluationTime& t : times) {
    if (t.run_id != run) continue;
    auto [it, added] = index.try_emplace(device_key(t.device), out.size());
    if (added) {
      out.emplace_back();
      out.back().device = t.device;
    }
    DeviceSpent& d = out[it->second];
    if (t.stage == "search") {
      SpentPart& p = t.raced ? d.raced : d.contenders;
      ++p.count;
      p.ms += t.wall_ms.value_or(t.eval_ms);
    } else if (t.stage == "cold") {
      ++d.cold.count;
      d.cold.ms += t.eval_ms;
    } else {  // every row of one interleaved series carries the series' time
      double& longest = d.interleaved[{t.stage, t.problem_id}];
      longest = std::max(longest, t.eval_ms);
    }
    if (const auto at = iso_epoch(t.created_at); at && (!d.last_s || *at > *d.last_s)) d.last_s = at;
  }
  std::optional<double> begin = run_start;
  for (DeviceSpent& d : out) {
    for (const auto& [key, ms] : d.interleaved) {
      SpentPart& p = key.first == "confirm" ? d.confirm : d.other;
      ++p.count;
      p.ms += ms;
    }
    if (begin && d.last_s && *d.last_s >= *begin) d.span_s = *d.last_s - *begin;
    begin = d.last_s;
  }
  return out;
}

// "80.1 s · 14%": seconds and share of `whole_ms`.
std::string seconds_share(double ms, double whole_ms) {
  const std::string share = whole_ms > 0 ? fmt::format(" · {:.0f}%", 100 * ms / whole_ms) : "";
  return fmt::format("{:.1f} s{}", ms / 1000, share);
}

// "1462 · 80.1 s · 14%": count, seconds and share; a dash for an empty part.
std::string spent_cell(const SpentPart& p, double whole_ms) {
  return p.count == 0 ? std::string(kDash) : fmt::format("{} · {}", p.count, seconds_share(p.ms, whole_ms));
}

// What the race saved by estimate: the dropped configurations, had each run as long as a contender did on
// average. "" where it dropped none.
std::string race_saving(std::int64_t run, const std::string& device, const DeviceSpent& d) {
  if (d.raced.count == 0 || d.contenders.count == 0) return "";
  const double raced_s = d.raced.ms / 1000 / static_cast<double>(d.raced.count);
  const double contender_s = d.contenders.ms / 1000 / static_cast<double>(d.contenders.count);
  const double saved_s = (contender_s - raced_s) * static_cast<double>(d.raced.count);
  return fmt::format("- Run {} on {}: the race stopped {} of {} search configurations after {:.2f} s each on average, "
                     "where a contender took {:.2f} s{}.\n",
                     run, md_escape(device), d.raced.count, d.raced.count + d.contenders.count, raced_s, contender_s,
                     saved_s >= 0.05 ? fmt::format("; measured as long, they would have cost about {:.1f} s more", saved_s)
                                     : std::string(": here set-up, not measurement, made each configuration's time"));
}

}  // namespace

std::string time_spent_section(const std::vector<EvaluationTime>& times, const std::vector<RunRecord>& runs,
                               const std::set<std::int64_t>& run_ids,
                               const std::function<std::string(const DeviceInfo&)>& device_name) {
  std::map<std::int64_t, std::optional<double>> starts;
  for (const RunRecord& r : runs) starts[r.id] = iso_epoch(r.info.started_at);
  bool any_other = false, overlapped = false;
  std::vector<std::pair<std::int64_t, std::vector<DeviceSpent>>> per_run;
  for (std::int64_t run : run_ids) {
    auto devices = spent_by_device(times, run, starts.count(run) ? starts[run] : std::nullopt);
    for (const DeviceSpent& d : devices) any_other = any_other || d.other.count > 0;
    if (!devices.empty()) per_run.emplace_back(run, std::move(devices));
  }
  if (per_run.empty()) return "";
  std::vector<Table::Column> columns{{"run", Table::Align::right}, {"device"}, {"span", Table::Align::right},
                                     {"contenders", Table::Align::right}, {"dropped by the race", Table::Align::right},
                                     {"confirmation", Table::Align::right}};
  if (any_other) columns.push_back({"ladders", Table::Align::right});
  for (const char* c : {"whole programs", "set-up and the rest"}) columns.push_back({c, Table::Align::right});
  Table t(std::move(columns));
  std::string savings;
  for (const auto& [run, devices] : per_run)
    for (const DeviceSpent& d : devices) {
      const double measured = d.measured_ms();
      const double span_ms = d.span_s.value_or(0) * 1000, rest_ms = span_ms - measured;
      const bool fits = d.span_s && rest_ms >= 0;
      overlapped = overlapped || (d.span_s && rest_ms < 0);
      const double whole = fits ? span_ms : measured;
      std::vector<std::string> cells{std::to_string(run), device_name(d.device),
                                     d.span_s ? fmt::format("{:.1f} s", *d.span_s) : kDash,
                                     spent_cell(d.contenders, whole), spent_cell(d.raced, whole),
                                     spent_cell(d.confirm, whole)};
      if (any_other) cells.push_back(spent_cell(d.other, whole));
      cells.push_back(spent_cell(d.cold, whole));
      cells.push_back(fits ? seconds_share(rest_ms, whole) : kDash);
      t.add(std::move(cells));
      savings += race_saving(run, device_name(d.device), d);
    }
  std::string out = "### Time per run and device\n\n" + t.markdown() + "\n";
  out += fmt::format(
      "Each part is a count, its seconds and its share of the span (of the parts together where the span is not "
      "known). The span runs from the run's start (to the second) or the previous device's last stored evaluation "
      "to this device's last; the store keeps no end of a run, so what follows the last evaluation (pictures, the "
      "report) and what precedes the run's start (inputs and references) are not in it. Contenders and the "
      "configurations the race dropped (flag `raced`) count the runner's wall time of each search evaluation "
      "(compile wait, worker round trip, the tuner's own work; the evaluation's own time in older stores); the "
      "confirmation stage{} counts problems and each one's interleaved series in all sessions; whole programs count "
      "each child process. Set-up and the rest is the span less the parts: ceilings, sessions opened, compiles "
      "before a configuration's measurement, the tuner between stages.{}\n\n",
      any_other ? " and ladders" : "",
      overlapped ? fmt::format(" Where the parts add up to more than the span ({}), evaluations overlapped: several "
                               "processes stored into one run.",
                               kDash)
                 : "");
  if (!savings.empty()) out += savings + "\n";
  return out;
}

}  // namespace pimg::report_detail
