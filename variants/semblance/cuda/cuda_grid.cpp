// cuda_grid: kernels/semblance/semblance.cu (body kernels/semblance/semblance_device.h) on CUDA: every grid point's semblance and stack written by one work item (or ppi of them along E).
#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {

std::unique_ptr<Variant> make_cuda_grid() {
  return make_device_variant({"cuda_grid", "cuda", "semblance/semblance.cu", DeviceApi::cuda, false,
                              "CUDA: every grid point's semblance and stack written by one work item (or ppi of them along E)"});
}

}  // namespace pimg::semblance
