// Baseline: the serial CPU reference itself, timed on the host like any variant.
#include "hist_common.hpp"

namespace pimg::hist {
namespace {

// buffers: in, out; ints: samples, channels, planar.
void hist_serial(void* const* buffers, const std::int64_t* ints, const double*) {
  reference(static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::size_t>(ints[0]), static_cast<int>(ints[1]),
            ints[2] != 0, static_cast<std::uint32_t*>(buffers[1]));
}

class Serial final : public Variant {
 public:
  std::string name() const override { return "serial"; }
  std::string family() const override { return "hist"; }
  std::string backend() const override { return "host"; }
  std::string source() const override { return ""; }
  std::optional<NativeCall> native() const override { return NativeCall{"hist_serial", ""}; }
  std::string help() const override { return "the serial CPU reference, one thread (baseline)"; }
  std::vector<ParamDecl> parameters() const override { return {}; }
  bool baseline() const override { return true; }
  LaunchPlan plan(const Problem& p, const Workload&, const Config&, const DeviceInfo&) const override {
    const HistSpec s = spec_of(p);
    LaunchPlan plan;
    plan.entry = "hist_serial";
    plan.args = {KernelArg::buf("in"), KernelArg::buf("out"),
                 KernelArg::integer(static_cast<std::int64_t>(s.samples())), KernelArg::integer(s.channels),
                 KernelArg::integer(s.planar ? 1 : 0)};
    return plan;
  }
};

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("hist_serial", &hist_serial);
  reg.add_variant(std::make_unique<Serial>());
}

}  // namespace pimg::hist
