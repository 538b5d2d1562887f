// cuda_texture: kernels/rotate/rotate_cuda.cu with TEXTURE=1, the source read through a texture object over a
// CUDA array (2-D block-linear layout, texture cache) at integer texel centres with point sampling, so the
// bytes are the rule's exactly; the same grid, pixels per thread, incremental source points and packed stores
// as cuda_direct.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
std::unique_ptr<Variant> make_cuda_texture() {
  return make_variant({"cuda_texture", "rotate", "cuda", "rotate/rotate_cuda.cu",
                       "CUDA gather rotation reading the source through a texture object (tex2D, point sampling at texel "
                       "centres), items_x x items_y pixels per thread",
                       cuda_params(false), [](const PlanContext& x) { return cuda_plan(x, true); }});
}

}  // namespace pimg::rotate
