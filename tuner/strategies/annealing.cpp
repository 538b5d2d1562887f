// Simulated annealing: a walk over constraint-aware neighbours that accepts a worse point with
// probability exp(-ln(t_new / t_current) / T), T cooling geometrically from t_start to t_end over
// the budget; a point with no unvisited neighbour restarts the walk at a random point.
#include <cmath>

#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class Annealing final : public SearchStrategy {
 public:
  Annealing(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed), t_start_(std::stod(o.at("t_start"))), t_end_(std::stod(o.at("t_end"))) {}

 private:
  std::optional<PointId> propose() override {
    if (!current_) return std::nullopt;
    auto n = random_unvisited_neighbour(*current_);
    if (!n) current_.reset();  // stuck: restart where the base samples
    return n;
  }
  void learn(PointId p, double cost) override {
    if (!current_ || cost <= current_cost_) {
      current_ = p;
      current_cost_ = cost;
      return;
    }
    if (cost == kFailed) return;
    const double progress = static_cast<double>(evaluations()) / static_cast<double>(budget().evaluations);
    const double t = t_start_ * std::pow(t_end_ / t_start_, progress);
    if (rng_.chance(std::exp(-std::log(cost / current_cost_) / t))) {
      current_ = p;
      current_cost_ = cost;
    }
  }

  double t_start_, t_end_;
  std::optional<PointId> current_;
  double current_cost_ = kFailed;
};

}  // namespace

StrategyInfo annealing_strategy() {
  using T = OptionDecl::Type;
  return {"annealing", "simulated annealing over neighbouring configurations, random restarts when stuck",
          with_budget_options({{T::Real, "t_start", "0.5", "initial temperature (log-time units)", 1e-6, std::nullopt},
                               {T::Real, "t_end", "0.01", "final temperature (log-time units)", 1e-9, std::nullopt}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<Annealing>(space, o, seed);
          }};
}

}  // namespace pimg
