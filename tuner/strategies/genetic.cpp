// A steady-state genetic algorithm: a population of evaluated points; each child takes two parents
// chosen by binary tournament, uniform crossover of their coordinates, and per-coordinate mutation
// (one step or a random value); the child is repaired to the nearest valid unvisited point and
// replaces the population's worst member when it is better.
#include <algorithm>
#include <vector>

#include "pimg/strategies.hpp"
#include "population.hpp"

namespace pimg {
namespace {

class Genetic final : public PopulationStrategy {
 public:
  Genetic(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : PopulationStrategy(s, o, seed),
        crossover_(std::stod(o.at("crossover"))),
        mutation_(std::stod(o.at("mutation"))) {}

 private:
  std::optional<PointId> propose() override {
    if (filling()) return std::nullopt;  // the first generation is random
    const Member& a = tournament();
    const Member& b = tournament();
    auto pa = space_.point(a.point), pb = space_.point(b.point);
    std::vector<std::uint32_t> child(pa.begin(), pa.end());
    if (rng_.chance(crossover_))
      for (std::size_t d = 0; d < child.size(); ++d)
        if (rng_.chance(0.5)) child[d] = pb[d];
    for (std::size_t d = 0; d < child.size(); ++d) {
      if (child[d] == SearchSpace::kAbsent || !rng_.chance(mutation_)) continue;
      const auto n = static_cast<std::uint32_t>(space_.params()[d].values.size());
      if (rng_.chance(0.5))
        child[d] = static_cast<std::uint32_t>(rng_.below(n));
      else if (child[d] + 1 < n && (child[d] == 0 || rng_.chance(0.5)))
        ++child[d];
      else if (child[d] > 0)
        --child[d];
    }
    return repair(child);
  }

  void learn(PointId p, double cost) override {
    if (fill(p, cost)) return;
    auto worst = std::max_element(pop_.begin(), pop_.end(),
                                  [](const Member& x, const Member& y) { return x.cost < y.cost; });
    if (cost < worst->cost) *worst = {p, cost};
  }

  const Member& tournament() {
    const Member& x = pop_[rng_.below(pop_.size())];
    const Member& y = pop_[rng_.below(pop_.size())];
    return x.cost <= y.cost ? x : y;
  }

  double crossover_, mutation_;
};

}  // namespace

StrategyInfo genetic_strategy() {
  using T = OptionDecl::Type;
  return {"genetic", "steady-state genetic algorithm: tournament, uniform crossover, step/random mutation",
          with_budget_options({{T::Int, "popsize", "16", "population size", 2, 100000},
                               {T::Real, "crossover", "0.9", "probability of crossover per child", 0, 1},
                               {T::Real, "mutation", "0.2", "probability of mutating each parameter", 0, 1}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<Genetic>(space, o, seed);
          }};
}

}  // namespace pimg
