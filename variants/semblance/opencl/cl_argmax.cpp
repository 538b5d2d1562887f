// cl_argmax: kernels/semblance/semblance.cl (body kernels/semblance/semblance_device.h) on OpenCL: the search with the arg-max on the device: each work-group reduces its items' best point into scratch, a second kernel reduces the groups' into the output header.
#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {

std::unique_ptr<Variant> make_cl_argmax() {
  return make_device_variant({"cl_argmax", "opencl", "semblance/semblance.cl", DeviceApi::opencl, true,
                              "OpenCL: the search with the arg-max on the device: each work-group reduces its items' best point into scratch, a second kernel reduces the groups' into the output header"});
}

}  // namespace pimg::semblance
