// best_config(): exact device and size, then nearest size, then the same architecture.
#include "pimg/best_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <sstream>

#include "pimg/device_selector.hpp"
#include "pimg/errors.hpp"

namespace pimg {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parse_size(const std::string& s, int& w, int& h) {
  const std::regex re("([1-9][0-9]{0,8})x([1-9][0-9]{0,8})");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  w = std::stoi(m[1]);
  h = std::stoi(m[2]);
  return true;
}

// The exact name (or backend:name), else the selector grammar of pimg/device_selector.hpp: a backend,
// backend:name or a name substring. An index names a live device, which a stored row cannot be.
bool same_device(const DeviceInfo& d, const std::string& want) {
  if (lower(d.name) == lower(want) || lower(d.backend + ":" + d.name) == lower(want)) return true;
  return DeviceSelector::parse(want, {"host", "openmp", "opencl", "cuda", "mpi", lower(d.backend)}).matches(d, false);
}

}  // namespace

const char* to_string(BestConfig::Match m) {
  switch (m) {
    case BestConfig::Match::exact: return "exact";
    case BestConfig::Match::nearest_size: return "nearest_size";
    case BestConfig::Match::same_architecture: return "same_architecture";
    case BestConfig::Match::same_architecture_nearest_size: return "same_architecture_nearest_size";
  }
  return "exact";
}

std::string architecture_of(const std::string& device_name) {
  static const std::regex drop(
      "^([0-9]+(\\.[0-9]+)?(gb|gib|g|mb|mib)|hbm[0-9]*e?|gddr[0-9]+x?|pcie|sxm[0-9]*|nvl|\\(r\\)|\\(tm\\))$");
  std::istringstream in(lower(device_name));
  std::string word, out;
  while (in >> word) {
    std::string base = word.size() > 3 && word.rfind("(r)") == word.size() - 3 ? word.substr(0, word.size() - 3) : word;
    if (std::regex_match(word, drop) || base.empty()) continue;
    out += (out.empty() ? "" : " ") + base;
  }
  return out;
}

std::optional<BestConfig> best_config(const std::vector<ResultRow>& rows, const std::string& family,
                                      const std::string& device, const std::string& size,
                                      const std::map<std::string, std::string>& attrs) {
  int w = 0, h = 0;
  if (!parse_size(size, w, h)) throw UsageError(fmt::format("best_config: size '{}' is not WxH", size));
  std::vector<const ResultRow*> ok;
  for (const auto& r : rows) {
    if (r.problem.family != family || r.variant.baseline || r.result.status != Status::ok) continue;
    bool match = true;
    for (const auto& [k, v] : attrs) {
      auto it = r.problem.attrs.find(k);
      match = match && it != r.problem.attrs.end() && it->second == v;
    }
    if (match) ok.push_back(&r);
  }
  const std::string arch = architecture_of(device.substr(device.find(':') == std::string::npos ? 0 : device.find(':') + 1));
  auto size_distance = [&](const ResultRow& r) {
    return std::abs(std::log(static_cast<double>(r.problem.width) * r.problem.height) -
                    std::log(static_cast<double>(w) * h));
  };
  struct Level {
    BestConfig::Match match;
    bool exact_device, exact_size;
  };
  for (const Level lv : {Level{BestConfig::Match::exact, true, true}, Level{BestConfig::Match::nearest_size, true, false},
                         Level{BestConfig::Match::same_architecture, false, true},
                         Level{BestConfig::Match::same_architecture_nearest_size, false, false}}) {
    std::vector<const ResultRow*> cand;
    for (const ResultRow* r : ok)
      if (lv.exact_device ? same_device(r->device, device) : architecture_of(r->device.name) == arch)
        cand.push_back(r);
    if (cand.empty()) continue;
    // Nearest size first (log pixel count; ties to the larger image), then the fastest.
    double nearest = INFINITY;
    for (const ResultRow* r : cand) nearest = std::min(nearest, size_distance(*r));
    const ResultRow* best = nullptr;
    for (const ResultRow* r : cand) {
      const bool exact = r->problem.width == w && r->problem.height == h;
      if (lv.exact_size ? !exact : size_distance(*r) > nearest + 1e-12) continue;
      const auto key = [](const ResultRow* x) {
        return std::make_tuple(-static_cast<double>(x->problem.width) * x->problem.height, x->result.kernel.median, x->id);
      };
      if (!best || key(r) < key(best)) best = r;
    }
    if (!best) continue;
    BestConfig b{lv.match, "", *best};
    const std::string where = fmt::format("{}:{}", best->device.backend, best->device.name);
    switch (lv.match) {
      case BestConfig::Match::exact: b.how = fmt::format("exact: {} at {}", where, size); break;
      case BestConfig::Match::nearest_size:
        b.how = fmt::format("same device {}, nearest size {}", where, best->problem.size());
        break;
      case BestConfig::Match::same_architecture:
        b.how = fmt::format("same architecture ({}): {} at {}", arch, where, size);
        break;
      case BestConfig::Match::same_architecture_nearest_size:
        b.how = fmt::format("same architecture ({}): {}, nearest size {}", arch, where, best->problem.size());
        break;
    }
    return b;
  }
  return std::nullopt;
}

std::optional<BestConfig> best_config(const std::string& db, const std::string& family, const std::string& device,
                                      const std::string& size, const std::map<std::string, std::string>& attrs) {
  Store store(db, Store::Mode::read_only);
  RowFilter f;
  f.family = family;
  return best_config(store.rows(f), family, device, size, attrs);
}

}  // namespace pimg
