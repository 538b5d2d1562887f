// A minimal JSON reader for tests: enough to check that exported documents parse and to read them.
#pragma once
#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// A minimal JSON reader, enough to check that best_json parses and to read its fields.
struct Json {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  double number = 0;
  bool boolean = false;
  std::string text;
  std::vector<Json> items;
  // Key/value pairs, a struct declared here and completed below: a std::pair of Json inside Json itself
  // is an incomplete type to clang's libstdc++ checks (the sanitizer build).
  struct Field;
  std::vector<Field> fields;
  const Json& operator[](const std::string& key) const;
  bool has(const std::string& key) const;
};

struct Json::Field {
  std::string first;
  Json second;
};

inline const Json& Json::operator[](const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  throw std::out_of_range("no field " + key);
}

inline bool Json::has(const std::string& key) const {
  return std::any_of(fields.begin(), fields.end(), [&](const Field& f) { return f.first == key; });
}

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}
  Json document() {
    Json j = value();
    space();
    if (i_ != s_.size()) fail();
    return j;
  }

 private:
  [[noreturn]] void fail() const { throw std::runtime_error("invalid JSON at offset " + std::to_string(i_)); }
  void space() {
    while (i_ < s_.size() && std::string_view(" \t\r\n").find(s_[i_]) != std::string_view::npos) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail();
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail();
      if (c == '\\') {
        if (i_ >= s_.size()) fail();
        const char e = s_[i_++];
        if (e == 'u') {
          if (i_ + 4 > s_.size()) fail();
          out += static_cast<char>(std::stoi(std::string(s_.substr(i_, 4)), nullptr, 16));
          i_ += 4;
          continue;
        }
        const std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
        const auto k = from.find(e);
        if (k == std::string_view::npos) fail();
        c = to[k];
      }
      out += c;
    }
    expect('"');
    return out;
  }
  Json value() {
    space();
    Json j;
    if (i_ >= s_.size()) fail();
    const char c = s_[i_];
    if (c == '{') {
      j.type = Json::Type::object;
      ++i_;
      if (eat('}')) return j;
      do {
        space();
        std::string key = string();
        expect(':');
        j.fields.push_back(Json::Field{std::move(key), value()});
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      j.type = Json::Type::array;
      ++i_;
      if (eat(']')) return j;
      do j.items.push_back(value());
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      j.type = Json::Type::string;
      j.text = string();
    } else if (word("null")) {
      j.type = Json::Type::null;
    } else if (word("true") || word("false")) {
      j.type = Json::Type::boolean;
      j.boolean = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
    } else {
      const std::size_t start = i_;
      if (s_[i_] == '-') ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail();
      while (i_ < s_.size() && std::string_view("0123456789.eE+-").find(s_[i_]) != std::string_view::npos) ++i_;
      j.type = Json::Type::number;
      j.number = std::stod(std::string(s_.substr(start, i_ - start)));
    }
    return j;
  }
  std::string_view s_;
  std::size_t i_ = 0;
};
