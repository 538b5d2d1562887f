// Registers the hist family, its variants and its host functions.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::hist {
void register_hist(Registry& reg, const pix::PortableTargets& gpus);
}
