// Registers the conv family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::conv {
void register_conv(Registry& reg);
}
