// Internal to the space file loader (space.cpp; space_problems.cpp, space_variants.cpp and space_measure.cpp
// for the sections of the file): its limits, its message helpers and the Loader, whose methods those files define.
#pragma once
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"

namespace pimg::space_detail {

inline constexpr int kMaxDepth = 64;
inline constexpr std::size_t kMaxList = 100000;
inline constexpr std::size_t kMaxNodes = 1000000;  // alias expansions included
inline constexpr std::size_t kMaxProblems = 100000;
// Every raw configuration is checked against the constraints when the space is enumerated (about
// 150 ns each), so this bounds listing a space to a second or two.
inline constexpr std::uint64_t kMaxRawSize = 10000000;
inline constexpr double kMaxTimeoutS = 86400;        // measure.timeout_s (a day)

std::string show(const std::string& s);
std::string join(const std::vector<std::string>& v);
std::string kind(const YAML::Node& n);
bool parse_int64(const std::string& s, std::int64_t& out);

struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// One pass of the problem expansion: a key and the values it takes, each with its node.
struct Choice {
  std::string text;
  int width = 0, height = 0;
  YAML::Node node;
};
struct Axis {
  std::string key;
  std::vector<Choice> choices;
};

class Loader {
 public:
  Loader(std::string file, const Registry& reg) : file_(std::move(file)), reg_(reg) {}

  Space load(const std::string& text);

 private:
  std::string file_;
  const Registry& reg_;
  const Family* family_ = nullptr;

  SourcePos pos(const YAML::Mark& m) const {
    if (m.is_null()) return {file_, 1, 1};
    return {file_, m.line + 1, m.column + 1};
  }
  SourcePos pos(const YAML::Node& n) const { return pos(n.Mark()); }
  [[noreturn]] void fail_at(const SourcePos& p, const std::string& message) const {
    std::string m = message;
    std::replace(m.begin(), m.end(), '\n', ' ');
    throw UsageError(p.str() + ": " + m);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const { fail_at(pos(n), message); }
  [[noreturn]] void fail_mark(const YAML::Mark& m, const std::string& message) const { fail_at(pos(m), message); }

  // space.cpp: the file's shape and the values of its entries.
  void check_shape(const YAML::Node& n, int depth, std::size_t& visited) const;
  std::vector<Entry> entries(const YAML::Node& map, const std::string& what,
                             const std::vector<std::string>& allowed = {}) const;
  std::string scalar(const YAML::Node& n, const std::string& what) const;
  const YAML::Node& value(const Entry& e, const std::string& what) const;
  std::int64_t integer(const YAML::Node& n, const std::string& what, std::int64_t lo, std::int64_t hi) const;
  std::vector<YAML::Node> items(const YAML::Node& n, const std::string& what) const;
  Space build(const YAML::Node& root);

  // space_problems.cpp
  std::vector<Problem> problems(const YAML::Node& list, std::vector<SourcePos>& where);
  Choice size_choice(const YAML::Node& n) const;
  static bool is_matrix(const YAML::Node& n);
  static std::string matrix_text(const YAML::Node& n);
  std::vector<Choice> attr_choices(const Entry& e, const AttrSpec& spec) const;
  void expand(const YAML::Node& entry_node, const std::vector<std::string>& allowed, std::vector<Problem>& out);

  // space_variants.cpp: backends, variants and the ladder
  BackendSelection backend(const YAML::Node& name_node, const std::vector<BackendSelection>& so_far) const;
  std::vector<BackendSelection> backends(const YAML::Node& n) const;
  std::vector<VariantSpace> variants(const YAML::Node& n, const std::vector<BackendSelection>& selected) const;
  VariantSpace variant(const Entry& e, const std::vector<BackendSelection>& selected) const;
  ParamValues param(const ParamDecl& d, const Entry& e, const std::string& variant) const;
  std::vector<Value> generated(const ParamDecl& d, const YAML::Node& n, const std::string& what) const;
  Ladder ladder(const YAML::Node& n, const Space& space) const;
  LadderStep ladder_step(const YAML::Node& n, const Space& space, const Ladder& so_far) const;

  // space_measure.cpp: strategy and measure
  StrategySpec strategy(const Entry* e, const YAML::Node& root) const;
  double real(const YAML::Node& v, const std::string& what, double lo, double hi) const;
  std::string choice(const YAML::Node& v, const std::string& what, std::initializer_list<const char*> allowed) const;
  ConfirmSpec confirm(const YAML::Node& n) const;
  MeasureSpec measure(const YAML::Node& n) const;
};

}  // namespace pimg::space_detail
