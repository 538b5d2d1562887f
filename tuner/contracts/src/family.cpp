// Shared helpers of the family contract.
#include "pimg/family.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pimg {

const HostBuffer& Workload::input(const std::string& name) const {
  for (const auto& b : inputs)
    if (b.name == name) return b;
  throw std::out_of_range(fmt::format("workload has no buffer '{}'", name));
}

}  // namespace pimg
