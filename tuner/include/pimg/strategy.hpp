// Ask/tell search strategies. A strategy walks the valid points of a SearchSpace (one variant on one
// device and problem, or in a replay the union of a backend's variants), proposes the next point to
// evaluate, and is told each outcome. It never proposes a point outside the space, nor one twice.
// Adding a strategy: one file in tuner/strategies/ plus one line in tuner/app/registry_builtin.cpp.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pimg/config.hpp"
#include "pimg/result.hpp"
#include "pimg/search_space.hpp"

namespace pimg {

// A typed option, declared once: the same declaration validates the space file and prints --help.
struct OptionDecl {
  enum class Type { Int, Real, Text } type = Type::Int;
  std::string name;
  std::string default_value;
  std::string help;
  std::optional<double> min, max;  // inclusive bounds of Int and Real options
};

using OptionValues = std::map<std::string, std::string>;  // validated, defaults filled in

struct Outcome {
  Status status = Status::ok;
  double median_ms = 0;  // meaningful when status == ok
};

// A stored evaluation from an earlier run (another size, another device) offered as prior
// knowledge. Times are comparable only within one group (one device and problem).
struct PriorResult {
  std::string group;
  Config config;
  std::optional<double> median_ms;  // nullopt: the evaluation failed
};

// The groups of priors with their counts in order of first appearance: "cuda:A4000 conv 512x512 (285)".
std::vector<std::string> prior_groups(const std::vector<PriorResult>& priors);
// Which stored results of other devices and problems a search was given, for its output:
// "priors: none (...)" or "priors (--transfer): GROUP (N), ..." from prior_groups().
std::string priors_note(const std::vector<std::string>& groups);

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The next point to evaluate; nullopt: done, for good. May be called again before the outcomes of
  // earlier points are told (the distributed runner keeps one point per busy rank in flight).
  virtual std::optional<PointId> ask() = 0;
  virtual void observe(PointId p, const Outcome& o) = 0;
  virtual std::size_t planned() const = 0;                   // evaluations it expects to ask for
  // The points it will ask from now on, in order, whatever it observes: all of exhaustive's, a random sample's
  // remaining draws; empty where the asks depend on the outcomes. The runner compiles them ahead of their
  // measurement on every core (docs/design.md, "Compiling ahead"); a strategy that stops early (a time budget)
  // leaves some compiled for nothing.
  virtual std::vector<PointId> ahead() const { return {}; }
  // Earlier results offered before the first ask; strategies that do not learn from them ignore them.
  virtual void prior(const std::vector<PriorResult>& results) { (void)results; }
  // Asked (by a portfolio whose best has not improved for long) to search away from the basin of the best point
  // found, keeping what it learnt; a strategy without a notion of basin ignores it.
  virtual void leave_basin() {}
  // The point whose two-parameter moves a walk is asking now, while some are left (a local search's centre at
  // a local optimum of its one-parameter moves); nullopt otherwise. A portfolio lets it finish them in one turn.
  virtual std::optional<PointId> pairing() const { return std::nullopt; }

  // The same walk in configurations, for runners that evaluate configurations.
  std::optional<Config> next();
  void tell(const Config& c, const Outcome& o);  // c must come from next()

 protected:
  explicit Strategy(const SearchSpace& space) : space_(space) {}
  const SearchSpace& space_;
};

struct StrategyInfo {
  std::string name;
  std::string help;
  std::vector<OptionDecl> options;
  std::function<std::unique_ptr<Strategy>(const SearchSpace& space, const OptionValues& opts, std::uint64_t seed)>
      make;
};

// Checks option names, types and bounds against the declaration and fills in defaults.
// Throws std::invalid_argument naming the offending option.
OptionValues resolve_options(const StrategyInfo& info, const std::map<std::string, std::string>& given);

}  // namespace pimg
