// `pimg-tune devices` and `pimg-tune list [FAMILY]`, as text or JSON, and the strategies' help.
#pragma once
#include <string>

#include "pimg/registry.hpp"
#include "pimg/runner.hpp"

namespace pimg::cli {

std::string devices_text(const Registry& reg);
std::string devices_json(const Registry& reg);
// `family`: "" for every family; throws UsageError (with a suggestion) for an unknown one.
std::string list_text(const Registry& reg, const std::string& family);
std::string list_json(const Registry& reg, const std::string& family);
std::string strategies_help(const Registry& reg);
std::string json_quote(const std::string& s);
// A tuning run's result as one JSON object (`--json` of the family commands and t1): the database, the run's
// counts, its exit code and `decisions`, the array best --json prints for the family after it.
std::string run_json(const std::string& db, const TuneSummary& s, int exit_code, const std::string& decisions);

}  // namespace pimg::cli
