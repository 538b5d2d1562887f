// Filters of the store's commands: size syntax, device selectors, and the "no rows match" message.
#include "cli/selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "pimg/device_selector.hpp"
#include "pimg/errors.hpp"
#include "pimg/suggest.hpp"

namespace pimg::cli {
namespace {

std::vector<std::string> backend_names(const Registry& reg, const DeviceInfo& stored) {
  std::vector<std::string> names{stored.backend};
  for (const Backend* b : reg.backends()) names.push_back(b->name());
  return names;
}

std::string join(const std::set<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

void check_size(const std::string& flag, const std::string& size) {
  static const std::regex re("[1-9][0-9]{0,8}x[1-9][0-9]{0,8}");
  if (!size.empty() && !std::regex_match(size, re))
    throw UsageError(fmt::format("{} {}: expected WIDTHxHEIGHT with positive integers, e.g. 1024x1024", flag, size));
}

bool stored_device_matches(const Registry& reg, const DeviceInfo& stored, const std::string& selector) {
  const DeviceSelector s = DeviceSelector::parse(selector, backend_names(reg, stored));
  if (!s.index) return s.matches(stored, false);
  // An index names a device of this machine: match the stored device with the same backend and name.
  // Probing devices is slow (driver start-up), so each selector's live devices are looked up once.
  static std::map<std::string, std::vector<std::pair<std::string, std::string>>> live_matches;
  auto [it, added] = live_matches.try_emplace(selector);
  if (added)
    for (const Backend* b : reg.backends()) {
      if (!b->status().available) continue;
      for (const DeviceInfo& live : b->devices())
        if (s.matches(live)) it->second.emplace_back(live.backend, live.name);
    }
  return std::find(it->second.begin(), it->second.end(), std::pair{stored.backend, stored.name}) != it->second.end();
}

std::vector<ResultRow> filter_rows(std::vector<ResultRow> rows, const Registry& reg, const Filters& f) {
  std::vector<ResultRow> out;
  for (auto& r : rows)
    if ((f.device.empty() || stored_device_matches(reg, r.device, f.device)) &&
        (f.size.empty() || r.problem.size() == f.size))
      out.push_back(std::move(r));
  return out;
}

std::vector<std::string> family_names(const Registry& reg) {
  std::vector<std::string> names;
  for (const Family* f : reg.families()) names.push_back(f->name());
  return names;
}

void check_family(const Registry& reg, const std::string& command, const std::string& family) {
  if (!family.empty() && !reg.family(family) && family.rfind("t1-", 0) != 0 && family.rfind("t4:", 0) != 0)
    throw UsageError(fmt::format("{}: unknown family '{}'{}", command, family, did_you_mean(family, family_names(reg))));
}

std::string older_builds_note(std::size_t older, bool all_builds) {
  if (older == 0) return "";
  return all_builds ? fmt::format("note: {} rows were stored by older builds of pimg-tune (marked [older build])\n", older)
                    : fmt::format("note: {} rows stored by older builds of pimg-tune are not shown (--all-builds shows "
                                  "them, marked)\n",
                                  older);
}

std::vector<ResultRow> select_rows(const Store& store, const Registry& reg, const Filters& f, bool ranking,
                                   bool samples, const std::string& command, std::size_t* older) {
  RowFilter q;
  if (!f.family.empty()) q.family = f.family;
  q.all_builds = f.all_builds;
  auto all = ranking ? store.ranking_rows(q, samples, older) : samples ? store.rows_with_samples(q) : store.rows(q);
  if (all.empty() || (f.device.empty() && f.size.empty())) return all;
  std::set<std::string> devices, sizes;
  for (const auto& r : all) {
    devices.insert(r.device.backend + ":" + r.device.name);
    sizes.insert(r.problem.size());
  }
  auto rows = filter_rows(std::move(all), reg, f);
  if (!rows.empty()) return rows;
  std::string filters;
  if (!f.device.empty()) filters += " --device " + f.device;
  if (!f.size.empty()) filters += " --size " + f.size;
  throw UsageError(fmt::format("{}: no rows match these filters ({}){}; stored devices: {}; sizes: {}", command,
                               filters.substr(1), f.family.empty() ? "" : " for family " + f.family, join(devices),
                               join(sizes)));
}

}  // namespace pimg::cli
