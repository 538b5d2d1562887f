// The commands that print what this build knows, reading no database: `pimg-tune devices`, `list [FAMILY]`,
// `completion [SHELL]` and `man` (their text from info.hpp and docs.hpp).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "pimg/registry.hpp"

namespace pimg::cli {

class InfoCommands {
 public:
  explicit InfoCommands(CLI::App& app);
  bool parsed() const { return devices_->parsed() || list_->parsed() || completion_->parsed() || man_->parsed(); }
  // Prints the parsed command's text (`app`: the whole command line, for completion and man); returns 0.
  int run(const Registry& reg, const CLI::App& app) const;

 private:
  CLI::App *devices_, *list_, *completion_, *man_;
  std::string list_family_, shell_ = "bash";
  bool json_ = false;
};

}  // namespace pimg::cli
