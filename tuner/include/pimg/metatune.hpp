// Meta-tuning: a strategy's options chosen by replay. Every combination of a small grid of option
// values is replayed over seeds on stored spaces and scored by the mean fraction of the optimum over
// the fixed budgets (25..400 evaluations) and the spaces; `pimg-tune strategies --meta-tune` prints
// the ranking and the best options as a space file's strategy entry (docs/strategies.md).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "pimg/replay.hpp"

namespace pimg {

// Option name -> the values to try, in order.
using OptionGrid = std::map<std::string, std::vector<std::string>>;

// Parses "OPTION=V1,V2,..." items for `strategy`, each value checked against its declaration;
// throws UsageError naming the item.
OptionGrid parse_option_grid(const std::vector<std::string>& items, const StrategyInfo& strategy);

struct MetaTuneEntry {
  std::map<std::string, std::string> options;  // the grid's values of this combination
  std::vector<double> budget_means;             // mean fraction per budget of kReplayBudgets, over the spaces
  double score = 0;                             // mean of budget_means
};

// Every combination of `grid` (the defaults where the grid is empty), best score first (ties keep
// the grid's order). Runs end at the largest budget; budgets beyond a space's size are left out.
// Seeds first_seed..first_seed+seeds-1.
std::vector<MetaTuneEntry> meta_tune(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                     const std::string& strategy, const OptionGrid& grid, std::size_t seeds,
                                     std::size_t first_seed = 1);

// The ranking as text, and the best combination as the strategy entry of a space file.
std::string meta_tune_table(const std::string& strategy, const std::vector<MetaTuneEntry>& entries);

}  // namespace pimg
