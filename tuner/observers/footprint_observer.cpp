// Observer `footprint`: the peak resident memory of the process that evaluates (the worker) during each
// evaluation: /proc/self/clear_refs resets the peak (VmHWM) at its start where the kernel allows it, else
// the process's lifetime peak is stored and said to be one. Device memory comes from the executor.
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "observers.hpp"

namespace pimg {
namespace {

// A "Vm...:  123 kB" line of /proc/self/status, in bytes; -1 when absent.
double status_bytes(const char* key) {
  std::ifstream f("/proc/self/status");
  const std::string prefix = std::string(key) + ":";
  for (std::string line; std::getline(f, line);)
    if (line.rfind(prefix, 0) == 0) return std::stod(line.substr(prefix.size())) * 1024.0;
  return -1;
}

class Footprint final : public Observer {
 public:
  void begin() override {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";  // resets VmHWM to the current resident size
    clear.flush();
    reset_ = clear.good();
    rss_begin_ = status_bytes("VmRSS");
  }
  void end(std::vector<Metric>& out, std::vector<std::string>&) override {
    const double peak = status_bytes("VmHWM");
    if (peak >= 0) out.push_back({"memory.host_peak_bytes", "B", -1, peak});
    if (rss_begin_ >= 0) out.push_back({"memory.host_rss_begin_bytes", "B", -1, rss_begin_});
    out.push_back({"memory.host_peak_reset", "bool", -1, reset_ ? 1.0 : 0.0});
  }

 private:
  bool reset_ = false;
  double rss_begin_ = -1;
};

}  // namespace

ObserverInfo footprint_observer() {
  return {"footprint",
          "peak resident host memory of the evaluating process during each evaluation (VmHWM, reset at its start "
          "through /proc/self/clear_refs where allowed)",
          [](const DeviceInfo&, std::string& why) -> std::unique_ptr<Observer> {
            if (::access("/proc/self/status", R_OK) != 0) {
              why = "footprint needs /proc/self/status";
              return nullptr;
            }
            return std::make_unique<Footprint>();
          }};
}

}  // namespace pimg
