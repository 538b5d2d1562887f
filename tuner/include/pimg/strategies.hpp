// The built-in strategies; tuner/app/registry_builtin.cpp registers each.
#pragma once
#include "pimg/strategy.hpp"

namespace pimg {
StrategyInfo exhaustive_strategy();
StrategyInfo random_strategy();
}  // namespace pimg
