// Registers the bgr2rgba family, its variants and its host functions.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::bgr2rgba {
void register_bgr2rgba(Registry& reg);
}
