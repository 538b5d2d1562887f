// The CUDA hist variants' registration (they need no CUDA headers and register in every build), and
// the library baselines CUB and NPP run by the CUDA backend.
#include "hist/gpu_common.hpp"

namespace pimg::hist {

void register_cuda_variants(Registry& reg) {
  reg.add_variant(make_global("cuda"));
  reg.add_variant(make_packed("cuda"));
  reg.add_variant(make_cuda_shared());
  reg.add_variant(make_outpart("cuda"));
  reg.add_variant(make_cub_histogram());
  reg.add_variant(make_npp_histogram());
}

}  // namespace pimg::hist
