// Registers the maxpool family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::maxpool {
void register_maxpool(Registry& reg);
}
