// The environment observers: nvml's reading of NVML's throttle-reason bits and its clean refusal without
// a GPU (and its readings on one), cpu_load flagging an evaluation that ran beside a busy process and not
// one that kept only its own thread busy, and their metrics reaching the store through a tuning run.
// These tests run alone (RUN_SERIAL): other tests' processes would count as load.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "e2e/e2e_util.hpp"
#include "observers.hpp"
#include "pimg/registry.hpp"

namespace {

using namespace std::chrono_literals;

pimg::DeviceInfo host_device() {
  pimg::DeviceInfo d;
  d.backend = "host";
  d.name = "host";
  d.caps.host_cores = true;
  return d;
}

const pimg::Metric* find(const std::vector<pimg::Metric>& ms, const std::string& name) {
  auto it = std::find_if(ms.begin(), ms.end(), [&](const pimg::Metric& m) { return m.name == name; });
  return it == ms.end() ? nullptr : &*it;
}

bool has_flag(const std::vector<std::string>& flags, const std::string& f) {
  return std::find(flags.begin(), flags.end(), f) != flags.end();
}

struct Observed {
  std::vector<pimg::Metric> metrics;
  std::vector<std::string> flags;
};

// One evaluation's worth of observation: begin, `during` for `window`, end.
template <class During>
Observed observe(pimg::Observer& o, std::chrono::milliseconds window, During during) {
  Observed r;
  o.begin();
  during(window);
  o.end(r.metrics, r.flags);
  return r;
}

void spin_for(std::chrono::milliseconds window) {
  const auto until = std::chrono::steady_clock::now() + window;
  volatile unsigned long x = 0;
  while (std::chrono::steady_clock::now() < until) x = x + 1;
}

// Another process that keeps one CPU busy until destroyed.
class BusyProcess {
 public:
  BusyProcess() {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      volatile unsigned long x = 0;
      for (;;) x = x + 1;
    }
    std::this_thread::sleep_for(50ms);  // let it be scheduled
  }
  ~BusyProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool started() const { return pid_ > 0; }

 private:
  pid_t pid_ = -1;
};

std::unique_ptr<pimg::Observer> make(const char* name, const pimg::DeviceInfo& d, std::string& why) {
  const pimg::ObserverInfo* info = pimg::Registry::builtin().observer(name);
  if (!info) return nullptr;
  return info->make(d, why);
}

}  // namespace

TEST(NvmlObserver, ThrottleReasonBits) {
  EXPECT_FALSE(pimg::nvml_throttle_reasons(0).throttled);
  EXPECT_EQ(pimg::nvml_throttle_reasons(0).names, "");
  const pimg::ThrottleReasons idle = pimg::nvml_throttle_reasons(0x1 | 0x2);  // idle, applications clocks
  EXPECT_FALSE(idle.throttled);
  EXPECT_EQ(idle.names, "gpu_idle,applications_clocks");
  const pimg::ThrottleReasons power = pimg::nvml_throttle_reasons(0x4);
  EXPECT_TRUE(power.throttled);
  EXPECT_EQ(power.names, "sw_power_cap");
  const pimg::ThrottleReasons thermal = pimg::nvml_throttle_reasons(0x1 | 0x20 | 0x40);
  EXPECT_TRUE(thermal.throttled);
  EXPECT_EQ(thermal.names, "gpu_idle,sw_thermal_slowdown,hw_thermal_slowdown");
  for (std::uint64_t bit : {0x8ull, 0x10ull, 0x80ull, 0x100ull}) EXPECT_TRUE(pimg::nvml_throttle_reasons(bit).throttled) << bit;
  const pimg::ThrottleReasons unknown = pimg::nvml_throttle_reasons(0x4 | 0x1000);
  EXPECT_TRUE(unknown.throttled);
  EXPECT_EQ(unknown.names, "sw_power_cap,0x1000");
}

TEST(NvmlObserver, AppliesToDevicesWithAPciAddressAndSaysWhyNot) {
  std::string why;
  EXPECT_EQ(make("nvml", host_device(), why), nullptr);
  EXPECT_NE(why.find("has no PCI address"), std::string::npos) << why;
  for (const char* backend : {"cuda", "opencl"}) {  // by its address, whichever API runs it
    pimg::DeviceInfo gpu;
    gpu.backend = backend;
    gpu.limits = {{"pci_domain_id", 0xffff}, {"pci_bus_id", 0xff}, {"pci_device_id", 0x1f}};  // no such device
    why.clear();
    EXPECT_EQ(make("nvml", gpu, why), nullptr);
    const bool no_driver = why.find("libnvidia-ml.so.1") != std::string::npos;
    EXPECT_TRUE(no_driver || why.find("NVML has no device at PCI 0000ffff:ff:1f.0") != std::string::npos) << why;
  }
}

// NVIDIA's OpenCL device carries its PCI address (cl_khr_pci_bus_info or cl_nv_device_attribute_query), the same
// as CUDA's device 0 where both run the one GPU, and NVML reads it.
TEST(NvmlObserver, ReadsTheOpenclNvidiaDevice) {
  const pimg::Backend* cl = pimg::Registry::builtin().backend("opencl");
  const pimg::Backend* cuda = pimg::Registry::builtin().backend("cuda");
  if (!cl || !cuda || cuda->devices().empty()) GTEST_SKIP() << "no CUDA device";
  for (const pimg::DeviceInfo& d : cl->devices()) {
    if (d.vendor.find("NVIDIA") == std::string::npos) continue;
    ASSERT_TRUE(d.limits.count("pci_bus_id")) << d.id() << " has no PCI address";
    bool same = false;
    for (const pimg::DeviceInfo& c : cuda->devices())
      same = same || (c.limits.at("pci_bus_id") == d.limits.at("pci_bus_id") &&
                      c.limits.at("pci_device_id") == d.limits.at("pci_device_id") &&
                      c.limits.at("pci_domain_id") == d.limits.at("pci_domain_id"));
    EXPECT_TRUE(same) << d.id() << ": no CUDA device at its PCI address";
    std::string why;
    auto o = make("nvml", d, why);
    if (!o) GTEST_SKIP() << why;
    Observed r = observe(*o, 100ms, [](auto w) { std::this_thread::sleep_for(w); });
    EXPECT_NE(find(r.metrics, "nvml.sm_clock_mhz_begin"), nullptr) << d.id();
    return;
  }
  GTEST_SKIP() << "no NVIDIA OpenCL device";
}

TEST(NvmlObserver, ReadsTheCudaDevice) {
  const pimg::Backend* cuda = pimg::Registry::builtin().backend("cuda");
  if (!cuda || cuda->devices().empty()) GTEST_SKIP() << "no CUDA device";
  std::string why;
  auto o = make("nvml", cuda->devices()[0], why);
  if (!o) GTEST_SKIP() << why;  // a GPU without NVML (the driver's library missing)
  Observed r = observe(*o, 100ms, [](auto w) { std::this_thread::sleep_for(w); });
  for (const char* name : {"nvml.sm_clock_mhz_begin", "nvml.mem_clock_mhz_end", "nvml.temperature_c_end",
                           "nvml.throttle_reasons"})
    EXPECT_NE(find(r.metrics, name), nullptr) << name;
  const pimg::Metric* reasons = find(r.metrics, "nvml.throttle_reasons");
  ASSERT_NE(reasons, nullptr);
  EXPECT_EQ(has_flag(r.flags, "throttled"),
            pimg::nvml_throttle_reasons(static_cast<std::uint64_t>(reasons->value)).throttled);
}

TEST(CpuLoadObserver, AppliesToCpuBackendsOnly) {
  std::string why;
  EXPECT_NE(make("cpu_load", host_device(), why), nullptr) << why;
  pimg::DeviceInfo gpu;
  gpu.backend = "cuda";
  EXPECT_EQ(make("cpu_load", gpu, why), nullptr);
  EXPECT_EQ(why, "cpu_load observes CPU backends only");
  pimg::DeviceInfo pocl;  // decided by capability: a CPU OpenCL device computes on the host's cores
  pocl.backend = "opencl";
  pocl.caps.host_cores = true;
  EXPECT_NE(make("cpu_load", pocl, why), nullptr);
  pocl.caps.host_cores = false;
  EXPECT_EQ(make("cpu_load", pocl, why), nullptr);
  pimg::DeviceInfo ranks;  // MPI ranks are processes of their own: their work is not another's load
  ranks.backend = "mpi";
  ranks.caps.host_cores = ranks.caps.distributed = true;
  EXPECT_EQ(make("cpu_load", ranks, why), nullptr);
}

TEST(CpuLoadObserver, OwnWorkIsNotLoad) {
  std::string why;
  auto o = make("cpu_load", host_device(), why);
  ASSERT_NE(o, nullptr) << why;
  // Whether the machine is idle at all: without that, "not loaded" cannot be asked for.
  const Observed quiet = observe(*o, 300ms, [](auto w) { std::this_thread::sleep_for(w); });
  if (has_flag(quiet.flags, "loaded"))
    GTEST_SKIP() << "other processes keep this machine busy (share "
                 << (find(quiet.metrics, "cpu.others_share") ? find(quiet.metrics, "cpu.others_share")->value : -1)
                 << "); an idle evaluation cannot be observed here";
  const Observed own = observe(*o, 300ms, spin_for);
  EXPECT_FALSE(has_flag(own.flags, "loaded"));
  const pimg::Metric* share = find(own.metrics, "cpu.others_share");
  ASSERT_NE(share, nullptr);
  EXPECT_LT(share->value, pimg::kLoadedShare);
  for (const char* name : {"cpu.loadavg1_begin", "cpu.loadavg1_end", "cpu.others_running_begin"})
    EXPECT_NE(find(own.metrics, name), nullptr) << name;
}

TEST(CpuLoadObserver, ABusyProcessBesideTheEvaluationIsLoad) {
  std::string why;
  auto o = make("cpu_load", host_device(), why);
  ASSERT_NE(o, nullptr) << why;
  // Load is more than a quarter of the CPUs busy with others' work: as many busy processes as that takes
  // (one on 2 cores, five on the GPU machines' 16).
  std::vector<std::unique_ptr<BusyProcess>> busy;
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 0; i < cpus / 4 + 1; ++i) {
    busy.push_back(std::make_unique<BusyProcess>());
    ASSERT_TRUE(busy.back()->started());
  }
  const Observed r = observe(*o, 400ms, [](auto w) { std::this_thread::sleep_for(w); });
  EXPECT_TRUE(has_flag(r.flags, "loaded"));
  const pimg::Metric* share = find(r.metrics, "cpu.others_share");
  ASSERT_NE(share, nullptr);
  EXPECT_GT(share->value, pimg::kLoadedShare);
  // A window too short for the tick counts: the busy process is runnable at its start and end.
  const Observed brief = observe(*o, 0ms, [](auto) {});
  EXPECT_EQ(find(brief.metrics, "cpu.others_share"), nullptr);
  EXPECT_TRUE(has_flag(brief.flags, "loaded"));
}

// Through a whole tuning run, in a worker process and in process: every evaluation the tuner measures on the host
// has the cpu_load metrics, the confirmation stage's row too (the whole program's run is another process's).
TEST(CpuLoadObserver, MetricsAreStoredForEveryHostEvaluation) {
  const auto dir = e2e::temp_dir("observers");
  const std::string space = (dir / "serial.yaml").string();
  {
    std::ofstream f(space);
    f << "family: conv\nproblems:\n  - filter: sharpen3\n    sizes: [64x48]\n    channels: 1\n"
         "backends:\n  host: {}\nvariants:\n  serial: {}\nmeasure: {warmups: 1, repeats: 3, timeout_s: 30}\n";
  }
  for (const char* isolation : {"", "--no-isolation"}) {
    const std::string db = (dir / (std::string("t") + isolation + ".db")).string();
    const e2e::Ran r = e2e::run("conv --quiet " + std::string(isolation) + " --space " + space + " --db " + db);
    ASSERT_EQ(r.code, 0) << r.out;
    // The search's evaluation and the confirmation stage's row (its rounds observed as one window).
    const auto rows = e2e::query(db, "SELECT e.stage FROM metrics m JOIN evaluations e ON e.id = m.evaluation_id "
                                     "WHERE m.name = 'cpu.loadavg1_begin' ORDER BY e.stage");
    EXPECT_EQ(rows, (std::vector<std::string>{"confirm", "search"})) << isolation;
    EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM evaluations WHERE stage IN ('search', 'confirm')"),
              std::vector<std::string>{"2"})
        << isolation;
  }
  std::filesystem::remove_all(dir);
}
