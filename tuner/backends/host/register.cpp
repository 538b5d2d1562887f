// The host backend's registration (docs/design.md, "Adding a backend"), compiled into the registry
// (tuner/app/CMakeLists.txt). It is always built and compiles no kernel source, so it adds the backend alone.
#include "common/portable_target.hpp"
#include "host_backend.hpp"

namespace pimg {

// Its devices run the native functions the families register in r (looked up at each launch).
void register_host_backend(Registry& r, pix::PortableTargets&) { r.add_backend(make_host_backend(r)); }

}  // namespace pimg
