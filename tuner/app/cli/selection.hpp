// What the store's commands (best, report, export, strategies, compare) share: checking --size,
// resolving --device with the one selector grammar (live devices answer backend:index), and telling
// "no rows match these filters" (with the values that exist) from an empty database.
#pragma once
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

struct Filters {
  std::string family;  // "" for every family
  std::string device;  // a device selector, "" for every device
  std::string size;    // "WxH", "" for every size
  bool all_builds = false;  // rankings: rows of older builds of pimg-tune too (marked)
};

// The registry's family names.
std::vector<std::string> family_names(const Registry& reg);
// Throws UsageError (with a suggestion) unless `family` is empty, a family of the registry, or of results made
// elsewhere: a T1 kernel's (t1-NAME) or an imported one's (t4:NAME).
void check_family(const Registry& reg, const std::string& command, const std::string& family);

// Throws UsageError unless `size` is empty or WxH with positive integers.
void check_size(const std::string& flag, const std::string& size);

// True when the stored device matches the selector; backend:index and a bare index are resolved
// against the devices of this machine's registry (the ids the progress bar prints).
bool stored_device_matches(const Registry& reg, const DeviceInfo& stored, const std::string& selector);

// Rows of the filters (rows(), or ranking_rows() when `ranking`, with samples when asked). Throws
// UsageError naming the filters and the values stored when rows exist but none match; an empty
// database gives an empty vector.
// `older` (rankings only): the count of rows of older builds left out (or marked with all_builds).
std::vector<ResultRow> select_rows(const Store& store, const Registry& reg, const Filters& f, bool ranking,
                                   bool samples, const std::string& command, std::size_t* older = nullptr);

// The line that says rows of older builds were left out ("" when none were), for stderr.
std::string older_builds_note(std::size_t older, bool all_builds);

// Keeps the rows that match the filters' device and size (family already applied by the query).
std::vector<ResultRow> filter_rows(std::vector<ResultRow> rows, const Registry& reg, const Filters& f);

}  // namespace pimg::cli
