// The run-time lookup: the best stored configuration of a tuned variant for a device and image
// size, falling back from the exact device and size to the same device at the nearest size, then
// to a device of the same architecture (exact, then nearest size), and saying which match it used.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pimg/store.hpp"

namespace pimg {

struct BestConfig {
  enum class Match { exact, nearest_size, same_architecture, same_architecture_nearest_size };
  Match match = Match::exact;
  // e.g. "same architecture (nvidia h100): cuda:NVIDIA H100 PCIe, nearest size 4096x4096, confirmed" (decided by
  // the confirmation stage; "search only" where none ran; ", ran loaded" where its decision did, Decision::loaded)
  std::string how;
  ResultRow row;    // device, problem, variant, configuration and its median time
};

const char* to_string(BestConfig::Match m);

// The architecture key of a device name: lower case, without memory size and memory or form-factor
// words ("NVIDIA H100 80GB HBM3" and "NVIDIA H100 PCIe" are both "nvidia h100").
std::string architecture_of(const std::string& device_name);

// The answer for each stored (problem, device) is the one `best` and every export give (decide(),
// pimg/decision.hpp: the confirmation stage's winner where it ran, else the search's); best_config chooses among
// those answers only. `device`: a device name (case-insensitive) or a selector (pimg/device_selector.hpp: a
// backend, backend:name, a name substring, or an index alone or as backend:index: the position the device had in
// its backend's list when last tuned, as `pimg-tune devices` printed it on that machine; not known for devices of
// stores before schema 10 until tuned again, nor for imported ones); `size`: WxH. `attrs` narrows the problem
// (e.g. {"filter", "sharpen3"}); when several answers still match, the fastest wins. `why_not` (when given) says
// why nothing was found.
std::optional<BestConfig> best_config(const std::vector<ResultRow>& rows, const std::string& family,
                                      const std::string& device, const std::string& size,
                                      const std::map<std::string, std::string>& attrs = {},
                                      std::string* why_not = nullptr);
// The same on a database file (an older schema is migrated on open, as by every command), over the rows `best`
// ranks (Store::ranking_rows: the current build's). Throws UsageError for a missing database or a malformed size.
std::optional<BestConfig> best_config(const std::string& db, const std::string& family, const std::string& device,
                                      const std::string& size, const std::map<std::string, std::string>& attrs = {},
                                      std::string* why_not = nullptr);

}  // namespace pimg
