// What every searching strategy shares, in one place: a portable seeded generator, the budget
// options (evaluations, share of the space, wall time, plateau), the visited set that rules out
// duplicates, uniform sampling of unvisited points, random unvisited neighbours, and the repair of
// a coordinate vector to the nearest valid unvisited point. A strategy derives from SearchStrategy
// and writes propose() and learn().
#pragma once
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "pimg/strategy.hpp"

namespace pimg {

// xoshiro256** seeded through splitmix64: the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  std::size_t below(std::size_t n);  // uniform in [0, n), n > 0
  double uniform();                  // [0, 1)
  bool chance(double p) { return uniform() < p; }

 private:
  std::uint64_t s_[4];
};

// budget, fraction, time_s, plateau; `fraction` defaults to the given share of the space.
std::vector<OptionDecl> budget_options(const char* default_fraction = "0.1");
// The budget options followed by a strategy's own.
std::vector<OptionDecl> with_budget_options(std::vector<OptionDecl> own, const char* default_fraction = "0.1");

struct Budget {
  std::size_t evaluations = 0;  // at most this many asks
  double seconds = 0;           // wall time from the first ask; 0: none
  std::size_t plateau = 0;      // stop after this many evaluations without a better result; 0: never
  static Budget from(const OptionValues& o, std::size_t space_size);
};

class SearchStrategy : public Strategy {
 public:
  SearchStrategy(const SearchSpace& space, const OptionValues& o, std::uint64_t seed);
  std::optional<PointId> ask() final;
  void observe(PointId p, const Outcome& o) final;
  std::size_t planned() const final { return budget_.evaluations; }

 protected:
  static constexpr double kFailed = std::numeric_limits<double>::infinity();
  // The next point the strategy wants; nullopt or a visited point: a uniformly random unvisited one.
  virtual std::optional<PointId> propose() = 0;
  // The outcome of a point this strategy asked for; cost is the median time, kFailed for a failure.
  virtual void learn(PointId p, double cost) = 0;

  bool visited(PointId p) const { return visited_[p] != 0; }
  // Whether the outcome being learnt is of the point this strategy itself asked last (not one told
  // by a portfolio that another member asked).
  bool own_outcome() const { return own_outcome_; }
  std::size_t evaluations() const { return asked_; }
  const Budget& budget() const { return budget_; }
  std::optional<PointId> random_unvisited();
  // The next n points random_unvisited() gives while nothing else is visited meanwhile (a copy of its generator
  // and permutation draws them): a strategy that asks nothing else can say its asks ahead (Strategy::ahead).
  std::vector<PointId> random_unvisited_ahead(std::size_t n) const;
  std::optional<PointId> random_unvisited_neighbour(PointId p);
  // Appends the valid points that differ from p in one parameter, by any value (not only one step).
  void any_value_neighbours(PointId p, std::vector<PointId>& out) const;
  // Appends the valid points that differ from p in exactly two parameters, each by any value: the
  // moves that reach across an interaction (say block width and height together) where every
  // one-parameter change is worse.
  void pair_neighbours(PointId p, std::vector<PointId>& out) const;
  // The valid unvisited point nearest to coords (itself when valid and unvisited), searched among
  // points sharing one of its values; nullopt when none is found.
  std::optional<PointId> repair(std::span<const std::uint32_t> coords);

  Rng rng_;
  std::optional<PointId> best_;
  double best_cost_ = kFailed;

 private:
  Budget budget_;
  std::vector<std::uint8_t> visited_;
  std::size_t asked_ = 0, visited_count_ = 0, since_better_ = 0;
  std::optional<PointId> last_asked_;
  bool own_outcome_ = false;
  std::vector<PointId> order_;  // a random permutation drawn step by step (Fisher-Yates), built on first use
  std::size_t drawn_ = 0;
  std::optional<std::chrono::steady_clock::time_point> started_;
  std::vector<PointId> scratch_;
};

}  // namespace pimg
