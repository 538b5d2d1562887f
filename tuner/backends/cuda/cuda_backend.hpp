// The CUDA backend: the driver API and NVRTC loaded at run time (dlopen), so pimg-tune runs where no
// CUDA driver exists and reports CUDA unavailable with the reason. Kernels are compiled by NVRTC for
// the device's compute capability with a cubin cache in memory and on disk; library baselines (NPP, CUB)
// run as its native calls (cuda_library.hpp).
// This header is vendor-free; CUDA headers stay inside the backend's .cpp files.
#pragma once
#include <memory>

#include "pimg/backend.hpp"

namespace pimg {
std::unique_ptr<Backend> make_cuda_backend();
}
