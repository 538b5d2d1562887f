// The JSON reader of tests: the store's import reader (pimg::parse_json), under the names the tests use.
#pragma once
#include <string_view>

#include "pimg/json_document.hpp"

using Json = pimg::JsonNode;

class JsonParser {
 public:
  explicit JsonParser(std::string_view s) : s_(s) {}
  Json document() const { return pimg::parse_json(s_); }  // throws std::runtime_error when malformed

 private:
  std::string_view s_;
};
