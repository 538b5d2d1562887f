// Registers the semblance family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::semblance {
void register_semblance(Registry& reg);
}
