// Baseline: the serial reference itself, timed on the host like any variant.
#include "maxpool/maxpool_family.hpp"
#include "maxpool/variants.hpp"

namespace pimg::maxpool {
namespace {

// buffers: in, out; ints: width, height, planes, samples per pixel, window.
void maxpool_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
            static_cast<int>(ints[0]), static_cast<int>(ints[1]), static_cast<int>(ints[2]), static_cast<int>(ints[3]),
            static_cast<int>(ints[4]));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("maxpool_serial", &maxpool_serial);
  reg.add_variant(make_variant(
      {"serial", "maxpool", "host", NativeCall{"maxpool_serial", ""}, "the serial CPU reference, one thread (baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan = pix::layout_host_plan("maxpool_serial", p);
         plan.args.push_back(KernelArg::integer(window_of(p)));
         return plan;
       },
       true}));
}

}  // namespace pimg::maxpool
