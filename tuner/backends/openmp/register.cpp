// The OpenMP backend's registration (docs/design.md, "Adding a backend"), compiled into the registry
// (tuner/app/CMakeLists.txt) whether or not the backend is built: its language, C++ built by the host compiler,
// is declared in every build (a user's C++ kernel finds it by it), and the backend that runs it is added where it
// was built (PIMG_WITH_OPENMP). It compiles none of the portable GPU kernels.
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"
#if PIMG_WITH_OPENMP
#include "openmp_backend.hpp"
#endif

namespace pimg {

void register_openmp_backend(Registry& r, pix::PortableTargets&) {
  r.add_source_language("openmp", "C++");
#if PIMG_WITH_OPENMP
  r.add_backend(make_openmp_backend());
#endif
}

}  // namespace pimg
