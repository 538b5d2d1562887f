// Observer `cpu_load` for CPU backends (host, openmp, OpenCL CPU devices): the 1-minute load average and
// the CPU frequency at the start and end of each evaluation, and the share of the machine's CPU time that
// other processes used meanwhile (/proc/stat's busy time minus this process's own from /proc/self/stat).
#include <dirent.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "observers.hpp"

namespace pimg {
namespace {

// Below this many clock ticks per CPU (1/USER_HZ s each, 10 ms usually) a window's share is too coarse to
// judge; the tasks other processes have runnable at its start and end decide instead.
constexpr long kMinTicksPerCpu = 5;

struct Sample {
  long long total = 0, busy = 0;  // /proc/stat, all CPUs, ticks
  long long own = 0;              // /proc/self/stat utime + stime, ticks
  int others_running = 0;         // runnable tasks not of this process
  double load1 = -1;              // /proc/loadavg
  double freq_mhz = -1;           // mean over the CPUs, -1 when unknown
};

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The state letter and CPU times of one /proc/<pid>[/task/<tid>]/stat (the name may hold spaces).
bool parse_stat(const std::string& text, char& state, long long& cpu_ticks) {
  const auto close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream in(text.substr(close + 1));
  std::string field;
  long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 3 (state) .. 15 (stime), 1-based
    if (i == 3) state = field.empty() ? '?' : field[0];
    if (i == 14) utime = std::stoll(field);
    if (i == 15) stime = std::stoll(field);
  }
  cpu_ticks = utime + stime;
  return true;
}

int own_running_threads() {
  int n = 0;
  if (DIR* d = ::opendir("/proc/self/task")) {
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      char state = '?';
      long long ticks = 0;
      if (parse_stat(read_file(std::string("/proc/self/task/") + e->d_name + "/stat"), state, ticks) && state == 'R')
        ++n;
    }
    ::closedir(d);
  }
  return n;
}

double cpu_freq_mhz() {
  double sum = 0;
  int n = 0;
  for (int cpu = 0;; ++cpu) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq");
    double khz = 0;
    if (!(f >> khz)) break;
    sum += khz / 1000.0;
    ++n;
  }
  if (n == 0) {  // no cpufreq (virtual machines): the kernel's figure per CPU
    std::istringstream info(read_file("/proc/cpuinfo"));
    for (std::string line; std::getline(info, line);)
      if (line.rfind("cpu MHz", 0) == 0) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        sum += std::stod(line.substr(colon + 1));
        ++n;
      }
  }
  return n ? sum / n : -1;
}

Sample sample() {
  Sample s;
  std::istringstream stat(read_file("/proc/stat"));
  int procs_running = 0;
  for (std::string line; std::getline(stat, line);) {
    std::istringstream in(line);
    std::string key;
    in >> key;
    if (key == "cpu") {
      long long v[8] = {};
      for (long long& x : v) in >> x;  // user nice system idle iowait irq softirq steal
      for (long long x : v) s.total += x;
      s.busy = s.total - v[3] - v[4];
    } else if (key == "procs_running") {
      in >> procs_running;
    }
  }
  char state = '?';
  parse_stat(read_file("/proc/self/stat"), state, s.own);
  s.others_running = std::max(0, procs_running - own_running_threads());
  std::ifstream("/proc/loadavg") >> s.load1;
  s.freq_mhz = cpu_freq_mhz();
  return s;
}

class CpuLoad final : public Observer {
 public:
  bool observes_the_machine() const override { return true; }
  void begin() override { begin_ = sample(); }
  void end(std::vector<Metric>& out, std::vector<std::string>& flags) override {
    const Sample end = sample();
    const long cpus = std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN));
    out.push_back({"cpu.loadavg1_begin", "load", -1, begin_.load1});
    out.push_back({"cpu.loadavg1_end", "load", -1, end.load1});
    if (begin_.freq_mhz > 0) out.push_back({"cpu.freq_mhz_begin", "MHz", -1, begin_.freq_mhz});
    if (end.freq_mhz > 0) out.push_back({"cpu.freq_mhz_end", "MHz", -1, end.freq_mhz});
    out.push_back({"cpu.others_running_begin", "count", -1, static_cast<double>(begin_.others_running)});
    out.push_back({"cpu.others_running_end", "count", -1, static_cast<double>(end.others_running)});
    const long long total = end.total - begin_.total;
    bool loaded = false;
    if (total >= kMinTicksPerCpu * cpus) {
      const long long others = std::max(0LL, (end.busy - begin_.busy) - (end.own - begin_.own));
      const double share = static_cast<double>(others) / static_cast<double>(total);
      out.push_back({"cpu.others_share", "fraction", -1, share});
      loaded = share > kLoadedShare;
    } else {
      loaded = std::min(begin_.others_running, end.others_running) > kLoadedShare * static_cast<double>(cpus);
    }
    if (loaded) flags.push_back("loaded");
  }

 private:
  Sample begin_;
};

}  // namespace

bool runs_on_cpu(const DeviceInfo& d) { return d.caps.host_cores && !d.caps.distributed; }

bool observes_cpu(const DeviceInfo& d, const std::string& name, std::string& why) {
  if (!runs_on_cpu(d)) why = name + " observes CPU backends only";
  return runs_on_cpu(d);
}

ObserverInfo cpu_load_observer() {
  return {"cpu_load",
          fmt::format("load average and CPU frequency at the start and end of each evaluation on a CPU backend, and "
                      "the share of the machine's CPU time other processes used meanwhile; flags \"loaded\" above {:.0f}%",
                      kLoadedShare * 100),
          [](const DeviceInfo& d, std::string& why) -> std::unique_ptr<Observer> {
            if (!observes_cpu(d, "cpu_load", why)) return nullptr;
            if (::access("/proc/stat", R_OK) != 0 || ::access("/proc/self/stat", R_OK) != 0) {
              why = "cpu_load needs /proc/stat and /proc/self/stat";
              return nullptr;
            }
            return std::make_unique<CpuLoad>();
          }};
}

}  // namespace pimg
