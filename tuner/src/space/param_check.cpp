// The check of a parameter's value against what its variant declares (ParamDecl::allowed, min, max,
// choices): by the space loader, which refuses it with the value's place, and by plan() through
// int_value/text_value, so the declaration is the one place a parameter's values are written.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "pimg/variant.hpp"

namespace pimg {

std::optional<std::string> param_value_error(const ParamDecl& d, std::int64_t value) {
  if (!d.allowed.empty() && std::find(d.allowed.begin(), d.allowed.end(), value) == d.allowed.end())
    return fmt::format("{} is not one of the values {} runs ({})", value, d.name, fmt::join(d.allowed, ", "));
  if ((d.min && value < *d.min) || (d.max && value > *d.max))
    return fmt::format("{} is outside {}..{}", value, d.min ? std::to_string(*d.min) : "", d.max ? std::to_string(*d.max) : "");
  return std::nullopt;
}

std::string param_values_text(const ParamDecl& d) {
  if (d.is_text) return fmt::format("{}", fmt::join(d.choices, "|"));
  if (!d.allowed.empty()) return fmt::format("{}", fmt::join(d.allowed, "|"));
  if (d.min || d.max)
    return fmt::format("{}..{}", d.min ? std::to_string(*d.min) : "", d.max ? std::to_string(*d.max) : "");
  return "integer";
}

ParamDecl int_range(std::string name, std::int64_t def, std::string help, std::int64_t lo, std::int64_t hi) {
  ParamDecl d{std::move(name), false, {}, def, std::move(help)};
  d.min = lo;
  d.max = hi;
  return d;
}

ParamDecl int_choice(std::string name, std::int64_t def, std::string help, std::vector<std::int64_t> values) {
  ParamDecl d{std::move(name), false, {}, def, std::move(help)};
  d.allowed = std::move(values);
  return d;
}

ParamDecl text_choice(std::string name, std::vector<std::string> choices, std::string def, std::string help) {
  return {std::move(name), true, std::move(choices), std::move(def), std::move(help)};
}

namespace {

const ParamDecl& declared(const std::vector<ParamDecl>& decls, const std::string& name) {
  auto it = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& d) { return d.name == name; });
  if (it == decls.end()) throw PlanError(fmt::format("no parameter '{}'", name));
  return *it;
}

}  // namespace

std::int64_t int_value(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name) {
  const ParamDecl& d = declared(decls, name);
  const Value v = c.has(name) ? c.at(name) : d.default_value;
  const auto* i = std::get_if<std::int64_t>(&v);
  if (d.is_text || !i) throw PlanError(fmt::format("{} must be an integer, got {}", name, to_string(v)));
  if (auto why = param_value_error(d, *i)) throw PlanError(fmt::format("{}: {}", name, *why));
  return *i;
}

std::string text_value(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name) {
  const ParamDecl& d = declared(decls, name);
  const Value v = c.has(name) ? c.at(name) : d.default_value;
  const auto* t = std::get_if<std::string>(&v);
  if (!d.is_text || !t || (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), *t) == d.choices.end()))
    throw PlanError(fmt::format("{} must be one of {}, got {}", name, fmt::join(d.choices, "|"), to_string(v)));
  return *t;
}

}  // namespace pimg
