// The semblance family's one registration list: adding a variant is a file plus a line here.
#include "register.hpp"

#include "semblance_family.hpp"
#include "semblance_variants.hpp"

namespace pimg::semblance {

void register_serial(Registry& reg);

void register_semblance(Registry& reg) {
  reg.add_family(std::make_unique<SemblanceFamily>());
  register_serial(reg);
  reg.add_variant(make_omp_grid());
  reg.add_variant(make_cl_grid());
  reg.add_variant(make_cl_argmax());
  reg.add_variant(make_cuda_grid());
  reg.add_variant(make_cuda_argmax());
  reg.add_variant(make_mpi_grid());
  reg.add_variant(make_mpi_cuda_grid());
}

}  // namespace pimg::semblance
