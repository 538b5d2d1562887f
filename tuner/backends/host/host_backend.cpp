// Host backend: "compiling" resolves a native call against the registry's host functions.
#include "host_backend.hpp"

#include <fmt/format.h>

#include "host_memory.hpp"

namespace pimg {
namespace {

class HostProgram final : public Program {
 public:
  explicit HostProgram(HostKernelFn f) : fn(f) {}
  HostKernelFn fn;
};

class HostDevice final : public HostClockDevice {
 public:
  HostDevice(DeviceInfo info, const Registry& reg) : HostClockDevice(std::move(info)), reg_(reg) {}
  CompileResult compile(const KernelSource& source, const LaunchPlan&) override {
    CompileResult r;
    if (!source.native) {
      r.log = fmt::format("the host backend runs native calls, not the kernel '{}'", source.path);
      return r;
    }
    HostKernelFn fn = reg_.host_function(source.native->name);
    if (!fn) {
      r.log = fmt::format("the host backend has no native function '{}'", source.native->name);
      return r;
    }
    r.program = std::make_shared<HostProgram>(fn);
    r.cached = true;
    return r;
  }
  LaunchResult launch(Program& program, const LaunchPlan& plan,
                      const std::map<std::string, DeviceBuffer*>& buffers) override {
    LaunchResult r;
    try {
      r.kernel_ms = call_host_kernel(static_cast<HostProgram&>(program).fn, plan, buffers);
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  }

 private:
  const Registry& reg_;
};

class HostBackend final : public Backend {
 public:
  explicit HostBackend(const Registry& reg) : reg_(reg) {}
  std::string name() const override { return "host"; }
  BackendStatus status() const override { return {true, ""}; }
  std::vector<DeviceInfo> devices() const override {
    DeviceInfo d = host_device_info("host");
    d.platform = "native functions";
    return {d};
  }
  std::unique_ptr<Device> open(const DeviceInfo& info) const override {
    return std::make_unique<HostDevice>(info, reg_);
  }
  std::optional<CopyKernel> copy_kernel(std::size_t) const override { return std::nullopt; }
  std::vector<std::string> native_calls() const override { return reg_.host_functions(); }

 private:
  const Registry& reg_;
};

}  // namespace

std::unique_ptr<Backend> make_host_backend(const Registry& functions) {
  return std::make_unique<HostBackend>(functions);
}

}  // namespace pimg
