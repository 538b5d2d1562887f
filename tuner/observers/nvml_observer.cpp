// Observer `nvml` for CUDA devices: SM and memory clocks, temperature and power at the start and end of each
// evaluation, the energy it used, the lowest SM clock and every clock-event (throttle) reason seen around its
// runs, and the energy of the timed runs (energy.*); flags "throttled". libnvidia-ml.so.1 is opened at run
// time, as the CUDA backend opens libcuda.
#include <dlfcn.h>
#include <fmt/format.h>

#include <algorithm>
#include <type_traits>
#include <utility>

#include "observers.hpp"

namespace pimg {
namespace {

// The few NVML declarations used (nvml.h is not needed to build).
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr int NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0;

struct Nvml {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  const char* (*error_string)(nvmlReturn_t) = nullptr;
  nvmlReturn_t (*by_pci_bus_id)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*) = nullptr;                    // mW
  nvmlReturn_t (*energy)(nvmlDevice_t, unsigned long long*) = nullptr;         // mJ since the driver loaded
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  std::string missing;  // why NVML cannot be used, empty when it can
};

const Nvml& nvml() {
  static const Nvml api = [] {
    Nvml a;
    void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      a.missing = "libnvidia-ml.so.1 cannot be loaded (no NVIDIA driver on this machine)";
      return a;
    }
    auto sym = [&](auto& fn, const char* name, const char* fallback = nullptr) {
      void* p = ::dlsym(lib, name);
      if (!p && fallback) p = ::dlsym(lib, fallback);
      if (!p && a.missing.empty()) a.missing = fmt::format("libnvidia-ml.so.1 has no {}", name);
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    sym(a.init, "nvmlInit_v2");
    sym(a.shutdown, "nvmlShutdown");
    sym(a.error_string, "nvmlErrorString");
    sym(a.by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
    sym(a.clock, "nvmlDeviceGetClockInfo");
    sym(a.temperature, "nvmlDeviceGetTemperature");
    sym(a.power, "nvmlDeviceGetPowerUsage");
    sym(a.energy, "nvmlDeviceGetTotalEnergyConsumption");
    sym(a.reasons, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    return a;
  }();
  return api;
}

// One reading; a query the device does not support leaves its value at -1.
struct Reading {
  double sm_mhz = -1, mem_mhz = -1, temp_c = -1, power_w = -1, energy_j = -1;
  std::uint64_t reasons = 0;
};

class NvmlObserver final : public Observer {
 public:
  explicit NvmlObserver(nvmlDevice_t dev) : dev_(dev) {}
  ~NvmlObserver() override { nvml().shutdown(); }

  void begin() override {
    begin_ = {};
    read(begin_);
    begin_.energy_j = energy();
    reasons_ = begin_.reasons;
    min_sm_ = begin_.sm_mhz;
  }
  void before_run(int seq) override {
    if (seq != 0) return;
    window_ = {};
    if (const double j = energy(); j >= 0) window_.start(j);
  }
  // After each run only the cheap queries (throttle reasons, SM clock); the energy counter is read when the
  // first timed run starts and when the evaluation ends: it costs about 2 ms a query on the H100 machines,
  // and reading it after every run made the observer most of a short configuration's wall time.
  void after_run(int, std::vector<Metric>&) override { note_reasons_and_clock(); }
  // The back-to-back window (measure.energy_s): the energy counter read right before its first launch and right
  // after the device finished its last, stored instead of the timed runs' window.
  bool wants_window() const override { return true; }
  void window_begin() override {
    sustained_ = {};
    if (const double j = energy(); j >= 0) sustained_.start(j);
  }
  void window_end(std::int64_t runs, double device_ms) override {
    if (const double j = energy(); j >= 0) sustained_.sample(j);
    sustained_.set_runs(runs, device_ms);
    note_reasons_and_clock();  // a second at full load may meet the power cap: its throttle reasons count too
  }
  void end(std::vector<Metric>& out, std::vector<std::string>& flags) override {
    Reading end;
    end.energy_j = energy();  // the window's end first, before the other queries of read()
    if (end.energy_j >= 0) window_.sample(end.energy_j);
    read(end);
    reasons_ |= end.reasons;
    if (end.sm_mhz >= 0) min_sm_ = min_sm_ < 0 ? end.sm_mhz : std::min(min_sm_, end.sm_mhz);
    auto put = [&](const char* name, const char* unit, double value) {
      if (value >= 0) out.push_back({name, unit, -1, value});
    };
    put("nvml.sm_clock_mhz_begin", "MHz", begin_.sm_mhz);
    put("nvml.sm_clock_mhz_end", "MHz", end.sm_mhz);
    put("nvml.sm_clock_mhz_min", "MHz", min_sm_);
    put("nvml.mem_clock_mhz_begin", "MHz", begin_.mem_mhz);
    put("nvml.mem_clock_mhz_end", "MHz", end.mem_mhz);
    put("nvml.temperature_c_begin", "C", begin_.temp_c);
    put("nvml.temperature_c_end", "C", end.temp_c);
    put("nvml.power_w_begin", "W", begin_.power_w);
    put("nvml.power_w_end", "W", end.power_w);
    if (begin_.energy_j >= 0 && end.energy_j >= begin_.energy_j) put("nvml.energy_j", "J", end.energy_j - begin_.energy_j);
    out.push_back({"nvml.throttle_reasons", "bitmask", -1, static_cast<double>(reasons_)});
    // NVML's energy counter moves in steps: over the few milliseconds of a fast kernel's runs it gave 790 to
    // 2822 W on a 700 W H100 (bench/results/2026-11-25-h100-observe). A window under kMinWindowS is stored
    // as unresolved, never as a number; the back-to-back window (measure.energy_s: 1, as Kernel Tuner
    // measures energy over a continuous second) is the one that resolves it.
    (sustained_.started() ? sustained_ : window_).put(out, 0, kMinWindowS);
    sustained_ = {};
    if (nvml_throttle_reasons(reasons_).throttled) flags.push_back("throttled");
  }

 private:
  // The cheap queries (about a microsecond each): the throttle reasons seen and the lowest SM clock.
  void note_reasons_and_clock() {
    unsigned long long r = 0;
    if (nvml().reasons(dev_, &r) == NVML_SUCCESS) reasons_ |= r;
    unsigned mhz = 0;
    if (nvml().clock(dev_, NVML_CLOCK_SM, &mhz) == NVML_SUCCESS)
      min_sm_ = min_sm_ < 0 ? mhz : std::min(min_sm_, static_cast<double>(mhz));
  }
  // Everything but the energy counter, the one slow query (about 2 ms on the H100 machines, the others
  // a microsecond): that is read three times an evaluation, at begin(), the first timed run and end().
  void read(Reading& r) const {
    const Nvml& n = nvml();
    unsigned v = 0;
    unsigned long long e = 0;
    if (n.clock(dev_, NVML_CLOCK_SM, &v) == NVML_SUCCESS) r.sm_mhz = v;
    if (n.clock(dev_, NVML_CLOCK_MEM, &v) == NVML_SUCCESS) r.mem_mhz = v;
    if (n.temperature(dev_, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) r.temp_c = v;
    if (n.power(dev_, &v) == NVML_SUCCESS) r.power_w = v / 1000.0;
    if (n.reasons(dev_, &e) == NVML_SUCCESS) r.reasons = e;
  }
  double energy() const {
    unsigned long long mj = 0;
    return nvml().energy(dev_, &mj) == NVML_SUCCESS ? static_cast<double>(mj) / 1000.0 : -1;
  }

  static constexpr double kMinWindowS = 1.0;
  nvmlDevice_t dev_;
  Reading begin_;
  EnergyWindow window_, sustained_;
  std::uint64_t reasons_ = 0;
  double min_sm_ = -1;
};

std::unique_ptr<Observer> make_nvml(const DeviceInfo& d, std::string& why) {
  // Any device whose backend knows its PCI address (CUDA's attributes, OpenCL's cl_khr_pci_bus_info or NVIDIA's
  // query): NVML observes the GPU whichever API runs it.
  auto limit = [&](const char* key) { auto it = d.limits.find(key); return it == d.limits.end() ? -1.0 : it->second; };
  const double domain = limit("pci_domain_id"), bus = limit("pci_bus_id"), slot = limit("pci_device_id");
  if (domain < 0 || bus < 0 || slot < 0) {
    why = fmt::format("device {} has no PCI address to find it in NVML", d.id());
    return nullptr;
  }
  const Nvml& n = nvml();
  if (!n.missing.empty()) {
    why = n.missing;
    return nullptr;
  }
  if (const nvmlReturn_t r = n.init(); r != NVML_SUCCESS) {
    why = fmt::format("nvmlInit: {}", n.error_string(r));
    return nullptr;
  }
  const std::string address = fmt::format("{:08x}:{:02x}:{:02x}.0", static_cast<unsigned>(domain),
                                          static_cast<unsigned>(bus), static_cast<unsigned>(slot));
  nvmlDevice_t dev = nullptr;
  if (const nvmlReturn_t r = n.by_pci_bus_id(address.c_str(), &dev); r != NVML_SUCCESS) {
    why = fmt::format("NVML has no device at PCI {} ({}): {}", address, d.id(), n.error_string(r));
    n.shutdown();
    return nullptr;
  }
  return std::make_unique<NvmlObserver>(dev);
}

}  // namespace

ThrottleReasons nvml_throttle_reasons(std::uint64_t mask) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {0x1, "gpu_idle"},           {0x2, "applications_clocks"},   {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},        {0x10, "sync_boost"},           {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"}};
  constexpr std::uint64_t kNotThrottling = 0x1 | 0x2;  // idle, or clocks the user set
  ThrottleReasons out;
  out.throttled = (mask & ~kNotThrottling) != 0;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kNames) {
    known |= bit;
    if (mask & bit) out.names += (out.names.empty() ? "" : ",") + std::string(name);
  }
  if (mask & ~known) out.names += fmt::format("{}{:#x}", out.names.empty() ? "" : ",", mask & ~known);
  return out;
}

ObserverInfo nvml_observer() {
  return {"nvml",
          "NVML on CUDA devices: SM and memory clocks, temperature and power at the start and end of each evaluation, "
          "its energy, the lowest SM clock and the clock-event (throttle) reasons seen around its runs; flags "
          "\"throttled\" for any reason other than idle or applications clocks",
          &make_nvml};
}

}  // namespace pimg
