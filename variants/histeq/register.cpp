// The histeq family's one registration list: adding a variant is a file plus a line here.
#include "register.hpp"

#include "histeq_family.hpp"

namespace pimg::histeq {

void register_host_variants(Registry& reg);
void register_omp_variants(Registry& reg);
void register_gpu_variants(Registry& reg, const pix::PortableTargets& gpus);

void register_histeq(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<HisteqFamily>());
  register_host_variants(reg);
  register_omp_variants(reg);
  register_gpu_variants(reg, gpus);
}

}  // namespace pimg::histeq
