// cl_image: kernels/rotate/rotate_direct.cl with IMAGE=1, the source read from an image2d_t of 1-byte texels
// at integer coordinates with a nearest sampler (exactly the rule's bytes), the texture path; the same grid,
// pixels per work item and spread as cl_direct.
#include "rotate/rotate_common.hpp"

namespace pimg::rotate {
std::unique_ptr<Variant> make_cl_image() {
  return make_variant({"cl_image", "rotate", "opencl", "rotate/rotate_direct.cl",
                       "OpenCL gather rotation reading the source from an image2d_t (read_imageui at integer coordinates)",
                       grid_params(), [](const PlanContext& x) { return cl_plan(x, true); }});
}

}  // namespace pimg::rotate
