// Registers the flip family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::flip {
void register_flip(Registry& reg);
}
