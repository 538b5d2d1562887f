// The space file's strategy (name, seed, options resolved against the strategy's declared options) and measure
// settings (repeats, noise, racing, confirmation, cold runs, isolation, timeouts).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "pimg/suggest.hpp"
#include "space/space_loader.hpp"

namespace pimg::space_detail {

StrategySpec Loader::strategy(const Entry* e, const YAML::Node& root) const {
  StrategySpec s;
  s.pos = pos(root);
  std::optional<YAML::Node> name_node;
  std::vector<Entry> options;
  if (e) {
    const YAML::Node& n = value(*e, "strategy");
    s.pos = pos(n);
    if (n.IsScalar()) {
      s.name = n.Scalar();
      name_node = n;
    } else {
      for (const auto& f : entries(n, "strategy", {"name", "seed", "options"})) {
        if (f.key == "name") {
          s.name = scalar(value(f, "strategy.name"), "strategy.name");
          name_node = f.value;
        } else if (f.key == "seed") {
          std::string t = scalar(value(f, "strategy.seed"), "strategy.seed");
          auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), s.seed);
          if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
            fail(f.value, fmt::format("strategy.seed must be an integer in 0..2^64-1, got {}", show(t)));
        } else if (!f.value.IsNull()) {
          options = entries(f.value, "strategy.options");
        }
      }
    }
  }
  // A search asked for without a strategy named (options such as a budget, no name): the default
  // search strategy. No strategy entry at all: exhaustive, every configuration.
  if (!name_node && !options.empty()) s.name = reg_.default_strategy();
  const StrategyInfo* info = reg_.strategy(s.name);
  if (info) s.name = info->name;  // `default` stored as the strategy it stands for
  if (!info) {
    std::vector<std::string> names;
    for (const auto* x : reg_.strategies()) names.push_back(x->name);
    names.push_back("default");
    fail_at(name_node ? pos(*name_node) : s.pos,
            fmt::format("unknown strategy {} (strategies: {})", show(s.name), join(names)));
  }
  std::map<std::string, std::string> given;
  for (const auto& o : options) {
    std::string v = scalar(value(o, "strategy.options." + o.key), "strategy.options." + o.key);
    bool declared =
        std::any_of(info->options.begin(), info->options.end(), [&](const OptionDecl& d) { return d.name == o.key; });
    try {
      resolve_options(*info, {{o.key, v}});
    } catch (const std::invalid_argument& x) {
      fail(declared ? o.value : o.key_node, fmt::format("strategy.options: {}", x.what()));
    }
    given[o.key] = v;
  }
  s.options = resolve_options(*info, given);
  return s;
}

// A finite real in (lo, hi] from a scalar; NaN and infinities refused.
double Loader::real(const YAML::Node& v, const std::string& what, double lo, double hi) const {
  std::string t = scalar(v, what);
  double x = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(x))
    fail(v, fmt::format("{} must be a number, got {}", what, show(t)));
  if (!(x > lo) || x > hi) fail(v, fmt::format("{} must be above {} and at most {}, got {}", what, lo, hi, t));
  return x;
}

std::string Loader::choice(const YAML::Node& v, const std::string& what, std::initializer_list<const char*> allowed) const {
  const std::string t = scalar(v, what);
  std::string list;
  for (const char* a : allowed) {
    if (t == a) return t;
    list += (list.empty() ? "" : ", ") + std::string(a);
  }
  fail(v, fmt::format("{} must be one of {}, got {}", what, list, show(t)));
  return t;
}

ConfirmSpec Loader::confirm(const YAML::Node& n) const {
  ConfirmSpec c;
  for (const auto& e : entries(n, "measure.confirm", {"top", "within", "max", "rounds", "max_rounds", "max_time_s", "preparations", "sessions",
                                                         "max_sessions"})) {
    const std::string what = "measure.confirm." + e.key;
    const YAML::Node& v = value(e, what);
    if (e.key == "top") c.top = static_cast<int>(integer(v, what, 0, 1000));
    if (e.key == "within") c.within = real(v, what, 0, 100);
    if (e.key == "max") c.max = static_cast<int>(integer(v, what, 1, 1000));
    if (e.key == "rounds") c.rounds = static_cast<int>(integer(v, what, 1, 100000));
    if (e.key == "max_rounds") c.max_rounds = static_cast<int>(integer(v, what, 1, 100000));
    if (e.key == "max_time_s") {
      c.max_time_s = real(v, what, 0, 86400);
      c.max_time_given = true;
    }
    if (e.key == "preparations") c.preparations = static_cast<int>(integer(v, what, 1, 8));
    if (e.key == "sessions") c.sessions = static_cast<int>(integer(v, what, 1, 8));
    if (e.key == "max_sessions") {
      c.max_sessions = static_cast<int>(integer(v, what, 1, 8));
      c.max_sessions_given = true;
    }
  }
  c.max_rounds = std::max(c.max_rounds, c.rounds);
  c.max = std::max(c.max, c.top);
  return c;
}

MeasureSpec Loader::measure(const YAML::Node& n) const {
  MeasureSpec m;
  bool max_given = false, cold_given = false;
  for (const auto& e : entries(n, "measure", {"warmups", "repeats", "max_repeats", "noise", "max_time_s", "race", "cache",
                                              "launch", "confirm", "cold", "timeout_s", "isolation",
                                              "energy_s"})) {
    const std::string what = "measure." + e.key;
    const YAML::Node& v = value(e, what);
    if (e.key == "warmups") m.warmups = static_cast<int>(integer(v, what, 0, kMaxWarmups));
    if (e.key == "repeats") m.repeats = static_cast<int>(integer(v, what, 1, kMaxRepeats));
    if (e.key == "max_repeats") {
      m.max_repeats = static_cast<int>(integer(v, what, 1, kMaxRepeats));
      max_given = true;
    }
    if (e.key == "noise") {
      m.noise = real(v, what, 0, 1);
      m.noise_given = true;
    }
    if (e.key == "max_time_s") {
      m.max_time_s = real(v, what, 0, 86400);
      m.max_time_given = true;
    }
    if (e.key == "race") {  // 0 turns racing off
      m.race = real(v, what, -1, 100);
      if (m.race < 0) fail(v, fmt::format("{} must be 0 (off) or a margin up to 100, got {}", what, scalar(v, what)));
    }
    if (e.key == "cache") m.timing.cold = choice(v, what, {"cold", "hot"}) == "cold";
    if (e.key == "launch") m.timing.hide_launch = choice(v, what, {"hidden", "call"}) == "hidden";
    if (e.key == "confirm") m.confirm = confirm(e.value);
    if (e.key == "cold") {
      cold_given = true;
      for (const auto& c : entries(e.value, "measure.cold", {"top"}))
        m.cold.top = static_cast<int>(integer(value(c, "measure.cold.top"), "measure.cold.top", 0, 1000));
    }
    if (e.key == "isolation") {
      const std::string t = scalar(v, what);
      if (t != "true" && t != "false") fail(v, fmt::format("{} must be true or false, got {}", what, show(t)));
      m.isolation = t == "true";
    }
    if (e.key == "timeout_s") m.timeout_s = real(v, what, 0, kMaxTimeoutS);
    if (e.key == "energy_s") {  // 0 runs no window
      m.energy_s = real(v, what, -1, 600);
      if (m.energy_s < 0)
        fail(v, fmt::format("{} must be 0 (no window) or seconds up to 600, got {}", what, scalar(v, what)));
    }
  }
  if (max_given && m.max_repeats < m.repeats)
    fail(n["max_repeats"], fmt::format("measure.max_repeats ({}) is below measure.repeats ({})", m.max_repeats,
                                       m.repeats));
  m.max_repeats = std::max(m.max_repeats, m.repeats);
  if (m.confirm.top == 0 && !cold_given) m.cold.top = 0;
  return m;
}

}  // namespace pimg::space_detail
