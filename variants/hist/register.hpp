// Registers the hist family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::hist {
void register_hist(Registry& reg);
}
