// Greedy local search with restarts: from a random point, try its unvisited neighbours and move to
// the first better one; at a local optimum, restart at a random point, or (with chance `restart`;
// always with 1) at the best evaluated point not yet searched around. Neighbours differ in one
// parameter by one step, or (with `any_value` 1) by any value of that parameter. They are tried in
// random order, or (with chance `order` each time) the most promising one is asked: the one whose
// changed value has the best time seen with that value anywhere (a value never seen first, one seen
// only failing last), so what every evaluation taught about each parameter value steers the walk.
// With `follow` 0 it moves only to better points it asked itself (in a portfolio, the points other
// members asked still count for restarts and for the order).
#include <algorithm>
#include <cmath>
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
        restart_best_(std::stod(o.at("restart"))), follow_(std::stoi(o.at("follow")) == 1),
        order_(std::stod(o.at("order"))), pairs_(std::stoi(o.at("pairs")) == 1),
        escape_(std::stoull(o.at("escape"))) {
    for (const auto& prm : s.params()) best_with_.emplace_back(prm.values.size(), kUnseen);
  }

 private:
  std::optional<PointId> propose() override {
    // Stagnation: `escape` own proposals in a row without a better result anywhere: the basin is
    // left for the best evaluated point outside every searched neighbourhood (else a random one).
    // Asked to leave (leave_basin()): outside the neighbourhoods of the basins left so far, not of
    // every centre, since in a long run no point may be left outside all of those.
    if (far_ || (escape_ && since_better_ >= escape_)) {
      since_better_ = 0;
      if (current_ && (restart_best_ > 0 || far_)) centres_.push_back(*current_);
      current_.reset();
      const bool left = restart_far(far_ ? left_ : centres_);
      far_ = false;
      if (!left) return std::nullopt;
    }
    ++since_better_;
    for (;;) {
      if (order_ > 0 && current_) std::erase_if(untried_, [&](PointId q) { return visited(q); });
      if (order_ > 0 && current_ && !untried_.empty() && rng_.chance(order_)) return most_promising();
      while (current_ && !untried_.empty()) {
        const PointId p = untried_.back();
        untried_.pop_back();
        if (!visited(p)) return p;
      }
      if (current_ && pairs_ && !paired_) {  // one-parameter moves exhausted: two at once
        paired_ = true;
        pair_neighbours(*current_, untried_);
        std::erase_if(untried_, [&](PointId q) { return visited(q); });
        shuffle_untried();
        // As many as the one-parameter moves were, the most promising ones when ordered.
        if (untried_.size() > single_moves_) {
          if (order_ > 0) {
            std::vector<std::pair<double, PointId>> by;
            for (PointId q : untried_) by.emplace_back(promise(q), q);
            std::stable_sort(by.begin(), by.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (std::size_t i = 0; i < single_moves_; ++i) untried_[i] = by[i].second;
          }
          untried_.resize(single_moves_);
        }
        continue;
      }
      if (current_ && restart_best_ > 0) centres_.push_back(*current_);  // searched around to the end
      current_.reset();  // a local optimum (or a start)
      // Restart at the best point not yet searched around (with chance `restart`), else at a random one.
      if (restart_best_ <= 0 || (restart_best_ < 1 && !rng_.chance(restart_best_)) || !restart_at_best())
        return std::nullopt;  // where the base samples: a random unvisited point
    }
  }

  // The next proposal leaves the best point's basin (the walk may stand elsewhere) as an escape does.
  void leave_basin() override {
    far_ = true;
    if (best_) left_.push_back(*best_);
  }

  std::optional<PointId> pairing() const override {
    if (!current_ || !paired_ || std::all_of(untried_.begin(), untried_.end(), [&](PointId q) { return visited(q); }))
      return std::nullopt;
    return current_;
  }

  void learn(PointId p, double cost) override {
    seen_.push_back({cost, p});  // restarts pick from it
    if (cost < best_cost_) best_cost_ = cost, since_better_ = 0;
    if (order_ > 0) {
      // Per parameter value: the best log time seen with it; failing only: kFailedOnly.
      const auto c = space_.point(p);
      const double v = std::isfinite(cost) ? std::log(cost) : kFailedOnly;
      for (std::size_t d = 0; d < c.size(); ++d)
        if (c[d] != SearchSpace::kAbsent) {
          double& b = best_with_[d][c[d]];
          if (b == kUnseen || v < b) b = v;
        }
    }
    if (!follow_ && !own_outcome()) return;  // another member's point: a restart may still pick it
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
    paired_ = false;
    single_moves_ = untried_.size();
    shuffle_untried();
  }

  void shuffle_untried() {
    for (std::size_t i = untried_.size(); i > 1; --i) std::swap(untried_[i - 1], untried_[rng_.below(i)]);
  }

  // Removes and returns the untried neighbour whose changed value has the best time seen with it
  // (two changed values: the worse of the two; ties: the shuffled order).
  PointId most_promising() {
    std::size_t pick = 0;
    double pick_score = 0;
    for (std::size_t i = 0; i < untried_.size(); ++i) {
      const double score = promise(untried_[i]);
      if (i == 0 || score < pick_score) pick = i, pick_score = score;
    }
    const PointId p = untried_[pick];
    untried_.erase(untried_.begin() + static_cast<std::ptrdiff_t>(pick));
    return p;
  }

  // Lower is more promising: the best log time seen with the value q changes (the worse of two).
  double promise(PointId q) const {
    const auto c = space_.point(*current_), v = space_.point(q);
    double score = kUnseen;
    for (std::size_t d = 0; d < c.size(); ++d)
      if (v[d] != c[d]) score = std::max(score, v[d] == SearchSpace::kAbsent ? kUnseen : best_with_[d][v[d]]);
    return score;
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

  // The best ok point evaluated so far that differs from every point of `from` (centres searched
  // around or restarted at, or the basins left) in at least three parameters, so outside their one-
  // and two-parameter moves, becomes the centre (and joins `from`); false when there is none.
  bool restart_far(std::vector<PointId>& from) {
    std::sort(seen_.begin(), seen_.end());
    for (const auto& [cost, p] : seen_) {
      if (cost == kFailed) break;
      if (std::find(centres_.begin(), centres_.end(), p) != centres_.end()) continue;
      const auto c = space_.point(p);
      const bool far = std::all_of(from.begin(), from.end(), [&](PointId q) {
        const auto o = space_.point(q);
        std::size_t differ = 0;
        for (std::size_t d = 0; d < c.size(); ++d) differ += c[d] != o[d];
        return differ >= 3;
      });
      if (far) {
        if (&from != &centres_) from.push_back(p);
        centres_.push_back(p);
        move_to(p, cost);
        return true;
      }
    }
    return false;
  }

  static constexpr double kUnseen = -1e300, kFailedOnly = 1e300;
  bool any_value_;
  double restart_best_;  // chance that a restart is at the best point not yet searched around
  bool follow_;
  double order_;  // chance of asking the most promising neighbour instead of the next one in random order
  bool pairs_, paired_ = false;
  std::size_t single_moves_ = 0;  // the centre's one-parameter moves: two-parameter ones tried at most  // paired_: the centre's two-parameter moves are in untried_
  std::vector<std::vector<double>> best_with_;  // [parameter][value]: best log time seen with it
  std::optional<PointId> current_;
  double current_cost_ = kFailed;
  std::vector<PointId> untried_, centres_;  // centres_: searched around, or restarted at
  std::vector<std::pair<double, PointId>> seen_;
  std::size_t escape_, since_better_ = 0;  // own proposals since a better result anywhere
  bool far_ = false;                       // leave_basin() was asked: the next proposal restarts far
  std::vector<PointId> left_;              // the best point at each leave_basin() and where each walk started
  double best_cost_ = kFailed;
};

}  // namespace

StrategyInfo local_strategy() {
  using T = OptionDecl::Type;
  return {"local",
          "greedy local search (first improvement over neighbours) with restarts at a random point or at the best "
          "point not yet searched around",
          with_budget_options({{T::Int, "any_value", "0", "1: a neighbour may take any value of one parameter, 0: the next one", 0, 1},
                               {T::Real, "restart", "0", "chance that a restart (at a local optimum) is at the best point not yet searched around, not at a random one", 0, 1},
                               {T::Int, "follow", "1", "1: move to any better point told (a portfolio's other members'), 0: only to its own", 0, 1},
                               {T::Real, "order", "0", "chance of asking the neighbour whose changed value has the best time seen, not a random one", 0, 1},
                               {T::Int, "pairs", "0", "1: at a local optimum, the centre's two-parameter changes (any values) before a restart", 0, 1},
                               {T::Int, "escape", "0", "own proposals in a row without a better result before leaving the basin for the best point at least three parameters from every centre; 0: never", 0, 1000000}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<LocalSearch>(space, o, seed);
          }};
}

}  // namespace pimg
