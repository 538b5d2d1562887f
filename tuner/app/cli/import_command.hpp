// `pimg-tune import FILE...`: results measured by other tuners (T4 result files, .json or .json.gz; Kernel Tuner
// caches; pimg-tune's own t4-all exports) into a store (pimg/import.hpp, docs/guide.md "Importing"). Every file is
// read and checked before the store is opened: bad input changes nothing.
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "pimg/import.hpp"

namespace pimg::cli {

class ImportCommand {
 public:
  ImportCommand(CLI::App& app, const std::string& default_db);
  bool parsed() const { return cmd_->parsed(); }
  // Imports every file and prints what each added (a line, or with --json one object per file); returns 0.
  // Throws UsageError naming the file and field for a file it refuses, before the store is opened.
  int run(const std::string& command_line);

 private:
  CLI::App* cmd_;
  std::vector<std::string> files_;
  ImportOptions options_;
  std::string db_;
  bool json_ = false;
  std::uint64_t max_mib_ = kImportMaxBytes >> 20;
};

}  // namespace pimg::cli
