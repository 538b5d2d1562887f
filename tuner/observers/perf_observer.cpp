// Observer `perf` for CPU backends: Linux perf_event_open counters (seed 004's list: cycles, instructions, IPC,
// cache references and misses, branches and misses, page faults, CPU migrations, task clock) over the launches
// of one untimed run after the timed runs, every thread of the process counted (one counter per thread, inherited
// by threads started later). Where the kernel forbids hardware counters, the software ones are stored alone.
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>

#include "observers.hpp"

namespace pimg {
namespace {

struct Event {
  const char* name;  // metric "perf.<name>"
  std::uint32_t type;
  std::uint64_t config;
  const char* unit;
};

constexpr Event kHardware[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "count"},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "count"},
    {"cache_references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, "count"},
    {"cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, "count"},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "count"},
    {"branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, "count"},
};
constexpr Event kSoftware[] = {
    {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, "count"},
    {"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, "count"},
    {"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "count"},
    {"task_clock_ms", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, "ms"},  // ns, stored as ms
};

int paranoid() {
  int v = -99;
  std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> v;
  return v;
}

// One counter of thread `tid` (0: the calling thread), disabled until prctl enables this process's counters.
int open_counter(const Event& e, pid_t tid, bool user_only) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = e.type;
  a.config = e.config;
  a.disabled = 1;
  a.inherit = 1;  // threads the counted thread starts later are counted too
  a.exclude_kernel = user_only ? 1 : 0;
  a.exclude_hv = 1;
  a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(::syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Whether one event of the kind can be opened here, and with the kernel counted or user space only.
struct Permission {
  bool ok = false, user_only = false;
  int error = 0;
};
Permission probe(const Event& e) {
  Permission p;
  for (bool user_only : {false, true}) {
    const int fd = open_counter(e, 0, user_only);
    if (fd >= 0) {
      ::close(fd);
      p.ok = true;
      p.user_only = user_only;
      return p;
    }
    p.error = errno;
  }
  return p;
}

std::vector<pid_t> threads() {
  std::vector<pid_t> out;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
    ::closedir(d);
  }
  return out;
}

class Perf final : public Observer {
 public:
  Perf(bool hardware, bool user_only) : user_only_(user_only) {
    if (hardware) events_.assign(std::begin(kHardware), std::end(kHardware));
    events_.insert(events_.end(), std::begin(kSoftware), std::end(kSoftware));
  }
  ~Perf() override { close_all(); }

  bool counts_region() const override { return true; }
  void begin() override {
    close_all();
    fds_.assign(events_.size(), {});
    for (pid_t tid : threads())
      for (std::size_t i = 0; i < events_.size(); ++i) {
        const int fd = open_counter(events_[i], tid, user_only_);
        if (fd >= 0) fds_[i].push_back(fd);  // a thread that ended meanwhile is left out
      }
  }
  void region_begin() override { ::prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0); }
  void region_end() override { ::prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0); }
  void end(std::vector<Metric>& out, std::vector<std::string>&) override {
    std::map<std::string, double> v;
    for (std::size_t i = 0; i < events_.size() && i < fds_.size(); ++i) {
      double sum = 0;
      bool any = false;
      for (int fd : fds_[i]) {
        std::uint64_t r[3] = {0, 0, 0};  // value, time enabled, time running
        if (::read(fd, r, sizeof r) != static_cast<ssize_t>(sizeof r)) continue;
        any = true;
        // Scaled where the kernel multiplexed the counter (running < enabled).
        if (r[2] > 0) sum += static_cast<double>(r[0]) * static_cast<double>(r[1]) / static_cast<double>(r[2]);
      }
      if (!any) continue;
      if (events_[i].config == PERF_COUNT_SW_TASK_CLOCK && events_[i].type == PERF_TYPE_SOFTWARE) sum /= 1e6;
      v[events_[i].name] = sum;
    }
    close_all();
    for (const auto& [name, value] : v) out.push_back({"perf." + name, unit_of(name), -1, value});
    if (v.count("cycles") && v.count("instructions") && v["cycles"] > 0)
      out.push_back({"perf.ipc", "instructions/cycle", -1, v["instructions"] / v["cycles"]});
    out.push_back({"perf.hardware", "bool", -1, events_.size() > std::size(kSoftware) ? 1.0 : 0.0});
    out.push_back({"perf.kernel_counted", "bool", -1, user_only_ ? 0.0 : 1.0});
  }

 private:
  std::string unit_of(const std::string& name) const {
    for (const Event& e : events_)
      if (name == e.name) return e.unit;
    return "count";
  }
  void close_all() {
    for (auto& list : fds_)
      for (int fd : list) ::close(fd);
    fds_.clear();
  }

  bool user_only_;
  std::vector<Event> events_;
  std::vector<std::vector<int>> fds_;  // per event, one per thread
};

}  // namespace

ObserverInfo perf_observer() {
  return {"perf",
          "Linux perf_event_open counters on CPU backends over the launches of one untimed run after the timed runs, "
          "every thread counted: cycles, instructions, IPC, cache references and misses, branches and misses "
          "(hardware, where permitted), page faults, CPU migrations, context switches, task clock",
          [](const DeviceInfo& d, std::string& why) -> std::unique_ptr<Observer> {
            if (!observes_cpu(d, "perf", why)) return nullptr;
            const Permission sw = probe(kSoftware[0]);
            if (!sw.ok) {
              why = fmt::format("perf_event_open refused even software counters: {} (perf_event_paranoid {})",
                                std::strerror(sw.error), paranoid());
              return nullptr;
            }
            const Permission hw = probe(kHardware[1]);
            return std::make_unique<Perf>(hw.ok, hw.ok ? hw.user_only : sw.user_only);
          }};
}

// Why hardware counters cannot be read here, or empty when they can (docs/observers.md; the tests say it).
std::string perf_hardware_refusal() {
  const Permission hw = probe(kHardware[1]);
  if (hw.ok) return "";
  return fmt::format("perf_event_open(instructions): {} (perf_event_paranoid {}; a container or a virtual machine "
                     "without a PMU refuses hardware counters)",
                     std::strerror(hw.error), paranoid());
}

}  // namespace pimg
