// The CUDA hist variants of this backend alone (they need no CUDA headers and register in every build):
// cuda_shared and the library baselines CUB and NPP run by the CUDA backend; the portable ones register
// on every target in register_hist.
#include "hist/gpu_common.hpp"

namespace pimg::hist {

void register_cuda_variants(Registry& reg) {
  reg.add_variant(make_cuda_shared());
  reg.add_variant(make_cub_histogram());
  reg.add_variant(make_npp_histogram());
}

}  // namespace pimg::hist
