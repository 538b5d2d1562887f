// Shared by the population strategies (genetic, diffevo): a population of evaluated points whose first
// popsize members are the uniformly random points the base class gives while propose() answers nullopt.
#pragma once
#include <string>
#include <vector>

#include "pimg/search_strategy.hpp"

namespace pimg {

class PopulationStrategy : public SearchStrategy {
 protected:
  struct Member {
    PointId point;
    double cost;
  };

  PopulationStrategy(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed), popsize_(std::stoull(o.at("popsize"))) {}

  bool filling() const { return pop_.size() < popsize_; }
  // Takes (p, cost) into the first population while it is filling; false once it is full.
  bool fill(PointId p, double cost) {
    if (!filling()) return false;
    pop_.push_back({p, cost});
    return true;
  }

  std::size_t popsize_;
  std::vector<Member> pop_;
};

}  // namespace pimg
