// `pimg-tune cover`: a covering set to ship (docs/strategies.md, "Covering set"). Reads one or more stores
// read-only, chooses at most k configurations per problem of a kernel stored under one or more family names
// (pimg/cover.hpp), prints them with every device's in-sample and leave-one-device-out fraction, and with --into
// stores them as alias devices cover[1..k] that pimg::best_config() answers.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pimg/cover.hpp"

namespace pimg::cli {

// The exit code of `cover --min-fraction F` when a device's leave-one-device-out fraction is below F.
inline constexpr int kCoverBelowExit = 5;

class CoverCommand {
 public:
  explicit CoverCommand(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  // Prints the set and writes --into; returns 0, or kCoverBelowExit. Throws UsageError for bad input before
  // anything is written (the stores are opened read-only).
  int run(const std::string& command_line) const;

 private:
  CLI::App* cmd_;
  std::vector<std::string> dbs_, families_;
  std::size_t k_ = kCoverDefaultK;
  std::string objective_ = "writer", into_;
  std::optional<double> min_fraction_;
  bool json_ = false;
};

}  // namespace pimg::cli
