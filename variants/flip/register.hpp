// Registers the flip family, its variants and its host functions.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::flip {
// `gpus`: the targets of its portable GPU variants (common/portable_target.hpp).
void register_flip(Registry& reg, const pix::PortableTargets& gpus);
}
