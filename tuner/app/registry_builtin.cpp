// The registry of this build: every family, variant, strategy, observer and backend, registered explicitly.
// The only file where backend build options (#if PIMG_WITH_*) appear.
#include "bgr2rgba/register.hpp"
#include "conv/register.hpp"
#include "hist/register.hpp"
#include "histeq/register.hpp"
#include "flip/register.hpp"
#include "maxpool/register.hpp"
#include "observers.hpp"
#include "host_backend.hpp"
#include "pimg/registry.hpp"
#include "pimg/strategies.hpp"
#include "rotate/register.hpp"
#include "semblance/register.hpp"
#if PIMG_WITH_OPENCL
#include "opencl_backend.hpp"
#endif
#if PIMG_WITH_OPENMP
#include "openmp_backend.hpp"
#endif
#if PIMG_WITH_CUDA
#include "cuda_backend.hpp"
#endif
#if PIMG_WITH_MPI
#include "mpi_backend.hpp"
#endif

namespace pimg {

// The backends that compile the portable GPU kernels (variants/common/portable_target.hpp), built or not:
// bgr2rgba, flip, maxpool, rotate, hist and histeq register each portable formulation once per target (cl_tree,
// cuda_tree).
static const pix::PortableTargets& portable_gpus() {
  static const pix::PortableTargets gpus = {{"opencl", "cl", ".cl", {"-cl-fp32-correctly-rounded-divide-sqrt"}},
                                            {"cuda", "cuda", ".cu", {}}};
  return gpus;
}

static void fill(Registry& r) {
  conv::register_conv(r);
  rotate::register_rotate(r, portable_gpus());
  bgr2rgba::register_bgr2rgba(r, portable_gpus());
  flip::register_flip(r, portable_gpus());
  maxpool::register_maxpool(r, portable_gpus());
  semblance::register_semblance(r);
  hist::register_hist(r, portable_gpus());
  histeq::register_histeq(r, portable_gpus());

  r.add_strategy(exhaustive_strategy());
  r.add_strategy(random_strategy());
  r.add_strategy(annealing_strategy());
  r.add_strategy(genetic_strategy());
  r.add_strategy(diffevo_strategy());
  r.add_strategy(local_strategy());
  r.add_strategy(forest_strategy());
  r.add_strategy(gp_strategy());
  r.add_strategy(portfolio_strategy());
  r.set_default_strategy("portfolio");  // chosen by replay: bench/results/2026-11-25-t4-strategies-4

  r.add_observer(nvml_observer());
  r.add_observer(cpu_load_observer());
  r.add_observer(perf_observer());
  r.add_observer(footprint_observer());
  r.add_observer(rapl_observer());

  // The languages of the kernel sources the backends compile, built or not (user kernels find theirs by it).
  r.add_source_language("opencl", "OpenCL");
  r.add_source_language("cuda", "CUDA");
  r.add_source_language("openmp", "C++");

  r.add_backend(make_host_backend(r));
#if PIMG_WITH_OPENCL
  r.add_backend(make_opencl_backend());
#endif
#if PIMG_WITH_OPENMP
  r.add_backend(make_openmp_backend());
#endif
#if PIMG_WITH_CUDA
  r.add_backend(make_cuda_backend());
#endif
#if PIMG_WITH_MPI
  r.add_backend(make_mpi_backend());
#endif
}

std::unique_ptr<Registry> Registry::make_builtin() {
  auto reg = std::make_unique<Registry>();
  fill(*reg);
  return reg;
}

const Registry& Registry::builtin() {
  static const std::unique_ptr<Registry> reg = make_builtin();
  return *reg;
}

}  // namespace pimg
