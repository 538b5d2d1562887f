// Baseline: the serial reference itself, timed on the host like any variant.
#include "flip/flip_family.hpp"
#include "flip/variants.hpp"

namespace pimg::flip {
namespace {

// buffers: in, out; ints: width, height, planes, samples per pixel.
void flip_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
            static_cast<int>(ints[0]), static_cast<int>(ints[1]), static_cast<int>(ints[2]), static_cast<int>(ints[3]));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("flip_serial", &flip_serial);
  reg.add_variant(make_variant(
      {"serial", "flip", "host", NativeCall{"flip_serial", ""}, "the serial CPU reference, one thread (baseline)", {},
       [](const PlanContext& x) { return pix::layout_host_plan("flip_serial", x.problem); },
       true}));
}

}  // namespace pimg::flip
