// The OpenCL hist variants of this backend alone: cl_local (the portable ones register on every target in
// register_hist).
#include "hist/gpu_common.hpp"

namespace pimg::hist {

void register_opencl_variants(Registry& reg) {
  reg.add_variant(make_cl_local());
}

}  // namespace pimg::hist
