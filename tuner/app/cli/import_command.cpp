// `pimg-tune import`: read_import() of every file, then store_import() of each into the store, and a line (or a
// JSON object) per file.
#include "cli/import_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>

#include "cli/info.hpp"
#include "pimg/runner.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

ImportCommand::ImportCommand(CLI::App& app, const std::string& default_db) : db_(default_db) {
  cmd_ = app.add_subcommand(
      "import", "import results measured by other tuners (T4 result files, .json or .json.gz; Kernel Tuner caches)");
  cmd_->add_option("files", files_, "files to import")->required();
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_flag("--json", json_, "JSON: one object per file");
  cmd_->add_option("--device", options_.device, "device name (default: from the file or its name)");
  cmd_->add_option("--kernel", options_.kernel, "kernel name (default: from the file or its name)");
  cmd_->add_option("--max-size", max_mib_, "the most a file may hold or a gzip file expand to (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));
}

int ImportCommand::run(const std::string& command_line) {
  // Every file is read and checked before the database is opened: bad input changes nothing.
  std::vector<ImportedFile> files;
  options_.max_bytes = max_mib_ << 20;
  for (const auto& path : files_) files.push_back(read_import(path, options_));
  Store store(db_);
  std::vector<std::string> json_files;
  for (const auto& f : files) {
    const ImportSummary s = store_import(store, f, this_run(command_line));
    if (json_) {
      std::set<std::string> families, devices;
      for (const auto& e : f.entries) {
        families.insert(json_quote(e.problem.family));
        devices.insert(json_quote(e.device.name));
      }
      json_files.push_back(fmt::format(
          "{{\"file\":{},\"format\":{},\"families\":[{}],\"devices\":[{}],\"configurations\":{},\"added\":{},"
          "\"already_stored\":{},\"outside_constraints\":{}}}",
          json_quote(f.path), json_quote(f.format), fmt::join(families, ","), fmt::join(devices, ","),
          f.entries.size(), s.added, s.already_stored, f.constraint_violations));
      continue;
    }
    std::set<std::string> families, devices;
    for (const auto& e : f.entries) {
      families.insert("'" + e.problem.family + "'");
      devices.insert("'" + e.device.name + "'");
    }
    fmt::print("{}: {}, {} {} on {} {}: {} configurations, {} added, {} already stored{}\n", f.path, f.format,
               families.size() == 1 ? "family" : "families", fmt::join(families, ", "),
               devices.size() == 1 ? "device" : "devices", fmt::join(devices, ", "), f.entries.size(), s.added,
               s.already_stored,
               f.constraint_violations ? fmt::format(", {} outside the constraints left out", f.constraint_violations)
                                       : "");
  }
  if (json_) fmt::print("[\n  {}\n]\n", fmt::join(json_files, ",\n  "));
  return 0;
}

}  // namespace pimg::cli
