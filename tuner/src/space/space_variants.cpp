// The space file's backends (names, or names with device selectors), variants (each parameter's values, given
// or generated, and the constraints) and ladder (named steps, one configuration each).
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

namespace pimg::detail {  // space_constraints.cpp
void check_constraint(const Constraint& c, const std::vector<std::string>& params,
                      const std::vector<std::string>& text_values);
}  // namespace pimg::detail

namespace pimg::space_detail {

BackendSelection Loader::backend(const YAML::Node& name_node, const std::vector<BackendSelection>& so_far) const {
  BackendSelection b;
  b.backend = scalar(name_node, "backends");
  b.pos = pos(name_node);
  if (!reg_.backend(b.backend)) {
    std::vector<std::string> names;
    for (const auto* x : reg_.backends()) names.push_back(x->name());
    fail(name_node, fmt::format("unknown backend {} (backends: {})", show(b.backend), join(names)));
  }
  for (const auto& s : so_far)
    if (s.backend == b.backend) fail(name_node, fmt::format("backend {} is listed twice", show(b.backend)));
  return b;
}

std::vector<BackendSelection> Loader::backends(const YAML::Node& n) const {
  std::vector<BackendSelection> out;
  if (n.IsSequence() || n.IsScalar()) {
    for (const auto& item : items(n, "backends")) out.push_back(backend(item, out));
    return out;
  }
  if (!n.IsMap())
    fail(n, fmt::format("backends must be a mapping (backend: options) or a list of names, got {}", kind(n)));
  auto list = entries(n, "backends");
  if (list.empty()) fail(n, "backends has no backend");
  for (const auto& e : list) {
    BackendSelection b = backend(e.key_node, out);
    if (!e.value.IsNull()) {
      for (const auto& o : entries(e.value, "the options of backend " + show(e.key), {"devices"})) {
        for (const auto& d : items(value(o, "backends." + e.key + ".devices"), "backends." + e.key + ".devices")) {
          std::string sel = scalar(d, "backends." + e.key + ".devices");
          std::int64_t index = 0;
          if (sel.empty() || (parse_int64(sel, index) && index < 0))
            fail(d, fmt::format("backends.{}.devices: {} is neither a device index (>= 0) nor a name substring",
                                e.key, show(sel)));
          b.devices.push_back(sel);
        }
      }
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<VariantSpace> Loader::variants(const YAML::Node& n, const std::vector<BackendSelection>& selected) const {
  auto list = entries(n, "variants");
  if (list.empty()) fail(n, "variants has no variant");
  std::vector<VariantSpace> out;
  for (const auto& e : list) out.push_back(variant(e, selected));
  return out;
}

VariantSpace Loader::variant(const Entry& e, const std::vector<BackendSelection>& selected) const {
  const Variant* v = reg_.variant(family_->name(), e.key);
  if (!v) {
    std::vector<std::string> names;
    for (const auto* x : reg_.variants(family_->name())) names.push_back(x->name());
    fail(e.key_node,
         fmt::format("unknown variant {} for family {}{} (variants: {})", show(e.key), family_->name(),
                     did_you_mean(e.key, names), join(names)));
  }
  std::vector<std::string> chosen;
  for (const auto& b : selected) chosen.push_back(b.backend);
  if (std::find(chosen.begin(), chosen.end(), v->backend()) == chosen.end())
    fail(e.key_node, fmt::format("variant {} runs on backend '{}', which backends does not select (selected: {})",
                                 show(e.key), v->backend(), join(chosen)));

  VariantSpace vs;
  vs.variant = e.key;
  vs.pos = pos(e.key_node);
  const std::vector<ParamDecl> decls = v->parameters();
  std::vector<std::string> names;
  for (const auto& d : decls) names.push_back(d.name);
  std::vector<Entry> list;
  if (!e.value.IsNull()) list = entries(e.value, "variant " + show(e.key));
  for (const auto& p : list) {
    if (p.key == "constraints") continue;
    auto d = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& x) { return x.name == p.key; });
    if (d == decls.end())
      fail(p.key_node, fmt::format("unknown parameter {} for variant {}{} ({})", show(p.key), show(e.key),
                                   did_you_mean(p.key, names), decls.empty() ? "it has no parameters" : "parameters: " + join(names)));
    vs.params.push_back(param(*d, p, e.key));
  }
  for (const auto& d : decls)
    if (std::none_of(vs.params.begin(), vs.params.end(), [&](const ParamValues& p) { return p.name == d.name; }))
      vs.params.push_back({d.name, {d.default_value}, vs.pos});
  std::sort(vs.params.begin(), vs.params.end(),
            [](const ParamValues& a, const ParamValues& b) { return a.name < b.name; });

  if (vs.raw_size() > kMaxRawSize)
    fail(e.key_node,
         fmt::format("variant {} has {} raw configurations, more than 10^7; refused (narrow its value lists)", show(e.key),
                     vs.raw_size() == UINT64_MAX ? std::string("over 2^64") : std::to_string(vs.raw_size())));

  std::vector<std::string> text_values;
  for (const auto& d : decls)
    if (d.is_text) text_values.insert(text_values.end(), d.choices.begin(), d.choices.end());
  for (const auto& p : list) {
    if (p.key != "constraints") continue;
    const std::string what = "variants." + e.key + ".constraints";
    for (const auto& c : items(value(p, what), what)) {
      Constraint con{scalar(c, what), pos(c)};
      detail::check_constraint(con, names, text_values);
      vs.constraints.push_back(std::move(con));
    }
  }
  return vs;
}

ParamValues Loader::param(const ParamDecl& d, const Entry& e, const std::string& variant) const {
  const std::string what = "variants." + variant + "." + d.name;
  ParamValues pv{d.name, {}, pos(value(e, what))};
  if (e.value.IsMap()) {
    pv.values = generated(d, e.value, what);
    for (const auto& v : pv.values)
      if (auto why = param_value_error(d, std::get<std::int64_t>(v))) fail(e.value, fmt::format("{}: {}", what, *why));
    return pv;
  }
  std::vector<std::string> seen;
  for (const auto& n : items(e.value, what)) {
    std::string s = scalar(n, what);
    if (d.is_text) {
      if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), s) == d.choices.end())
        fail(n, fmt::format("{}: {} is not a choice (choices: {})", what, show(s), join(d.choices)));
      pv.values.emplace_back(s);
    } else {
      std::int64_t x = 0;
      if (!parse_int64(s, x)) fail(n, fmt::format("{} takes integers, got {}", what, show(s)));
      if (x < INT32_MIN || x > INT32_MAX)
        fail(n, fmt::format("{}: {} is outside the 32-bit range kernels take", what, x));
      if (auto why = param_value_error(d, x)) fail(n, fmt::format("{}: {}", what, *why));
      s = std::to_string(x);
      pv.values.emplace_back(x);
    }
    if (std::find(seen.begin(), seen.end(), s) != seen.end())
      fail(n, fmt::format("{}: value {} is listed twice", what, show(s)));
    seen.push_back(s);
  }
  return pv;
}

// {range: [from, to], step: s} or {pow2: [lo, hi]}.
std::vector<Value> Loader::generated(const ParamDecl& d, const YAML::Node& n, const std::string& what) const {
  auto list = entries(n, what, {"range", "step", "pow2"});
  const Entry *range = nullptr, *step = nullptr, *pow2 = nullptr;
  for (const auto& e : list) (e.key == "range" ? range : e.key == "step" ? step : pow2) = &e;
  if (!range == !pow2) fail(n, fmt::format("{}: give either range or pow2", what));
  if (step && !range) fail(step->key_node, fmt::format("{}: step belongs to range", what));
  if (d.is_text)
    fail(n, fmt::format("{}: {} needs an integer parameter; this one takes {}", what, range ? "range" : "pow2",
                        join(d.choices)));
  const Entry& bounds = range ? *range : *pow2;
  const std::string bw = what + "." + bounds.key;
  const YAML::Node& b = value(bounds, bw);
  if (!b.IsSequence() || b.size() != 2) fail(b, fmt::format("{} must be a list [from, to], got {}", bw, kind(b)));
  std::int64_t lo = integer(b[0], bw, INT32_MIN, INT32_MAX), hi = integer(b[1], bw, INT32_MIN, INT32_MAX);
  if (lo > hi) fail(b, fmt::format("{}: from {} is greater than to {}", bw, lo, hi));
  std::vector<Value> out;
  if (range) {
    std::int64_t s = step ? integer(value(*step, what + ".step"), what + ".step", INT64_MIN, INT64_MAX) : 1;
    if (s <= 0) fail(step->value, fmt::format("{}.step must be positive, got {}", what, s));
    std::uint64_t steps =
        (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / static_cast<std::uint64_t>(s);
    if (steps >= kMaxList) fail(b, fmt::format("{} yields more than {} values; refused", bw, kMaxList));
    for (std::int64_t i = 0; i <= static_cast<std::int64_t>(steps); ++i) out.emplace_back(lo + i * s);
  } else {
    auto is_pow2 = [](std::int64_t x) { return x >= 1 && (x & (x - 1)) == 0; };
    if (!is_pow2(lo)) fail(b[0], fmt::format("{}: {} is not a power of two", bw, lo));
    if (!is_pow2(hi)) fail(b[1], fmt::format("{}: {} is not a power of two", bw, hi));
    for (std::int64_t x = lo; x <= hi; x *= 2) {
      out.emplace_back(x);
      if (x == hi) break;
    }
  }
  return out;
}

// {name: TEXT, steps: [{step: TEXT, variant: NAME, device: SELECTOR, params: {p: value, ...}}, ...]}:
// each step one configuration of a variant the space tunes, its parameters checked as in `variants`
// (one value each; the variant's constraints are not applied: a step may be one the search excludes).
Ladder Loader::ladder(const YAML::Node& n, const Space& space) const {
  Ladder out;
  std::optional<YAML::Node> steps;
  for (const auto& e : entries(n, "ladder", {"name", "steps"})) {
    if (e.key == "name") out.name = scalar(value(e, "ladder.name"), "ladder.name");
    if (e.key == "steps") steps = value(e, "ladder.steps");
  }
  if (out.name.empty()) fail(n, "ladder.name is missing or empty");
  if (!steps) fail(n, "ladder.steps is missing (a list of steps: step, variant, params)");
  if (!steps->IsSequence() || steps->size() == 0)
    fail(*steps, fmt::format("ladder.steps must be a non-empty list of steps, got {}", kind(*steps)));
  for (auto it = steps->begin(); it != steps->end(); ++it) out.steps.push_back(ladder_step(*it, space, out));
  return out;
}

LadderStep Loader::ladder_step(const YAML::Node& n, const Space& space, const Ladder& so_far) const {
  LadderStep st;
  st.pos = pos(n);
  const std::string what = fmt::format("ladder.steps[{}]", so_far.steps.size());
  std::optional<Entry> variant_entry, params;
  for (const auto& e : entries(n, what, {"step", "variant", "device", "params"})) {
    if (e.key == "step") st.name = scalar(value(e, what + ".step"), what + ".step");
    if (e.key == "variant") variant_entry = e;
    if (e.key == "device") st.device = scalar(value(e, what + ".device"), what + ".device");
    if (e.key == "params") params = e;
  }
  if (st.name.empty()) fail(n, what + ".step (the step's name) is missing or empty");
  for (const LadderStep& s : so_far.steps)
    if (s.name == st.name) fail(n, fmt::format("{}: step {} is named twice", what, show(st.name)));
  if (!variant_entry) fail(n, what + ".variant is missing");
  st.variant = scalar(value(*variant_entry, what + ".variant"), what + ".variant");
  if (std::none_of(space.variants.begin(), space.variants.end(),
                   [&](const VariantSpace& v) { return v.variant == st.variant; }))
    fail(variant_entry->value, fmt::format("{}: variant {} is not under variants (a ladder measures variants the "
                                           "space tunes)", what, show(st.variant)));
  YAML::Node values(YAML::NodeType::Null);
  if (params && !params->value.IsNull()) {
    for (const auto& p : entries(params->value, what + ".params"))
      if (p.key == "constraints") fail(p.key_node, what + ".params: a step is one configuration; no constraints");
    values = params->value;
  }
  const VariantSpace vs = variant({st.variant, variant_entry->value, values}, space.backends);
  for (const ParamValues& p : vs.params) {
    if (p.values.size() != 1)
      fail_at(p.pos, fmt::format("{}.params.{}: a step is one configuration; give one value, got {}", what, p.name,
                                 p.values.size()));
    st.config.set(p.name, p.values.front());
  }
  return st;
}

}  // namespace pimg::space_detail
