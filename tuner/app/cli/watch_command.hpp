// `pimg-tune watch`: a run's progress, best so far and latest failures, refreshed until Ctrl-C (reads the store
// only, so it can watch a run another process is making).
#pragma once
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace pimg::cli {

class WatchCommand {
 public:
  WatchCommand(CLI::App& app, const std::string& default_db);
  bool parsed() const { return cmd_->parsed(); }
  // Prints screens until Ctrl-C (one with --once, one JSON object with --json); returns 0.
  int run() const;

 private:
  CLI::App* cmd_;
  std::string db_;
  std::int64_t run_ = 0;
  double interval_ = 2;
  bool once_ = false, json_ = false;
};

}  // namespace pimg::cli
