// Observer `rapl` for CPU backends: the energy of the CPU packages over the timed runs, from the powercap
// RAPL counters (/sys/class/powercap/intel-rapl:N/energy_uj, every package summed; AMD's are under the same
// name), as energy.* (joules, window, average watts). Where they are absent or not readable, it says why.
#include <dirent.h>
#include <fmt/format.h>

#include <fstream>
#include <string>
#include <vector>

#include "observers.hpp"

namespace pimg {
namespace {

constexpr const char* kPowercap = "/sys/class/powercap";

struct Package {
  std::string energy;  // path of energy_uj
  double range_uj = 0; // max_energy_range_uj: the counter restarts at zero past it
};

// The top-level RAPL domains (intel-rapl:0, intel-rapl:1: packages; not their subdomains intel-rapl:0:0).
std::vector<Package> packages() {
  std::vector<Package> out;
  if (DIR* d = ::opendir(kPowercap)) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.rfind("intel-rapl:", 0) != 0 || name.find(':', 11) != std::string::npos) continue;
      Package p{std::string(kPowercap) + "/" + name + "/energy_uj", 0};
      std::ifstream(std::string(kPowercap) + "/" + name + "/max_energy_range_uj") >> p.range_uj;
      out.push_back(std::move(p));
    }
    ::closedir(d);
  }
  return out;
}

// Joules of every package, or -1 when one cannot be read.
double read_joules(const std::vector<Package>& ps) {
  double uj = 0;
  for (const Package& p : ps) {
    std::ifstream f(p.energy);
    double v = 0;
    if (!(f >> v)) return -1;
    uj += v;
  }
  return uj / 1e6;
}

class Rapl final : public Observer {
 public:
  explicit Rapl(std::vector<Package> ps) : packages_(std::move(ps)) {
    for (const Package& p : packages_) range_j_ += p.range_uj / 1e6;
  }
  void before_run(int seq) override {
    if (seq != 0) return;
    window_ = {};
    if (const double j = read_joules(packages_); j >= 0) window_.start(j);
  }
  void after_run(int, std::vector<Metric>&) override {
    if (const double j = read_joules(packages_); j >= 0) window_.sample(j);
  }
  // The back-to-back window (measure.energy_s), stored instead of the timed runs' where it ran.
  bool wants_window() const override { return true; }
  void window_begin() override {
    sustained_ = {};
    if (const double j = read_joules(packages_); j >= 0) sustained_.start(j);
  }
  void window_end(std::int64_t runs, double device_ms) override {
    if (const double j = read_joules(packages_); j >= 0) sustained_.sample(j);
    sustained_.set_runs(runs, device_ms);
  }
  // With several packages a wrap of one is not the sum's range: only one package's wrap is undone.
  void end(std::vector<Metric>& out, std::vector<std::string>&) override {
    (sustained_.started() ? sustained_ : window_).put(out, packages_.size() == 1 ? range_j_ : 0);
    sustained_ = {};
  }

 private:
  std::vector<Package> packages_;
  double range_j_ = 0;
  EnergyWindow window_, sustained_;
};

}  // namespace

std::string rapl_refusal() {
  const std::vector<Package> ps = packages();
  if (ps.empty()) return fmt::format("no RAPL domain under {} (not an Intel or AMD CPU, or a virtual machine or "
                                     "container without powercap)", kPowercap);
  if (read_joules(ps) < 0)
    return fmt::format("{} is not readable (root only since Linux 5.10)", ps.front().energy);
  return "";
}

ObserverInfo rapl_observer() {
  return {"rapl",
          "RAPL energy of the CPU packages over the timed runs on CPU backends (energy.timed_j, energy.timed_s, "
          "energy.avg_w)",
          [](const DeviceInfo& d, std::string& why) -> std::unique_ptr<Observer> {
            if (!observes_cpu(d, "rapl", why)) return nullptr;
            why = rapl_refusal();
            if (!why.empty()) return nullptr;
            return std::make_unique<Rapl>(packages());
          }};
}

}  // namespace pimg
