// The OpenCL backend's registration (docs/design.md, "Adding a backend"), compiled into the registry
// (tuner/app/CMakeLists.txt) whether or not the backend is built: its language and its portable target are
// declared in every build (a user's OpenCL kernel, the cl_* portable variants), as variants are, and the
// backend that runs them is added where it was built (PIMG_WITH_OPENCL).
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"
#if PIMG_WITH_OPENCL
#include "opencl_backend.hpp"
#endif

namespace pimg {

void register_opencl_backend(Registry& r, pix::PortableTargets& gpus) {
  r.add_source_language("opencl", "OpenCL");
  gpus.push_back({"opencl", "cl", ".cl", {"-cl-fp32-correctly-rounded-divide-sqrt"}});
#if PIMG_WITH_OPENCL
  r.add_backend(make_opencl_backend());
#endif
}

}  // namespace pimg
