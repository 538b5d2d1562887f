// The MPI backend's registration (docs/design.md, "Adding a backend"), compiled into the registry
// (tuner/app/CMakeLists.txt). Its workers are the families' own programs, not sources it compiles, so it declares
// no language and no portable target: it adds the backend where MPI was found (PIMG_WITH_MPI) and nothing else.
#include "common/portable_target.hpp"
#include "pimg/registry.hpp"
#if PIMG_WITH_MPI
#include "mpi_backend.hpp"
#endif

namespace pimg {

void register_mpi_backend([[maybe_unused]] Registry& r, pix::PortableTargets&) {
#if PIMG_WITH_MPI
  r.add_backend(make_mpi_backend());
#endif
}

}  // namespace pimg
