// The CUDA backend's registration (docs/design.md, "Adding a backend"), compiled into the registry
// (tuner/app/CMakeLists.txt) whether or not the backend is built: its language (a T1 file's, a user kernel's)
// and its portable target (the cuda_* portable variants) are declared in every build, as variants are, and the
// backend that runs them is added where it was built (PIMG_WITH_CUDA).
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"
#if PIMG_WITH_CUDA
#include "cuda_backend.hpp"
#endif

namespace pimg {

void register_cuda_backend(Registry& r, pix::PortableTargets& gpus) {
  r.add_source_language("cuda", "CUDA");
  gpus.push_back({"cuda", "cuda", ".cu", {}});  // NVRTC's default -prec-div=true is exact already
#if PIMG_WITH_CUDA
  r.add_backend(make_cuda_backend());
#endif
}

}  // namespace pimg
