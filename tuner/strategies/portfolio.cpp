// A portfolio that hands over when its active method stalls: the Gaussian-process model proposes
// first; after `stall` proposals in a row without a better result, local search takes over (one
// parameter changed to any value, first improvement) until it has gone `local_stall` proposals
// without a better result, then the model again, and so on. Every member is told every outcome, so
// none proposes a point another one already asked and the model learns from the walk.
// The local search (defaults chosen by replay, docs/strategies.md): it moves to every point told
// that is better than where it stands (`follow` 1), the model's finds too; restarts at the best
// point not yet searched around once its neighbourhood is exhausted (`restart` 1), and asks first
// the neighbour whose changed value has the best time seen with that value anywhere (`order` 1),
// so what every evaluation taught about each parameter value steers the walk.
// With `pair_turn` 1 (the default: on the public A100 convolution space it halved the seeds short of
// the optimum at 400 evaluations) a local turn that has reached the run's best point's two-parameter moves lasts
// until they are asked (or one is better): an interaction whose one-parameter halves are both worse
// is crossed in that turn, not a gp turn later (docs/strategies.md, the worst seeds).
// With `basin_stall` N > 0 (off by default: on the public A100 convolution space it left more seeds
// short of the optimum, not fewer, docs/strategies.md) N evaluations without a better result send
// the local search to walk from the best point of another basin.
#include <algorithm>
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
      : SearchStrategy(s, o, seed), patience_{std::stoull(o.at("stall")), std::stoull(o.at("local_stall"))},
        basin_stall_(std::stoull(o.at("basin_stall"))), basin_walk_(std::stoull(o.at("basin_walk"))),
        pair_turn_(std::stoi(o.at("pair_turn")) == 1) {
    // Members search the whole space; the portfolio's budget is the run's. The model gets the
    // portfolio's seed (so a portfolio that never hands over walks as gp does), the other a seed
    // derived from it.
    const std::string all = std::to_string(s.size());
    const std::pair<StrategyInfo (*)(), std::map<std::string, std::string>> members[] = {
        {gp_strategy, {{"budget", all}, {"local", o.at("local")}, {"candidates", o.at("candidates")}, {"pairs", o.at("pairs")}, {"learn", o.at("learn")}, {"pow2", o.at("pow2")}}},
        {local_strategy,
         {{"budget", all}, {"any_value", "1"}, {"restart", o.at("restart")}, {"order", o.at("order")}, {"follow", o.at("follow")}, {"pairs", o.at("local_pairs")}, {"escape", o.at("escape")}}},
    };
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
    // A restart on stagnation: after `basin_stall` evaluations in a row without a better result, the
    // local search leaves the best point's basin for the best point evaluated three or more
    // parameters from it (and from earlier walks' bests and starts; else a random one) and walks
    // until it has gone `basin_walk` proposals without bettering the walk's own best, so the run's
    // better best does not end the walk before it reaches the other basin's bottom. Then the model.
    if (basin_stall_ && stagnant_ >= basin_stall_ && !walking_) {
      walking_ = true;
      stagnant_ = since_better_ = 0;
      walk_best_ = kFailed;
      active_ = 1;
      members_[active_]->leave_basin();
    }
    // The local search asking the best point's two-parameter moves keeps its turn until they are done.
    const bool pairing = pair_turn_ && active_ == 1 && !walking_ && members_[1]->pairing() == best_point_;
    if (!pairing && since_better_ >= (walking_ ? basin_walk_ : patience_[active_])) {
      active_ = walking_ ? 0 : (active_ + 1) % members_.size();
      walking_ = false;
      since_better_ = 0;
    }
    return members_[active_]->ask();
  }

  void learn(PointId p, double cost) override {
    if (cost < best_seen_) best_point_ = p;
    stagnant_ = cost < best_seen_ ? 0 : stagnant_ + 1;
    double& mark = walking_ ? walk_best_ : best_seen_;
    since_better_ = cost < mark ? 0 : since_better_ + 1;
    mark = std::min(mark, cost);
    best_seen_ = std::min(best_seen_, cost);
    const Outcome o = std::isfinite(cost) ? Outcome{Status::ok, cost} : Outcome{Status::launch_error, 0};
    for (auto& m : members_) m->observe(p, o);
  }

  std::size_t patience_[2];  // per member: proposals without a better result before handing over
  std::vector<std::unique_ptr<Strategy>> members_;
  std::size_t active_ = 0, since_better_ = 0;
  std::size_t basin_stall_, basin_walk_, stagnant_ = 0;  // stagnant_: evaluations since the run's best improved
  bool walking_ = false;                                 // the local search walks from another basin
  double walk_best_ = kFailed;                           // the walk's best (since_better_ counts from it then)
  double best_seen_ = kFailed;
  std::optional<PointId> best_point_;  // where best_seen_ was found
  bool pair_turn_;                     // the local search finishes the best point's two-parameter moves in one turn
};

}  // namespace

StrategyInfo portfolio_strategy() {
  using T = OptionDecl::Type;
  return {"portfolio",
          "gp and local search (one parameter to any value, most promising value first), handing over in turn when "
          "one stalls; every member learns every outcome",
          with_budget_options(
              {{T::Int, "stall", "24", "gp's proposals without a better result before local search takes over", 1, 100000},
               {T::Int, "local_stall", "12", "local search's proposals without a better result before gp takes over", 1, 100000},
               {T::Int, "candidates", "256", "gp's random candidates scored per proposal", 1, 1000000},
               {T::Real, "local", "0", "gp's chance of a random unvisited neighbour of the best", 0, 1},
               {T::Real, "order", "1", "local search's chance of asking the neighbour whose changed value has the best time seen", 0, 1},
               {T::Int, "follow", "1", "local search moves to 1: any better point told, 0: only better points it asked itself", 0, 1},
               {T::Real, "restart", "1", "local search's chance of restarting at the best point not yet searched around, else at a random one", 0, 1},
               {T::Int, "pairs", "0", "gp's: best points whose two-parameter changes are candidates too", 0, 5},
               {T::Int, "pow2", "1", "gp's: 1: integer parameters' power-of-two values get a kernel dimension of their own", 0, 1},
               {T::Int, "learn", "5", "gp's: evaluations between two fits of its per-parameter length scales; 0: fixed", 0, 100000},
               {T::Int, "local_pairs", "1", "local search's: 1: two-parameter changes at a local optimum before a restart", 0, 1},
               {T::Int, "pair_turn", "1", "1: a local turn that has reached the best point's two-parameter moves goes on until they are asked (or one is better)", 0, 1},
               {T::Int, "escape", "0", "local search's: own proposals without a better result before it leaves the basin; 0: never", 0, 1000000},
               {T::Int, "basin_stall", "0", "evaluations without a better result before the local search walks from the best point of another basin (three or more parameters from the best); 0: never", 0, 1000000},
               {T::Int, "basin_walk", "24", "that walk's proposals without bettering its own best before the model takes over", 1, 100000}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<Portfolio>(space, o, seed);
          }};
}

}  // namespace pimg
