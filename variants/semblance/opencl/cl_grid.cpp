// cl_grid: kernels/semblance/semblance.cl (body kernels/semblance/semblance_device.h) on OpenCL: every grid point's semblance and stack written by one work item (or ppi of them along E).
#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {

std::unique_ptr<Variant> make_cl_grid() {
  return make_device_variant({"cl_grid", "opencl", "semblance/semblance.cl", DeviceApi::opencl, false,
                              "OpenCL: every grid point's semblance and stack written by one work item (or ppi of them along E)"});
}

}  // namespace pimg::semblance
