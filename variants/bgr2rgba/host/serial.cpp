// Baseline: the serial reference itself, timed on the host like any variant.
#include "bgr2rgba/bgr2rgba_family.hpp"
#include "bgr2rgba/variants.hpp"

namespace pimg::bgr2rgba {
namespace {

// buffers: in, out; ints: width, height, alpha.
void bgr2rgba_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
            static_cast<std::size_t>(ints[0]) * static_cast<std::size_t>(ints[1]), static_cast<int>(ints[2]));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("bgr2rgba_serial", &bgr2rgba_serial);
  reg.add_variant(make_variant(
      {"serial", "bgr2rgba", "host", NativeCall{"bgr2rgba_serial", ""}, "the serial CPU reference, one thread (baseline)", {},
       [](const PlanContext& x) {
         const Problem& p = x.problem;
         LaunchPlan plan;
         plan.entry = "bgr2rgba_serial";
         plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(p.width),
                      KernelArg::integer(p.height), KernelArg::integer(std::stoi(p.attr("alpha")))};
         return plan;
       },
       true}));
}

}  // namespace pimg::bgr2rgba
