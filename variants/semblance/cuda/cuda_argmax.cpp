// cuda_argmax: kernels/semblance/semblance.cu (body kernels/semblance/semblance_device.h) on CUDA: the search with the arg-max on the device: each work-group reduces its items' best point into scratch, a second kernel reduces the groups' into the output header.
#include "semblance/semblance_variants.hpp"

namespace pimg::semblance {

std::unique_ptr<Variant> make_cuda_argmax() {
  return make_device_variant({"cuda_argmax", "cuda", "semblance/semblance.cu", DeviceApi::cuda, true,
                              "CUDA: the search with the arg-max on the device: each work-group reduces its items' best point into scratch, a second kernel reduces the groups' into the output header"});
}

}  // namespace pimg::semblance
