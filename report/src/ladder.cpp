// The report's ladder section (docs/spaces.md "ladder"): per ladder and problem, each step's median
// time with its 95% interval, its speed-up over the step before it and over the first, and the timing
// method, from the stored ladder rows alone.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "metrics.hpp"
#include "pimg/report.hpp"
#include "table.hpp"

namespace pimg {

using namespace report_detail;

std::string ladder_section(const std::vector<LadderRow>& rows, const std::string& family) {
  // (ladder, problem) -> rows in step order; a step measured on several devices is one line per device.
  std::map<std::pair<std::string, std::string>, std::vector<const LadderRow*>> groups;
  std::map<std::pair<std::string, std::string>, Problem> problems;
  for (const LadderRow& l : rows) {
    if (!family.empty() && l.row.problem.family != family) continue;
    const auto key = std::make_pair(l.ladder, l.row.problem.canonical());
    groups[key].push_back(&l);
    problems.emplace(key, l.row.problem);
  }
  if (groups.empty()) return "";
  std::string md = "## Ladders\n\n"
                   "Each step of an optimisation ladder named by the space file, measured together with the other "
                   "steps on its device by the confirmation stage's method (interleaved rounds). Speed-ups are the "
                   "previous line's and the first line's median over this line's; a failed step has none.\n\n";
  // Each ladder's problems from the smallest image up (not in the order of their canonical strings).
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& g : groups) order.push_back(g.first);
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    const Problem &pa = problems.at(a), &pb = problems.at(b);
    return std::make_tuple(a.first, std::int64_t{pa.width} * pa.height, a.second) <
           std::make_tuple(b.first, std::int64_t{pb.width} * pb.height, b.second);
  });
  for (const auto& key : order) {
    std::vector<const LadderRow*>& steps = groups.at(key);
    std::stable_sort(steps.begin(), steps.end(), [](const LadderRow* a, const LadderRow* b) {
      return std::make_tuple(a->seq, device_label(a->row.device)) < std::make_tuple(b->seq, device_label(b->row.device));
    });
    md += fmt::format("### Ladder {}: {}\n\n", md_escape(key.first), md_escape(problems.at(key).label()));
    const int images = images_of(problems.at(key));  // a batch of images per run: the time per image too
    std::vector<Table::Column> columns = {{"#"}, {"step"}, {"device"}, {"variant"}, {"configuration"},
                                          {"median ms", Table::Align::right}};
    if (images > 1) columns.push_back({fmt::format("ms per image (/{})", images), Table::Align::right});
    for (const char* c : {"95% interval ms", "vs previous", "vs first"}) columns.push_back({c, Table::Align::right});
    columns.push_back({"method"});
    Table t(columns);
    std::optional<double> first, previous;
    for (const LadderRow* l : steps) {
      const EvalResult& r = l->row.result;
      const bool ok = r.status == Status::ok && r.kernel.median > 0;
      std::string time = ok ? fmt_ms(r.kernel.median) : std::string(to_string(r.status));
      std::string interval = ok && r.ci_high_ms > 0
                                 ? fmt::format("{} \u2013 {}", fmt_ms(r.ci_low_ms), fmt_ms(r.ci_high_ms))
                                 : std::string(kDash);
      std::string vs_prev = ok && previous ? fmt_speedup(*previous / r.kernel.median) : std::string(kDash);
      std::string vs_first = ok && first ? fmt_speedup(*first / r.kernel.median) : std::string(kDash);
      std::vector<std::string> cells = {std::to_string(l->seq + 1), l->step, device_label(l->row.device),
                                        l->row.variant.name, brief_or_dash(l->row.config), time};
      if (images > 1) cells.push_back(ok ? fmt_ms(r.kernel.median / images) : std::string(kDash));
      for (const std::string& c : {interval, vs_prev, vs_first, r.method.empty() ? std::string(kDash) : r.method})
        cells.push_back(c);
      t.add(std::move(cells));
      if (ok) {
        if (!first) first = r.kernel.median;
        previous = r.kernel.median;
      } else {
        previous.reset();
      }
    }
    md += t.markdown() + "\n";
  }
  return md;
}

}  // namespace pimg
