// Validation of strategy options against their typed declarations.
#include "pimg/strategy.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pimg {

OptionValues resolve_options(const StrategyInfo& info, const std::map<std::string, std::string>& given) {
  OptionValues out;
  for (const auto& d : info.options) out[d.name] = d.default_value;
  for (const auto& [k, v] : given) {
    const OptionDecl* decl = nullptr;
    for (const auto& d : info.options)
      if (d.name == k) decl = &d;
    if (!decl) {
      std::string known;
      for (const auto& d : info.options) known += (known.empty() ? "" : ", ") + d.name;
      throw std::invalid_argument(fmt::format("strategy '{}' has no option '{}' (options: {})", info.name, k,
                                              known.empty() ? "none" : known));
    }
    try {
      std::size_t used = 0;
      if (decl->type == OptionDecl::Type::Int) (void)std::stoll(v, &used);
      if (decl->type == OptionDecl::Type::Real) (void)std::stod(v, &used);
      if (decl->type != OptionDecl::Type::Text && used != v.size()) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("strategy option '{}' must be {}, got '{}'", k,
                                              decl->type == OptionDecl::Type::Int ? "an integer" : "a number", v));
    }
    out[k] = v;
  }
  return out;
}

}  // namespace pimg
