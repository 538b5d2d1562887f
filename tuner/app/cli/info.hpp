// `pimg-tune devices` and `pimg-tune list [FAMILY]`, as text or JSON, and the strategies' help.
#pragma once
#include <string>

#include "pimg/registry.hpp"

namespace pimg::cli {

std::string devices_text(const Registry& reg);
std::string devices_json(const Registry& reg);
// `family`: "" for every family; throws UsageError (with a suggestion) for an unknown one.
std::string list_text(const Registry& reg, const std::string& family);
std::string list_json(const Registry& reg, const std::string& family);
std::string strategies_help(const Registry& reg);
std::string json_quote(const std::string& s);

}  // namespace pimg::cli
