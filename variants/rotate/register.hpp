// Registers the rotate family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::rotate {
void register_rotate(Registry& reg);
}
