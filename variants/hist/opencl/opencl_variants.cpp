// The OpenCL hist variants' registration.
#include "hist/gpu_common.hpp"

namespace pimg::hist {

void register_opencl_variants(Registry& reg) {
  reg.add_variant(make_global("opencl"));
  reg.add_variant(make_packed("opencl"));
  reg.add_variant(make_cl_local());
  reg.add_variant(make_outpart("opencl"));
}

}  // namespace pimg::hist
