// `pimg-tune export`: the best configurations (json, a C++ header), or results in Kernel Tuner's T4 format, one file
// per variant, device and problem of search rows (t4), or every stored row in one file that import restores as
// stored (t4-all); docs/guide.md "Exporting". The store is opened read-only; every output path is checked before
// anything is written.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "pimg/registry.hpp"

namespace pimg::cli {

class ExportCommand {
 public:
  ExportCommand(CLI::App& app, const std::string& default_db, const std::string& device_help,
                const std::string& all_builds_help);
  bool parsed() const { return cmd_->parsed(); }
  // Writes the export (standard output, --out, --metadata); returns 0. Throws UsageError for bad input.
  int run(const Registry& reg) const;

 private:
  CLI::App* cmd_;
  std::string db_, family_, format_ = "json", device_, size_, out_, metadata_;
  bool all_builds_ = false;
};

}  // namespace pimg::cli
