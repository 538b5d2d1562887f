// The built-in strategies; tuner/app/registry_builtin.cpp registers each.
#pragma once
#include "pimg/strategy.hpp"

namespace pimg {
StrategyInfo exhaustive_strategy();
StrategyInfo random_strategy();
StrategyInfo annealing_strategy();
StrategyInfo genetic_strategy();
StrategyInfo diffevo_strategy();
StrategyInfo local_strategy();
StrategyInfo forest_strategy();
StrategyInfo gp_strategy();
StrategyInfo portfolio_strategy();
}  // namespace pimg
