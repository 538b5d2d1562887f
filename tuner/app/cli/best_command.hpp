// `pimg-tune best FAMILY`: the winner and the ranked configurations per problem and device, as a table or JSON,
// ranked by kernel time or another objective (--objective). The store is opened read-only.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "pimg/registry.hpp"

namespace pimg::cli {

class BestCommand {
 public:
  BestCommand(CLI::App& app, const std::string& default_db, const std::string& device_help,
              const std::string& all_builds_help);
  bool parsed() const { return cmd_->parsed(); }
  // Prints the ranking; returns 0. Throws UsageError for bad input.
  int run(const Registry& reg);

 private:
  CLI::App* cmd_;
  std::string db_, family_, device_, size_;
  std::string objective_;  // default: writer for imported families, time for the others
  int top_ = 5;
  bool json_ = false, all_builds_ = false;
};

}  // namespace pimg::cli
