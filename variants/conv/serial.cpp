// Baseline: the serial CPU reference itself, timed on the host like any variant.
#include "conv_family.hpp"
#include "register.hpp"
#include "variant_base.hpp"

namespace pimg::conv {
namespace {

// buffers: in, out, weights; ints: width, height, channels, planar, border, k, divisor
void conv_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  ConvSpec s;
  s.width = static_cast<int>(ints[0]);
  s.height = static_cast<int>(ints[1]);
  s.channels = static_cast<int>(ints[2]);
  s.planar = ints[3] != 0;
  s.border = static_cast<int>(ints[4]);
  s.k = static_cast<int>(ints[5]);
  s.divisor = static_cast<int>(ints[6]);
  const int* w = static_cast<const int*>(buffers[2]);
  s.weights.assign(w, w + s.k * s.k);
  s.out_width = s.border == 1 ? s.width - s.k + 1 : s.width;
  s.out_height = s.border == 1 ? s.height - s.k + 1 : s.height;
  reference(s, static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]));
}

class Serial final : public Variant {
 public:
  std::string name() const override { return "serial"; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "host"; }
  std::string source() const override { return "builtin:conv_serial"; }
  std::string help() const override { return "the serial CPU reference, one thread (baseline)"; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  LaunchPlan plan(const Problem& p, const Workload&, const Config&, const DeviceInfo&) const override {
    const ConvSpec s = spec_of(p);
    LaunchPlan plan;
    plan.entry = "conv_serial";
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::buf("weights"),
                 KernelArg::integer(s.width), KernelArg::integer(s.height), KernelArg::integer(s.channels),
                 KernelArg::integer(s.planar), KernelArg::integer(s.border), KernelArg::integer(s.k),
                 KernelArg::integer(s.divisor)};
    return plan;
  }
};

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("conv_serial", &conv_serial);
  reg.add_variant(std::make_unique<Serial>());
}

}  // namespace pimg::conv
