// Meta-tuning by replay: a grid over a strategy's options, each combination scored by the mean
// fraction of the optimum at the fixed budgets over seeds and stored spaces (see metatune.hpp).
#include "pimg/metatune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "pimg/errors.hpp"

namespace pimg {

OptionGrid parse_option_grid(const std::vector<std::string>& items, const StrategyInfo& strategy) {
  OptionGrid grid;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw UsageError(fmt::format("--grid {}: expected OPTION=V1,V2,...", item));
    const std::string name = item.substr(0, eq);
    if (grid.count(name)) throw UsageError(fmt::format("--grid {}: option '{}' given twice", item, name));
    auto& values = grid[name];
    for (std::size_t start = eq + 1;;) {
      const auto comma = item.find(',', start);
      const std::string v = item.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      try {
        resolve_options(strategy, {{name, v}});
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("--grid {}: {}", item, e.what()));
      }
      values.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return grid;
}

std::vector<MetaTuneEntry> meta_tune(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                     const std::string& strategy, const OptionGrid& grid, std::size_t seeds,
                                     std::size_t first_seed) {
  const StrategyInfo* info = reg.strategy(strategy);
  if (!info) throw UsageError(fmt::format("--meta-tune {}: unknown strategy", strategy));
  const std::string& name = info->name;  // `default`: the strategy it stands for
  if (spaces.empty()) throw UsageError("--meta-tune: no stored space to replay");
  // The combinations in odometer order over the grid's options (last option fastest).
  std::vector<std::map<std::string, std::string>> combos{{}};
  for (const auto& [name, values] : grid) {
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& c : combos)
      for (const auto& v : values) {
        auto d = c;
        d[name] = v;
        next.push_back(std::move(d));
      }
    combos = std::move(next);
  }
  const std::size_t cap = *std::max_element(std::begin(kReplayBudgets), std::end(kReplayBudgets));
  std::vector<MetaTuneEntry> out;
  for (const auto& c : combos) {
    MetaTuneEntry e;
    e.options = c;
    std::vector<double> sum(std::size(kReplayBudgets), 0);
    std::vector<std::size_t> count(sum.size(), 0);
    for (const auto& cmp : compare_strategies(spaces, reg, seeds, {name}, {{name, c}}, cap, first_seed))
      for (const auto& sc : cmp.scores) {
        if (sc.strategy != name) continue;  // the random baseline every comparison replays
        for (const auto& b : sc.budgets)
          for (std::size_t k = 0; k < sum.size(); ++k)
            if (b.label == std::to_string(kReplayBudgets[k])) sum[k] += b.mean, ++count[k];
      }
    double total = 0;
    std::size_t n = 0;
    for (std::size_t k = 0; k < sum.size(); ++k)
      if (count[k]) {
        e.budget_means.push_back(sum[k] / static_cast<double>(count[k]));
        total += e.budget_means.back();
        ++n;
      }
    e.score = n ? total / static_cast<double>(n) : 0;
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(), [](const MetaTuneEntry& a, const MetaTuneEntry& b) { return a.score > b.score; });
  return out;
}

std::string meta_tune_table(const std::string& strategy, const std::vector<MetaTuneEntry>& entries) {
  auto options_text = [](const std::map<std::string, std::string>& o, const char* sep) {
    std::string s;
    for (const auto& [k, v] : o) s += fmt::format("{}{}{}{}", s.empty() ? "" : ", ", k, sep, v);
    return s.empty() ? std::string("(defaults)") : s;
  };
  std::string text = fmt::format("meta-tuning {}: mean fraction of the optimum over the budgets and spaces\n", strategy);
  text += fmt::format("  {:>8}", "score");
  for (std::size_t b : kReplayBudgets) text += fmt::format("  {:>6}", b);
  text += "  options\n";
  for (const auto& e : entries) {
    text += fmt::format("  {:>8.4f}", e.score);
    for (std::size_t k = 0; k < std::size(kReplayBudgets); ++k)
      text += k < e.budget_means.size() ? fmt::format("  {:>6.3f}", e.budget_means[k]) : fmt::format("  {:>6}", "-");
    text += "  " + options_text(e.options, "=") + "\n";
  }
  if (!entries.empty())
    text += fmt::format("best, as a space file's strategy: {{name: {}, options: {{{}}}}}\n", strategy,
                        entries.front().options.empty() ? std::string() : options_text(entries.front().options, ": "));
  return text;
}

}  // namespace pimg
