// Parameter values and configurations: one point of a variant's parameter space.
// A configuration is a name-sorted map, so its canonical text and hash do not depend on YAML order.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace pimg {

using Value = std::variant<std::int64_t, std::string>;

std::string to_string(const Value& v);

class Config {
 public:
  void set(const std::string& name, Value v) { values_[name] = std::move(v); }
  bool has(std::string_view name) const { return values_.find(std::string(name)) != values_.end(); }
  const Value& at(std::string_view name) const;           // throws std::out_of_range naming the parameter
  std::int64_t integer(std::string_view name) const;       // throws if absent or not an integer
  const std::string& text(std::string_view name) const;    // throws if absent or not a string
  const std::map<std::string, Value>& values() const { return values_; }
  bool empty() const { return values_.empty(); }

  std::string canonical() const;  // {"a":1,"b":"x"}: sorted keys, no spaces
  std::string hash() const;       // 16 hex digits of a 64-bit hash of canonical()
  std::string brief() const;      // a=1 b=x, for terminals

  static Config parse_canonical(std::string_view json);  // inverse of canonical()
  friend bool operator==(const Config&, const Config&) = default;

 private:
  std::map<std::string, Value> values_;
};

// 64-bit FNV-1a; hex digest helpers used for config, source and cache keys.
std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed = 14695981039346656037ull);
std::string hex64(std::uint64_t v);
// 128-bit key (two independent 64-bit hashes) for on-disk caches.
std::string hash128(std::string_view data);

}  // namespace pimg
