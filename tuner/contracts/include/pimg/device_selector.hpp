// One device selector grammar for every command and the run-time API: an index ("0"), a backend's name,
// backend:index (what the progress bar prints), backend:name (the backend's name, ':', "NVIDIA H100") or a
// substring of the device name or platform, case-insensitive.
#pragma once
#include <optional>
#include <string>

#include "pimg/backend.hpp"

namespace pimg {

struct DeviceSelector {
  std::optional<std::string> backend;  // the part before ':', or the whole selector when it names a backend
  std::optional<int> index;            // "0" or "backend:0"
  std::string name;                    // substring of the name or platform ("" matches every device)

  // `backends`: the names that count as a backend when the selector is one word (a backend's name).
  static DeviceSelector parse(const std::string& text, const std::vector<std::string>& backends);
  // `use_index`: false for stored devices, whose index is not stored (resolve backend:index with the
  // live devices first; an index alone then matches nothing).
  bool matches(const DeviceInfo& d, bool use_index = true) const;
};

// parse + matches, for the selectors a space file or --device gives the tuner.
bool device_matches(const DeviceInfo& d, const std::string& selector, const std::vector<std::string>& backends);

}  // namespace pimg
