// Registers the histeq family and its variants.
#pragma once
#include "pimg/registry.hpp"

namespace pimg::histeq {
void register_histeq(Registry& reg);
}
