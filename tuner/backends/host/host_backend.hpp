// The host backend: runs native functions registered by the families (serial references, OpenCV
// baselines) on the CPU, timed with the host clock. Nothing is compiled.
#pragma once
#include "pimg/registry.hpp"

namespace pimg {
std::unique_ptr<Backend> make_host_backend(const Registry& functions);
}
