// A portfolio that hands over when its active method stalls: the Gaussian-process model proposes
// first; after `stall` proposals in a row without a better result, local search takes over (one
// parameter changed to any value, first improvement, restarting around the best points in turn),
// and after as many again without a better result the model comes back, and so on. Every member
// is told every outcome, so each starts from all that was learnt, and none proposes a point
// another one already asked.
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class Portfolio final : public SearchStrategy {
 public:
  Portfolio(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed), stall_(std::stoull(o.at("stall"))) {
    // Members search the whole space with their own defaults; the portfolio's budget is the run's.
    // The model gets the portfolio's seed (so a portfolio that never hands over walks as gp does),
    // the others seeds derived from it.
    const std::string all = std::to_string(s.size());
    const std::array<std::pair<StrategyInfo (*)(), std::map<std::string, std::string>>, 2> members{{
        {gp_strategy, {{"budget", all}, {"local", o.at("local")}}},
        {local_strategy, {{"budget", all}, {"any_value", "1"}, {"restart", "1"}}},
    }};
    std::uint64_t k = 0;
    for (const auto& [info_of, given] : members) {
      const StrategyInfo info = info_of();
      members_.push_back(info.make(s, resolve_options(info, given), seed + 0x9e3779b97f4a7c15ull * k++));
    }
  }

  void prior(const std::vector<PriorResult>& results) override {
    for (auto& m : members_) m->prior(results);
  }

 private:
  std::optional<PointId> propose() override {
    if (since_better_ >= stall_) {
      active_ = (active_ + 1) % members_.size();
      since_better_ = 0;
    }
    return members_[active_]->ask();
  }

  void learn(PointId p, double cost) override {
    if (cost < best_seen_) {
      best_seen_ = cost;
      since_better_ = 0;
    } else {
      ++since_better_;
    }
    const Outcome o = std::isfinite(cost) ? Outcome{Status::ok, cost} : Outcome{Status::launch_error, 0};
    for (auto& m : members_) m->observe(p, o);
  }

  std::size_t stall_;
  std::vector<std::unique_ptr<Strategy>> members_;
  std::size_t active_ = 0, since_better_ = 0;
  double best_seen_ = kFailed;
};

}  // namespace

StrategyInfo portfolio_strategy() {
  using T = OptionDecl::Type;
  return {"portfolio",
          "gp and local search around the best points (one parameter to any value), handing over in turn when "
          "one stalls; every member learns every outcome",
          with_budget_options({{T::Int, "stall", "24", "proposals without a better result before the next method takes over",
                                1, 100000},
                               {T::Real, "local", "0", "gp's chance of a random unvisited neighbour of the best", 0, 1}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<Portfolio>(space, o, seed);
          }};
}

}  // namespace pimg
