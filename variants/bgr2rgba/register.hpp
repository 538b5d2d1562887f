// Registers the bgr2rgba family, its variants and its host functions.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::bgr2rgba {
// `gpus`: the targets of its portable GPU variants (common/portable_target.hpp).
void register_bgr2rgba(Registry& reg, const pix::PortableTargets& gpus);
}
