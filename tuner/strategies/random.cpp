// Random sampling without replacement: uniformly random unvisited points until the budget is spent,
// reproducible from the seed.
#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class RandomSampling final : public SearchStrategy {
 public:
  using SearchStrategy::SearchStrategy;

  // Its asks are its draws: the budget's remaining ones, known before any outcome.
  std::vector<PointId> ahead() const override {
    return random_unvisited_ahead(planned() > evaluations() ? planned() - evaluations() : 0);
  }

 private:
  std::optional<PointId> propose() override { return random_unvisited(); }
  void learn(PointId, double) override {}
};

}  // namespace

StrategyInfo random_strategy() {
  return {"random", "uniform random sample of the valid configurations, without replacement", budget_options(),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<RandomSampling>(space, o, seed);
          }};
}

}  // namespace pimg
