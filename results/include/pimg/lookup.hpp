// The installed run-time API (C++17, no other pimg header): the best stored configuration of a tuned
// kernel for a device and size, with the fallbacks of pimg/best_config.hpp (nearest size, same
// architecture). Link pimg::lookup (find_package(pimg) after `cmake --install`, or add_subdirectory).
#pragma once
#include <map>
#include <optional>
#include <string>

namespace pimg {

struct Query {
  std::string db;      // a pimg-tune database
  std::string family;  // "conv", or "t1-<name>" for a T1 kernel
  // A device name (case-insensitive), backend:name, a backend, a name substring, or the id `pimg-tune devices`
  // prints on the machine that tuned ("opencl:0", or "0").
  std::string device;
  std::string size;    // WxH
  std::map<std::string, std::string> attrs = {};  // narrows the problem, e.g. {"filter", "sharpen3"}
};

struct Choice {
  std::string match;  // exact | nearest_size | same_architecture | same_architecture_nearest_size
  std::string how;    // what was matched, in words
  std::string backend, device, variant, size;
  std::map<std::string, std::string> config;  // parameter -> value
  std::string config_text;                    // "a=1 b=x"
  double median_ms = 0;
};

// The answer `pimg-tune best` gives for the device and size (the confirmation stage's winner where it ran), or
// the nearest one stored. nullopt when nothing stored fits; throws std::runtime_error for a missing database or a
// bad size.
std::optional<Choice> best_config(const Query& q);
// The same, and when nothing fits, why: no row of the family, no tuned configuration passed, or no device matches
// (with the devices that were tuned).
std::optional<Choice> best_config(const Query& q, std::string& why_not);

}  // namespace pimg
