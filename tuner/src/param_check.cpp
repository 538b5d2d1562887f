// The load-time check of an integer parameter's value against what its variant declares
// (ParamDecl::allowed, min, max), so the space loader refuses it with the value's place.
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

}  // namespace pimg
