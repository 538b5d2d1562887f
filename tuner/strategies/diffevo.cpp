// Differential evolution (DE/rand/1/bin) over value indices: for each target of the population a
// trial point a + F (b - c), crossed with the target per coordinate with probability cr, rounded
// into the value lists and repaired to the nearest valid unvisited point; the trial replaces its
// target when it is at least as good.
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include "pimg/strategies.hpp"
#include "population.hpp"

namespace pimg {
namespace {

class DifferentialEvolution final : public PopulationStrategy {
 public:
  DifferentialEvolution(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : PopulationStrategy(s, o, seed), f_(std::stod(o.at("f"))), cr_(std::stod(o.at("cr"))) {}

 private:
  std::optional<PointId> propose() override {
    if (filling()) return std::nullopt;  // the first population is random
    const std::size_t t = target_++ % pop_.size();
    std::size_t a, b, c;
    do a = rng_.below(pop_.size());
    while (a == t);
    do b = rng_.below(pop_.size());
    while (b == t || b == a);
    do c = rng_.below(pop_.size());
    while (c == t || c == a || c == b);
    auto pt = space_.point(pop_[t].point), pa = space_.point(pop_[a].point);
    auto pb = space_.point(pop_[b].point), pc = space_.point(pop_[c].point);
    std::vector<std::uint32_t> trial(pt.begin(), pt.end());
    const std::size_t forced = rng_.below(trial.size());
    for (std::size_t d = 0; d < trial.size(); ++d) {
      if (d != forced && !rng_.chance(cr_)) continue;
      if (pa[d] == SearchSpace::kAbsent || pb[d] == SearchSpace::kAbsent || pc[d] == SearchSpace::kAbsent) {
        trial[d] = pa[d];
        continue;
      }
      const double n = static_cast<double>(space_.params()[d].values.size());
      const double v = static_cast<double>(pa[d]) + f_ * (static_cast<double>(pb[d]) - static_cast<double>(pc[d]));
      trial[d] = static_cast<std::uint32_t>(std::clamp(std::round(v), 0.0, n - 1));
    }
    auto p = repair(trial);
    if (p) trials_[*p] = t;
    return p;
  }

  void learn(PointId p, double cost) override {
    if (fill(p, cost)) return;
    auto it = trials_.find(p);
    if (it == trials_.end()) return;  // a random fill-in, not a trial
    if (cost <= pop_[it->second].cost) pop_[it->second] = {p, cost};
    trials_.erase(it);
  }

  double f_, cr_;
  std::size_t target_ = 0;
  std::unordered_map<PointId, std::size_t> trials_;
};

}  // namespace

StrategyInfo diffevo_strategy() {
  using T = OptionDecl::Type;
  return {"diffevo", "differential evolution (rand/1/bin) over value indices, repaired to valid points",
          with_budget_options({{T::Int, "popsize", "12", "population size", 4, 100000},
                               {T::Real, "f", "0.6", "differential weight", 0, 2},
                               {T::Real, "cr", "0.7", "crossover probability per parameter", 0, 1}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<DifferentialEvolution>(space, o, seed);
          }};
}

}  // namespace pimg
