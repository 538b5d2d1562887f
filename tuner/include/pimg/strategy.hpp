// Ask/tell search strategies. A strategy sees the list of valid configurations of one variant on
// one device and problem, proposes the next one to evaluate, and is told each outcome.
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

namespace pimg {

// A typed option, declared once: the same declaration validates the space file and prints --help.
struct OptionDecl {
  enum class Type { Int, Real, Text } type = Type::Int;
  std::string name;
  std::string default_value;
  std::string help;
};

using OptionValues = std::map<std::string, std::string>;  // validated, defaults filled in

struct Outcome {
  Status status = Status::ok;
  double median_ms = 0;  // meaningful when status == ok
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::optional<Config> next() = 0;                    // nullopt: done
  virtual void tell(const Config& c, const Outcome& o) = 0;
  virtual std::size_t planned() const = 0;                     // evaluations it expects to ask for
};

struct StrategyInfo {
  std::string name;
  std::string help;
  std::vector<OptionDecl> options;
  std::function<std::unique_ptr<Strategy>(const std::vector<Config>& space, const OptionValues& opts,
                                          std::uint64_t seed)>
      make;
};

// Checks option names and types against the declaration and fills in defaults.
// Throws std::invalid_argument naming the offending option.
OptionValues resolve_options(const StrategyInfo& info, const std::map<std::string, std::string>& given);

}  // namespace pimg
