// Replay ("simulation mode"): strategies run against the stored results of an exhaustive run, with
// no device. The space of a replay is one device and one problem with every tuned variant of that
// device's backend combined: points are the stored configurations tagged with a `variant`
// parameter; a point's cost is its stored median time, and a failed configuration costs an
// evaluation and gives no value. compare_strategies() is what `pimg-tune strategies` prints.
#pragma once
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/search_space.hpp"
#include "pimg/store.hpp"
#include "pimg/strategy.hpp"

namespace pimg {

struct ReplaySpace {
  DeviceInfo device;
  Problem problem;
  SearchSpace space;               // parameter `variant`, then every parameter of any variant
  std::vector<double> cost;        // per point: stored median ms, +infinity for a failure
  double optimum_ms = 0;           // the best stored median
  std::vector<PriorResult> priors; // the same variants on the family's other devices and problems
  std::string label() const;       // "backend:device, problem"
};

// One replay space per (device, problem) that has ok rows of tuned (non-baseline) variants; value
// lists are the stored values in ascending order.
std::vector<ReplaySpace> replay_spaces(const std::vector<ResultRow>& rows);

struct ReplayRun {
  std::vector<double> best;  // best stored median found after each evaluation (+infinity before any ok)
};

// Asks and tells until the strategy is done, `max_evals` evaluations were made, or a cost at or
// below `stop_at` was found.
ReplayRun replay(const ReplaySpace& s, Strategy& strategy, std::size_t max_evals,
                 double stop_at = -std::numeric_limits<double>::infinity());

struct StrategyScore {
  std::string strategy;
  std::optional<double> median_to_5pct, median_to_1pct;  // evaluations; nullopt: most seeds never got there
  std::size_t reached_5pct = 0, reached_1pct = 0;        // seeds that got there
  std::optional<double> vs_random;                       // random's median to 5% / this one's
  std::vector<double> median_curve;  // median over seeds of best / optimum after 1, 2, ... evaluations
};

struct ReplayComparison {
  std::string label;
  std::size_t points = 0, ok_points = 0;
  double optimum_ms = 0;
  std::size_t seeds = 0;
  std::vector<StrategyScore> scores;
};

// Every named strategy (all registered ones when empty) over seeds 1..seeds on each space, with its
// default options except an evaluation budget of the whole space, no wall-time limit and no plateau
// stop. A run stops once within 1% of the optimum; its curve holds its last best afterwards.
std::vector<ReplayComparison> compare_strategies(const std::vector<ReplaySpace>& spaces, const Registry& reg,
                                                 std::size_t seeds, const std::vector<std::string>& names = {});

}  // namespace pimg
