// Configurations: canonical JSON text, its hash, and parsing it back.
#include "pimg/config.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "pimg/errors.hpp"

namespace pimg {

std::string to_string(const Value& v) {
  if (auto i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return std::get<std::string>(v);
}

const Value& Config::at(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) throw std::out_of_range(fmt::format("configuration has no parameter '{}'", name));
  return it->second;
}

std::int64_t Config::integer(std::string_view name) const {
  const Value& v = at(name);
  if (auto i = std::get_if<std::int64_t>(&v)) return *i;
  throw std::out_of_range(fmt::format("parameter '{}' is not an integer", name));
}

const std::string& Config::text(std::string_view name) const {
  const Value& v = at(name);
  if (auto s = std::get_if<std::string>(&v)) return *s;
  throw std::out_of_range(fmt::format("parameter '{}' is not text", name));
}

static void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

std::string Config::canonical() const {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : values_) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, k);
    out += ':';
    if (auto i = std::get_if<std::int64_t>(&v))
      out += std::to_string(*i);
    else
      append_json_string(out, std::get<std::string>(v));
  }
  out += '}';
  return out;
}

std::string Config::hash() const { return hex64(fnv1a64(canonical())); }

std::string Config::brief() const {
  std::string out;
  for (const auto& [k, v] : values_) {
    if (!out.empty()) out += ' ';
    out += k + "=" + to_string(v);
  }
  return out;
}

namespace {
struct Parser {
  std::string_view s;
  std::size_t i = 0;
  [[noreturn]] void fail() const {
    throw std::invalid_argument(fmt::format("malformed configuration text at offset {}: {}", i, s));
  }
  void expect(char c) {
    if (i >= s.size() || s[i] != c) fail();
    ++i;
  }
  std::string str() {
    expect('"');
    std::string out;
    while (i < s.size() && s[i] != '"') {
      if (s[i] == '\\') ++i;
      if (i >= s.size()) fail();
      out += s[i++];
    }
    expect('"');
    return out;
  }
  std::int64_t integer() {
    std::size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) fail();
    return std::stoll(std::string(s.substr(start, i - start)));
  }
};
}  // namespace

Config Config::parse_canonical(std::string_view json) {
  Parser p{json};
  Config c;
  p.expect('{');
  if (p.i < json.size() && json[p.i] == '}') return c;
  for (;;) {
    std::string key = p.str();
    p.expect(':');
    if (p.i < json.size() && json[p.i] == '"')
      c.set(key, p.str());
    else
      c.set(key, p.integer());
    if (p.i < json.size() && json[p.i] == ',') {
      ++p.i;
      continue;
    }
    p.expect('}');
    break;
  }
  return c;
}

std::uint64_t fnv1a64(std::string_view data, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

std::string hash128(std::string_view data) {
  return hex64(fnv1a64(data)) + hex64(fnv1a64(data, 0x9e3779b97f4a7c15ull ^ data.size()));
}

}  // namespace pimg
