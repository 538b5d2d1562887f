// The JSON document reader of imports: recursive descent over the text, locations kept per value.
#include "pimg/json_document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace pimg {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  JsonNode document() {
    JsonNode v = value(0);
    space();
    if (i_ != s_.size()) fail("text after the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    std::size_t line = 1, col = 1;
    for (std::size_t k = 0; k < std::min(i_, s_.size()); ++k) {
      if (s_[k] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw std::runtime_error(fmt::format("line {}, column {}: {}", line, col, what));
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r' || s_[i_] == '\n')) {
      if (s_[i_] == '\n') {
        ++line_;
        line_start_ = i_ + 1;
      }
      ++i_;
    }
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
    if (!eat(c)) fail(fmt::format("expected '{}'", c));
  }
  void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  std::string string() {
    expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unterminated string");
      const char e = s_[i_++];
      if (e == 'u') {
        unsigned cp = 0;
        if (i_ + 4 > s_.size() || std::from_chars(s_.data() + i_, s_.data() + i_ + 4, cp, 16).ptr != s_.data() + i_ + 4)
          fail("bad \\u escape");
        i_ += 4;
        utf8(out, cp);
        continue;
      }
      const std::string_view from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
      const auto k = from.find(e);
      if (k == std::string_view::npos) fail("bad escape");
      out += to[k];
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  bool word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  JsonNode value(int depth) {
    if (depth > 200) fail("nested too deeply");
    space();
    JsonNode v;
    v.line = line_;
    v.column = i_ - line_start_ + 1;
    if (i_ >= s_.size()) fail("unexpected end of the document");
    const char c = s_[i_];
    if (c == '{') {
      v.type = JsonNode::Type::object;
      ++i_;
      if (eat('}')) return v;
      do {
        space();
        std::string key = string();
        expect(':');
        v.fields.push_back(JsonNode::Field{std::move(key), value(depth + 1)});
      } while (eat(','));
      expect('}');
    } else if (c == '[') {
      v.type = JsonNode::Type::array;
      ++i_;
      if (eat(']')) return v;
      do v.items.push_back(value(depth + 1));
      while (eat(','));
      expect(']');
    } else if (c == '"') {
      v.type = JsonNode::Type::string;
      v.text = string();
    } else if (word("null")) {
      v.type = JsonNode::Type::null;
    } else if (word("true")) {
      v.type = JsonNode::Type::boolean;
      v.boolean = true;
    } else if (word("false")) {
      v.type = JsonNode::Type::boolean;
    } else if (word("NaN") || word("Infinity") || word("-Infinity")) {
      // Python's json module writes these; a number that is not one.
      v.type = JsonNode::Type::number;
      v.text = std::string(s_.substr(v.column - 1 + line_start_, i_ - (v.column - 1 + line_start_)));
      v.number = v.text == "NaN" ? std::numeric_limits<double>::quiet_NaN()
                 : v.text[0] == '-' ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::infinity();
    } else {
      const std::size_t start = i_;
      if (s_[i_] == '-') ++i_;
      while (i_ < s_.size() && std::string_view("0123456789.eE+-").find(s_[i_]) != std::string_view::npos) ++i_;
      v.type = JsonNode::Type::number;
      v.text = std::string(s_.substr(start, i_ - start));
      const auto r = std::from_chars(s_.data() + start, s_.data() + i_, v.number);
      if (start == i_ || r.ec != std::errc() || r.ptr != s_.data() + i_) {
        i_ = start;
        fail("expected a value");
      }
    }
    return v;
  }

  std::string_view s_;
  std::size_t i_ = 0, line_ = 1, line_start_ = 0;
};

}  // namespace

const JsonNode* JsonNode::find(std::string_view key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

const JsonNode& JsonNode::operator[](std::string_view key) const {
  if (const JsonNode* v = find(key)) return *v;
  throw std::out_of_range("no field " + std::string(key));
}

const char* JsonNode::type_name(Type t) {
  switch (t) {
    case Type::null: return "null";
    case Type::boolean: return "a boolean";
    case Type::number: return "a number";
    case Type::string: return "a string";
    case Type::array: return "an array";
    case Type::object: return "an object";
  }
  return "?";
}

JsonNode parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace pimg
