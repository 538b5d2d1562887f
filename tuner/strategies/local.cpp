// Greedy local search with restarts: from a random point, try its unvisited neighbours in random
// order and move to the first better one; at a local optimum, restart at a random point.
#include <vector>

#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class LocalSearch final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

 private:
  std::optional<PointId> propose() override {
    while (current_ && !untried_.empty()) {
      const PointId p = untried_.back();
      untried_.pop_back();
      if (!visited(p)) return p;
    }
    current_.reset();  // a local optimum (or a start): restart where the base samples
    return std::nullopt;
  }
  void learn(PointId p, double cost) override {
    if (current_ && cost >= current_cost_) return;
    current_ = p;
    current_cost_ = cost;
    untried_.clear();
    space_.neighbours(p, untried_);
    for (std::size_t i = untried_.size(); i > 1; --i) std::swap(untried_[i - 1], untried_[rng_.below(i)]);
  }

  std::optional<PointId> current_;
  double current_cost_ = kFailed;
  std::vector<PointId> untried_;
};

}  // namespace

StrategyInfo local_strategy() {
  return {"local", "greedy local search (first improvement over neighbours) with random restarts", budget_options(),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<LocalSearch>(space, o, seed);
          }};
}

}  // namespace pimg
