// The OpenCL backend: every device of every ICD platform, kernels built from source with a binary
// cache (memory and disk), buffers, read-only 1-byte images and launches timed by profiling events.
// This header is vendor-free; the CL headers stay inside the backend's own files (opencl_backend.cpp, cl_devices.*,
// cl_cold_cache.*).
#pragma once
#include <memory>

#include "pimg/backend.hpp"

namespace pimg {
std::unique_ptr<Backend> make_opencl_backend();
}
