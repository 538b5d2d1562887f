// `pimg-tune t1 FILE`: tune a kernel described by a T1 file (docs/tune-your-own-kernel.md): its
// space and geometry from the file, its source read now, its reference from the file's reference
// arguments or, without them, the output of its default configuration (computed first, on the first device).
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/runner.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

class T1Command {
 public:
  explicit T1Command(CLI::App& app);
  bool parsed() const { return cmd_->parsed(); }
  bool checking() const { return check_; }  // --check: the file is read and its space counted, nothing tuned
  bool json() const { return json_; }        // --json: the run's result as one JSON object (cli::run_json)
  const std::string& db() const { return db_; }
  const std::string& decisions_json() const { return decisions_json_; }  // best --json's, after a --json run
  // The run's summary and (`ranked`) the rows `best` ranks for the family after it; nullopt for --check and on a
  // rank other than 0 of a distributed run (cli/spread.hpp).
  std::optional<TuneSummary> run(Registry& reg, const std::string& command_line, std::vector<ResultRow>& ranked);

 private:
  CLI::App* cmd_;
  std::string file_, db_ = "pimg-tune.db", problem_size_, strategy_;
  std::optional<std::int64_t> budget_;
  std::optional<std::uint64_t> seed_;
  std::vector<std::string> sets_;
  std::vector<std::string> backends_, devices_;
  std::optional<int> repeats_;
  std::optional<double> timeout_s_;
  bool no_resume_ = false, no_isolation_ = false, quiet_ = false, check_ = false, transfer_ = false, json_ = false,
       share_devices_ = false;
  std::string decisions_json_;
  int top_ = 5;
};

}  // namespace pimg::cli
