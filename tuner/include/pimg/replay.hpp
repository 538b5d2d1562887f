// Replay ("simulation mode"): strategies run against the stored results of an exhaustive run, with
// no device. The space of a replay is one device and one problem with every tuned variant of that
// device's backend combined: points are the stored configurations tagged with a `variant`
// parameter; a point's cost is its time by the replay's objective (by default the one its writer
// ranked by: an imported file's own time, else the median of the runs), and a failed configuration
// costs an evaluation and gives no value; each evaluation also takes its stored tuning time (compile,
// framework, validation and runs), so runs are measured over evaluations and over tuning time.
// compare_strategies() is what `pimg-tune strategies` prints; docs/strategies.md defines its metrics.
#pragma once
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/search_space.hpp"
#include "pimg/store.hpp"
#include "pimg/strategy.hpp"

namespace pimg {

// What a replayed point costs: the time its writer ranked it by (writer_objective_ms(), else the
// median of the runs), or the median of the runs.
enum class ReplayObjective { writer, median };

struct ReplayOptions {
  ReplayObjective objective = ReplayObjective::writer;
  // Other devices' and problems' stored results as priors; off, a replay knows only its own space.
  bool transfer = false;
};

struct ReplaySpace {
  DeviceInfo device;
  Problem problem;
  SearchSpace space;               // parameter `variant`, then every parameter of any variant
  std::vector<double> cost;        // per point: stored ms by the objective, +infinity for a failure
  std::vector<double> eval_ms;     // per point: the tuning time its evaluation took (stored eval_ms)
  double optimum_ms = 0;           // the best cost
  std::string objective;           // what the cost is, in words ("the writer's: imported time", ...)
  std::vector<PriorResult> priors; // with transfer: the same variants on the family's other devices and problems
  std::string label() const;       // "backend:device, problem"
};

// One replay space per (device, problem) that has ok rows of tuned (non-baseline) variants; value
// lists are the stored values in ascending order. The writer's objective is read from the rows'
// metrics: give rows with them (Store::add_metrics).
std::vector<ReplaySpace> replay_spaces(const std::vector<ResultRow>& rows, const ReplayOptions& options = {});

struct ReplayRun {
  std::vector<double> best;     // best cost found after each evaluation (+infinity before any ok)
  std::vector<double> time_ms;  // tuning time spent after each evaluation (sum of the points' eval_ms)
};

// Asks and tells until the strategy is done or `max_evals` evaluations were made; before that, once
// at least `min_evals` evaluations and `min_time_ms` of tuning time are spent, stops as soon as the
// best found is at or below `stop_at`.
ReplayRun replay(const ReplaySpace& s, Strategy& strategy, std::size_t max_evals,
                 double stop_at = -std::numeric_limits<double>::infinity(), std::size_t min_evals = 0,
                 double min_time_ms = 0);

// The fixed evaluation budgets every comparison reports, then these shares of the space.
inline constexpr std::size_t kReplayBudgets[] = {25, 50, 100, 200, 400};
inline constexpr double kReplayShares[] = {0.01, 0.02, 0.05, 0.10};

struct BudgetScore {
  std::string label;            // "25", "1%"
  std::size_t evaluations = 0;
  double mean = 0, sd = 0;      // fraction of the optimum (optimum / best found; 0 before any ok) over seeds
  double worst = 0, p10 = 0;    // the worst seed's fraction and the 10th percentile's (the ceil(n/10)-th worst)
  std::size_t found_optimum = 0;  // seeds whose best found by then is the optimum
};

struct TimeScore {
  double mean = 0, low = 0, high = 0;  // the methodology's score P and its 95% bootstrap interval
};

struct StrategyScore {
  std::string strategy;
  std::optional<double> median_to_5pct, median_to_1pct;  // evaluations; nullopt: most seeds never got there
  std::size_t reached_5pct = 0, reached_1pct = 0;        // seeds that got there
  std::optional<double> vs_random;                       // random's median to 5% / this one's
  std::vector<double> median_curve;  // median over seeds of best / optimum after 1, 2, ... evaluations
  std::vector<double> mean_fraction;  // mean over seeds of the fraction of the optimum after 1, 2, ... evaluations
  std::vector<BudgetScore> budgets;   // kReplayBudgets then kReplayShares (budgets beyond the space left out)
  std::vector<double> time_fraction;  // mean fraction of the optimum at time_points of the comparison
  std::optional<TimeScore> time_score;  // nullopt without random search in the comparison
};

struct ReplayComparison {
  std::string label;
  std::size_t points = 0, ok_points = 0;
  double optimum_ms = 0;
  std::string objective;            // the space's
  std::vector<std::string> priors;  // prior_groups() of the space's priors (empty: none used)
  std::size_t seeds = 0, first_seed = 1;  // seeds first_seed..first_seed+seeds-1
  double time_budget_ms = 0;        // the time budget of the time-based score (see compare_strategies)
  std::vector<double> time_points;  // where the time curves are sampled, ms (up to the time budget)
  std::vector<StrategyScore> scores;
};

// Overrides of strategy options by strategy name (meta-tuning replays options over the spaces).
using StrategyOptionOverrides = std::map<std::string, std::map<std::string, std::string>>;
// Parses "STRATEGY.OPTION=VALUE" items, checked against the strategies' declarations; throws
// UsageError naming the item.
StrategyOptionOverrides parse_option_overrides(const std::vector<std::string>& items, const Registry& reg);

// Every named strategy (all registered ones when empty) over seeds first_seed..first_seed+seeds-1
// (so options chosen on some seeds can be checked on others) on each space, with its
// default options (or `overrides`) except an evaluation budget of the whole space, no wall-time
// limit and no plateau stop. A run goes on at least to the largest reported budget and to the time
// budget, then stops once within 1% of the optimum; its curves hold its last best afterwards.
// `max_evals` > 0 ends every run there, whatever the rule above says.
// The time budget is the time random search needs, in the mean over its runs, to get within 5% of
// the way from the space's median ok time to the optimum (the methodology's cutoff of 0.95).
std::vector<ReplayComparison> compare_strategies(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                                 std::size_t seeds, const std::vector<std::string>& names = {},
                                                 const StrategyOptionOverrides& overrides = {},
                                                 std::size_t max_evals = 0, std::size_t first_seed = 1);

}  // namespace pimg
