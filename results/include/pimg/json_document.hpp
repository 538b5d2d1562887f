// A small JSON document reader for imported result files (T4, Kernel Tuner caches): the whole document
// as a tree, numbers as doubles with their source text, and errors that name the line and column.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pimg {

struct JsonNode {
  enum class Type { null, boolean, number, string, array, object } type = Type::null;
  bool boolean = false;
  double number = 0;
  std::string text;  // a string's value, or a number's source text
  std::vector<JsonNode> items;
  // Object members in file order. A struct completed below: a std::pair of JsonNode inside JsonNode
  // itself is an incomplete type to clang's libstdc++ checks.
  struct Field;
  std::vector<Field> fields;
  std::size_t line = 0, column = 0;                      // where the value starts (1-based)

  const JsonNode* find(std::string_view key) const;  // nullptr when absent or not an object
  bool has(std::string_view key) const { return find(key) != nullptr; }
  const JsonNode& operator[](std::string_view key) const;  // throws std::out_of_range naming the key
  bool is(Type t) const { return type == t; }
  static const char* type_name(Type t);
};

struct JsonNode::Field {
  std::string first;
  JsonNode second;
};

// Parses a whole document; throws std::runtime_error "line L, column C: what".
JsonNode parse_json(std::string_view text);

}  // namespace pimg
