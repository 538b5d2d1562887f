// Validation of strategy options against their typed declarations, and the configuration-level
// ask/tell every strategy offers on top of its point-level one; the summary of priors.
#include "pimg/strategy.hpp"

#include <fmt/format.h>

#include "pimg/errors.hpp"

#include <algorithm>
#include <cmath>
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
    double x = 0;
    try {
      std::size_t used = 0;
      if (decl->type == OptionDecl::Type::Int) x = static_cast<double>(std::stoll(v, &used));
      if (decl->type == OptionDecl::Type::Real) x = std::stod(v, &used);
      if (decl->type != OptionDecl::Type::Text && (used != v.size() || !std::isfinite(x))) throw std::invalid_argument(v);
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("strategy option '{}' must be {}, got '{}'", k,
                                              decl->type == OptionDecl::Type::Int ? "an integer" : "a number", v));
    }
    if (decl->type != OptionDecl::Type::Text && ((decl->min && x < *decl->min) || (decl->max && x > *decl->max))) {
      std::string range = decl->min && decl->max ? fmt::format("in {}..{}", *decl->min, *decl->max)
                          : decl->min             ? fmt::format(">= {}", *decl->min)
                                                  : fmt::format("<= {}", *decl->max);
      throw std::invalid_argument(fmt::format("strategy option '{}' must be {}, got '{}'", k, range, v));
    }
    out[k] = v;
  }
  return out;
}

std::vector<std::string> prior_groups(const std::vector<PriorResult>& priors) {
  std::vector<std::pair<std::string, std::size_t>> counts;
  for (const auto& p : priors) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == p.group; });
    if (it == counts.end()) it = counts.insert(counts.end(), {p.group, 0});
    ++it->second;
  }
  std::vector<std::string> out;
  for (const auto& [group, n] : counts) out.push_back(fmt::format("{} ({})", group, n));
  return out;
}

std::string priors_note(const std::vector<std::string>& groups) {
  if (groups.empty()) return "priors: none (other devices' and problems' results are used only with --transfer)";
  std::string out = "priors (--transfer):";
  for (std::size_t i = 0; i < groups.size(); ++i) out += (i ? ", " : " ") + groups[i];
  return out;
}

std::optional<Config> Strategy::next() {
  auto p = ask();
  if (!p) return std::nullopt;
  return space_.config(*p);
}

void Strategy::tell(const Config& c, const Outcome& o) {
  auto p = space_.find(c);
  PIMG_CHECK(p, "told a configuration outside the strategy's space: " + c.brief());
  observe(*p, o);
}

}  // namespace pimg
