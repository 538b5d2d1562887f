// The screen of `pimg-tune watch`: progress, best so far and failures of one run, from stored rows.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <map>

#include "metrics.hpp"
#include "pimg/ranking.hpp"
#include "pimg/report.hpp"
#include "table.hpp"

namespace pimg {
namespace {

using namespace report_detail;

constexpr std::size_t kLatestFailures = 5;

std::string seconds_text(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

}  // namespace

std::string watch_screen(const RunRecord& run, const std::vector<ResultRow>& rows, const std::string& now_utc) {
  std::string out = fmt::format("run {} on {}, started {}\n  {}\n\n", run.id, run.info.host, run.info.started_at,
                                run.info.command_line);
  std::size_t ok = 0;
  std::map<std::string, std::size_t> by_status;
  std::string first, last;
  std::vector<const ResultRow*> failures;
  for (const ResultRow* r : sorted_rows(rows)) {
    if (r->result.status == Status::ok)
      ++ok;
    else {
      ++by_status[to_string(r->result.status)];
      failures.push_back(r);
    }
    if (first.empty() || r->created_at < first) first = r->created_at;
    if (last.empty() || r->created_at > last) last = r->created_at;
  }
  out += fmt::format("{} evaluations stored: {} ok, {} failed", rows.size(), ok, rows.size() - ok);
  const auto t0 = iso_epoch(first.empty() ? run.info.started_at : first), t1 = iso_epoch(last), now = iso_epoch(now_utc);
  if (t0 && t1 && *t1 > *t0 && rows.size() > 1)
    out += fmt::format(", {:.1f} per minute", static_cast<double>(rows.size() - 1) / (*t1 - *t0) * 60);
  if (t1 && now) out += fmt::format("; the last {} ago", seconds_text(std::max(0.0, *now - *t1)));
  out += "\n\n";
  const auto rankings = rank_all(rows);
  if (rankings.empty()) {
    out += "No ok configuration yet.\n";
  } else {
    out += "Best so far:\n";
    Table t({{"problem"}, {"device"}, {"variant"}, {"configuration"}, {"median ms", Table::Align::right}, {"vs baselines"}});
    for (const Ranking& k : rankings) {
      std::string vs;
      for (const auto& b : k.baselines)
        vs += fmt::format("{}{} {}", vs.empty() ? "" : ", ", ratio_text(b), b.row->variant.name);
      t.add({k.problem.label(), device_label(k.device), variant_label(k.winner->variant), brief_or_dash(k.winner->config),
             fmt_ms(k.winner->result.kernel.median), vs.empty() ? kDash : vs});
    }
    out += t.text("  ");
  }
  if (!failures.empty()) {
    std::string counts;
    for (const auto& [s, n] : by_status) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, s);
    out += fmt::format("\nFailures: {}; the latest:\n", counts);
    std::stable_sort(failures.begin(), failures.end(),
                     [](const ResultRow* a, const ResultRow* b) { return a->id > b->id; });
    for (std::size_t i = 0; i < std::min(failures.size(), kLatestFailures); ++i) {
      const ResultRow& r = *failures[i];
      std::string line = r.result.log.empty() ? r.result.validation : r.result.log;
      line = line.substr(0, line.find('\n')).substr(0, 100);
      out += fmt::format("  {} {} {} {}: {}\n", to_string(r.result.status), r.variant.name, brief_or_dash(r.config),
                         device_label(r.device), line);
    }
  }
  return out;
}

std::string watch_json(const RunRecord& run, const std::vector<ResultRow>& rows) {
  std::map<std::string, std::size_t> by_status;
  std::vector<const ResultRow*> failures;
  for (const ResultRow* r : sorted_rows(rows)) {
    ++by_status[to_string(r->result.status)];
    if (r->result.status != Status::ok) failures.push_back(r);
  }
  std::string statuses, best, failed;
  for (const auto& [s, n] : by_status) statuses += fmt::format("{}{}:{}", statuses.empty() ? "" : ",", json_string(s), n);
  for (const Ranking& k : rank_all(rows))
    best += fmt::format("{}{{\"problem\":{},\"device\":{},\"variant\":{},\"baseline\":{},\"config\":{},\"median_ms\":{},"
                        "\"confirmed\":{},\"loaded\":{}}}",
                        best.empty() ? "" : ",", json_string(k.problem.label()), json_string(device_label(k.device)),
                        json_string(k.winner->variant.name), k.winner->variant.baseline ? "true" : "false",
                        json_config(k.winner->config), fmt::format("{:.6g}", k.winner->result.kernel.median),
                        k.confirmed ? "true" : "false", k.loaded ? "true" : "false");
  std::stable_sort(failures.begin(), failures.end(), [](const ResultRow* a, const ResultRow* b) { return a->id > b->id; });
  for (std::size_t i = 0; i < std::min(failures.size(), kLatestFailures); ++i) {
    const ResultRow& r = *failures[i];
    const std::string why = r.result.log.empty() ? r.result.validation : r.result.log;
    failed += fmt::format("{}{{\"status\":{},\"variant\":{},\"config\":{},\"device\":{},\"why\":{}}}",
                          failed.empty() ? "" : ",", json_string(to_string(r.result.status)), json_string(r.variant.name),
                          json_config(r.config), json_string(device_label(r.device)),
                          json_string(why.substr(0, why.find('\n')).substr(0, 200)));
  }
  return fmt::format("{{\"run\":{},\"host\":{},\"started_at\":{},\"command\":{},\"evaluations\":{},\"by_status\":{{{}}},"
                     "\"best\":[{}],\"latest_failures\":[{}]}}\n",
                     run.id, json_string(run.info.host), json_string(run.info.started_at),
                     json_string(run.info.command_line), rows.size(), statuses, best, failed);
}

}  // namespace pimg
