// The conv family's one registration list: adding a variant is a file plus a line here.
#include "register.hpp"

#include "conv_family.hpp"

namespace pimg::conv {

void register_serial(Registry& reg);
void register_pthread_rows(Registry& reg);
void register_opencv(Registry& reg);
void register_opencl_variants(Registry& reg);
void register_openmp_variants(Registry& reg);
void register_cuda_variants(Registry& reg);
void register_mpi_variants(Registry& reg);

void register_conv(Registry& reg) {
  reg.add_family(std::make_unique<ConvFamily>());
  register_serial(reg);
  register_pthread_rows(reg);
  register_opencv(reg);
  register_opencl_variants(reg);
  register_openmp_variants(reg);
  register_cuda_variants(reg);
  register_mpi_variants(reg);
}

}  // namespace pimg::conv
