// Registers the maxpool family, its variants and its host functions.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::maxpool {
// `gpus`: the targets of its portable GPU variants (common/portable_target.hpp).
void register_maxpool(Registry& reg, const pix::PortableTargets& gpus);
}
