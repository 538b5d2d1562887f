// The rotate family's one registration list: adding a variant is a file plus a line here.
#include "register.hpp"

#include "rotate_common.hpp"

namespace pimg::rotate {

void register_rotate(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<RotateFamily>());
  register_serial(reg);
  register_opencv(reg);
  reg.add_variant(make_cl_direct());
  reg.add_variant(make_cl_image());
  reg.add_variant(make_omp_rows());
  reg.add_variant(make_omp_tiles());
  reg.add_variant(make_cuda_direct());
  reg.add_variant(make_cuda_texture());
  reg.add_variant(make_npp_rotate());
  for (const pix::PortableTarget& gpu : gpus) reg.add_variant(make_gpu_scatter(gpu));
  reg.add_variant(make_omp_scatter());
}

}  // namespace pimg::rotate
