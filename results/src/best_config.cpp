// best_config(): among the answers decide() gives for each stored (problem, device): exact device and size, then
// nearest size, then the same architecture.
#include "pimg/best_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pimg/decision.hpp"
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
// backend:name, a name substring, or an index (alone or backend:index): the position the device had in its
// backend's list when it was last tuned (`pimg-tune devices` on that machine), where the store knows it (schema
// 10). `backends`: the backends of the stored rows, the words that count as one.
bool same_device(const DeviceInfo& d, const std::string& want, const std::vector<std::string>& backends) {
  if (lower(d.name) == lower(want) || lower(d.backend + ":" + d.name) == lower(want)) return true;
  return DeviceSelector::parse(want, backends).matches(d, d.index >= 0);
}

std::string join(const std::set<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out.empty() ? "none" : out;
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
                                      const std::map<std::string, std::string>& attrs, std::string* why_not) {
  int w = 0, h = 0;
  if (!parse_size(size, w, h)) throw UsageError(fmt::format("best_config: size '{}' is not WxH", size));
  std::vector<std::string> backends;
  for (const auto& r : rows)
    if (std::find(backends.begin(), backends.end(), lower(r.device.backend)) == backends.end())
      backends.push_back(lower(r.device.backend));
  // Each (problem, device)'s answer, decided as `best` and every export decide it (pimg/decision.hpp): only a
  // winner is a candidate, never another row of its group.
  std::map<std::pair<std::string, std::string>, std::vector<const ResultRow*>> groups;
  std::size_t in_family = 0;
  for (const auto& r : rows) {
    if (r.problem.family != family) continue;
    ++in_family;
    bool match = true;
    for (const auto& [k, v] : attrs) {
      auto it = r.problem.attrs.find(k);
      match = match && it != r.problem.attrs.end() && it->second == v;
    }
    if (match) groups[{r.problem.canonical(), r.device.backend + "\n" + r.device.name + "\n" + r.device.driver}].push_back(&r);
  }
  std::vector<const ResultRow*> ok;
  std::set<const ResultRow*> loaded;  // answers decided while other processes held the CPU (Decision::loaded)
  std::set<std::string> stored_devices;
  for (const auto& [key, group] : groups) {
    const Decision d = decide(group);
    if (!d.winner || d.winner->variant.baseline) continue;
    ok.push_back(d.winner);
    if (d.loaded) loaded.insert(d.winner);
    stored_devices.insert(d.winner->device.index >= 0 ? fmt::format("{}:{} ({})", d.winner->device.backend,
                                                                    d.winner->device.index, d.winner->device.name)
                                                      : d.winner->device.backend + ":" + d.winner->device.name);
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
      if (lv.exact_device ? same_device(r->device, device, backends) : architecture_of(r->device.name) == arch)
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
    b.how += best->result.stage == "confirm" ? ", confirmed" : ", search only";
    if (loaded.count(best)) b.how += ", ran loaded";
    return b;
  }
  if (why_not) {
    if (in_family == 0)
      *why_not = fmt::format("no stored row of family '{}'", family);
    else if (ok.empty())
      *why_not = fmt::format("no tuned configuration of family '{}' passed{}", family,
                             attrs.empty() ? "" : " for these attributes");
    else
      *why_not = fmt::format("no stored device matches '{}' and none is of its architecture ('{}'); tuned: {}", device,
                             arch, join(stored_devices));
  }
  return std::nullopt;
}

std::optional<BestConfig> best_config(const std::string& db, const std::string& family, const std::string& device,
                                      const std::string& size, const std::map<std::string, std::string>& attrs,
                                      std::string* why_not) {
  Store store(db, Store::Mode::read_only);
  RowFilter f;
  f.family = family;
  // What `best` ranks: the search and confirmation rows of the current build of each (family, device).
  return best_config(store.ranking_rows(f), family, device, size, attrs, why_not);
}

}  // namespace pimg
