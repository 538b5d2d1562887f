// Registers the rotate family, its variants and its host functions.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::rotate {
// `gpus`: the targets of its portable GPU variants (common/portable_target.hpp).
void register_rotate(Registry& reg, const pix::PortableTargets& gpus);
}
