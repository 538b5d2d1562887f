// The device selector grammar shared by the tuner, the store's commands and best_config().
#include "pimg/device_selector.hpp"

#include <algorithm>
#include <cctype>

namespace pimg {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() < 9 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

DeviceSelector DeviceSelector::parse(const std::string& text, const std::vector<std::string>& backends) {
  DeviceSelector s;
  if (all_digits(text)) {
    s.index = std::stoi(text);
    return s;
  }
  const auto colon = text.find(':');
  const std::string head = colon == std::string::npos ? text : text.substr(0, colon);
  const bool is_backend = std::find(backends.begin(), backends.end(), lower(head)) != backends.end();
  if (!is_backend) {
    s.name = text;
    return s;
  }
  s.backend = lower(head);
  if (colon == std::string::npos) return s;
  const std::string rest = text.substr(colon + 1);
  if (all_digits(rest))
    s.index = std::stoi(rest);
  else
    s.name = rest;
  return s;
}

bool DeviceSelector::matches(const DeviceInfo& d, bool use_index) const {
  if (backend && lower(d.backend) != *backend) return false;
  if (index) return use_index && d.index == *index;
  if (name.empty()) return true;
  const std::string n = lower(name);
  return lower(d.name).find(n) != std::string::npos || lower(d.platform).find(n) != std::string::npos;
}

bool device_matches(const DeviceInfo& d, const std::string& selector, const std::vector<std::string>& backends) {
  return DeviceSelector::parse(selector, backends).matches(d);
}

}  // namespace pimg
