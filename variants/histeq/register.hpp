// Registers the histeq family and its variants.
#pragma once
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg::histeq {
void register_histeq(Registry& reg, const pix::PortableTargets& gpus);
}
