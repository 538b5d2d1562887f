// The T4 schemas of tests/data/t4 (results-schema.json, metadata-schema.json; see SOURCE.md) applied
// to a document: by the tests' own validator of the subset of JSON Schema they use, and by Python's
// jsonschema (a complete implementation, Debian's python3-jsonschema) where it can be imported.
#pragma once
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "json.hpp"

// JSON Schema, the subset results-schema.json uses: type (a name or a list), properties, items,
// required, enum (of strings), pattern (ECMAScript, unanchored as the standard says). Appends one
// line per violation.
inline void validate_schema(const Json& v, const Json& schema, const std::string& at, std::vector<std::string>& errors) {
  auto is = [&](const std::string& t) {
    switch (v.type) {
      case Json::Type::object: return t == "object";
      case Json::Type::array: return t == "array";
      case Json::Type::string: return t == "string";
      case Json::Type::number: return t == "number" || (t == "integer" && v.number == std::floor(v.number));
      case Json::Type::boolean: return t == "boolean";
      case Json::Type::null: return t == "null";
    }
    return false;
  };
  for (const auto& [key, rule] : schema.fields) {
    if (key == "type") {
      bool ok = false;
      if (rule.type == Json::Type::string) ok = is(rule.text);
      for (const auto& t : rule.items) ok = ok || is(t.text);
      if (!ok) errors.push_back(at + ": wrong type");
    } else if (key == "properties" && v.type == Json::Type::object) {
      for (const auto& [name, sub] : rule.fields)
        if (v.has(name)) validate_schema(v[name], sub, at + "." + name, errors);
    } else if (key == "items" && v.type == Json::Type::array) {
      for (std::size_t i = 0; i < v.items.size(); ++i) validate_schema(v.items[i], rule, at + "[" + std::to_string(i) + "]", errors);
    } else if (key == "required" && v.type == Json::Type::object) {
      for (const auto& r : rule.items)
        if (!v.has(r.text)) errors.push_back(at + ": missing " + r.text);
    } else if (key == "enum") {
      bool ok = false;
      for (const auto& e : rule.items) ok = ok || (v.type == Json::Type::string && e.text == v.text);
      if (!ok) errors.push_back(at + ": not in enum");
    } else if (key == "pattern" && v.type == Json::Type::string) {
      if (!std::regex_search(v.text, std::regex(rule.text))) errors.push_back(at + ": pattern");
    } else if (key != "$schema" && key != "$id" && key != "description" && key != "example" && key != "title") {
      errors.push_back(at + ": schema keyword '" + key + "' is not supported by this validator");
    }
  }
}

inline std::vector<std::string> validate_t4(const std::string& doc, const std::string& schema_file = "results-schema.json") {
  std::ifstream in(std::string(PIMG_TEST_DATA) + "/t4/" + schema_file);
  std::stringstream schema;
  schema << in.rdbuf();
  std::vector<std::string> errors;
  validate_schema(JsonParser(doc).document(), JsonParser(schema.str()).document(), "$", errors);
  return errors;
}

// Python's jsonschema (the validator the schema's $schema draft names) on a file: empty when the file
// validates, else its messages. Ask python_jsonschema_available() first.
inline bool python_jsonschema_available() {
  return std::system("python3 -c 'import jsonschema' >/dev/null 2>&1") == 0;
}
inline std::string python_jsonschema_errors(const std::string& file, const std::string& schema_file) {
  const std::string schema = std::string(PIMG_TEST_DATA) + "/t4/" + schema_file;
  const std::string out = file + ".jsonschema.txt";
  const std::string cmd =
      "python3 -c 'import json, sys, jsonschema\n"
      "schema = json.load(open(sys.argv[1])); doc = json.load(open(sys.argv[2]))\n"
      "jsonschema.validators.validator_for(schema).check_schema(schema)\n"
      "errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(doc))\n"
      "[print(\"/\".join(map(str, e.absolute_path)), e.message) for e in errors[:20]]\n"
      "sys.exit(1 if errors else 0)' " + schema + " " + file + " >" + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(out.c_str());
  return rc == 0 ? std::string() : "jsonschema: " + text.str();
}
