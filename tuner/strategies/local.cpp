// Greedy local search with restarts: from a random point, try its unvisited neighbours in random
// order and move to the first better one; at a local optimum, restart at a random point, or (with
// `restart` 1) at the best evaluated point not yet searched around. Neighbours differ in one
// parameter by one step, or (with `any_value` 1) by any value of that parameter.
#include <algorithm>
#include <string>
#include <vector>

#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class LocalSearch final : public SearchStrategy {
 public:
  LocalSearch(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed), any_value_(std::stoi(o.at("any_value")) == 1),
        restart_best_(std::stoi(o.at("restart")) == 1) {}

 private:
  std::optional<PointId> propose() override {
    for (;;) {
      while (current_ && !untried_.empty()) {
        const PointId p = untried_.back();
        untried_.pop_back();
        if (!visited(p)) return p;
      }
      if (current_ && restart_best_) centres_.push_back(*current_);  // searched around to the end
      current_.reset();  // a local optimum (or a start)
      if (!restart_best_ || !restart_at_best()) return std::nullopt;  // restart where the base samples
    }
  }

  void learn(PointId p, double cost) override {
    if (restart_best_) seen_.push_back({cost, p});
    if (current_ && cost >= current_cost_) return;
    move_to(p, cost);
  }

  void move_to(PointId p, double cost) {
    current_ = p;
    current_cost_ = cost;
    untried_.clear();
    if (any_value_)
      any_value_neighbours(p, untried_);
    else
      space_.neighbours(p, untried_);
    for (std::size_t i = untried_.size(); i > 1; --i) std::swap(untried_[i - 1], untried_[rng_.below(i)]);
  }

  // The best ok point evaluated so far not yet searched around to the end (nor restarted at)
  // becomes the centre; false when there is none.
  bool restart_at_best() {
    std::sort(seen_.begin(), seen_.end());
    for (const auto& [cost, p] : seen_) {
      if (cost == kFailed) break;
      if (std::find(centres_.begin(), centres_.end(), p) == centres_.end()) {
        centres_.push_back(p);
        move_to(p, cost);
        return true;
      }
    }
    return false;
  }

  bool any_value_, restart_best_;
  std::optional<PointId> current_;
  double current_cost_ = kFailed;
  std::vector<PointId> untried_, centres_;  // centres_: searched around, or restarted at
  std::vector<std::pair<double, PointId>> seen_;
};

}  // namespace

StrategyInfo local_strategy() {
  using T = OptionDecl::Type;
  return {"local",
          "greedy local search (first improvement over neighbours) with restarts at a random point or at the best "
          "point not yet searched around",
          with_budget_options({{T::Int, "any_value", "0", "1: a neighbour may take any value of one parameter, 0: the next one", 0, 1},
                               {T::Int, "restart", "0", "at a local optimum restart at 0: a random point, 1: the best point not yet searched around", 0, 1}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<LocalSearch>(space, o, seed);
          }};
}

}  // namespace pimg
