// `pimg-tune FAMILY --space FILE`: one tuning subcommand per registered family, all of the same shape. The space
// and every flag are checked before the database is opened; under mpirun with several ranks the run is spread
// over them (docs/mpi.md). Also the end of a tuning run's exit code (run_outcome), which `t1` shares.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/runner.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

// The end of a tuning run: exit code 4 where it measured configurations and none passed (a kernel that fails
// everywhere, a reference it cannot meet), or where the store holds no passing configuration of the family at all
// (`ranked`: the rows `best` ranks), said on stderr; 0 otherwise (README, `pimg-tune man`).
int run_outcome(const TuneSummary& s, const std::vector<ResultRow>& ranked);

class TuneCommand {
 public:
  TuneCommand(CLI::App& app, const Registry& reg, const std::string& default_db);
  bool parsed() const;  // one of the family subcommands
  std::vector<std::string> families() const;  // the subcommands' names, in order
  // Tunes the parsed family (`argc`/`argv`: the command line, stored with the run and said in how to resume);
  // returns the exit code. Throws UsageError for bad input, EnvironmentError for a fault of the machine.
  int run(Registry& reg, int argc, char** argv) const;

 private:
  struct Args {
    std::string space, db, report;
    std::vector<std::string> backends, devices, retry_failed, sizes;
    std::optional<int> repeats;
    bool no_resume = false, quiet = false, no_isolation = false, share_devices = false, ladder_only = false,
         transfer = false, json = false;
    int top = 5;
  };
  // The space file, checked to be the family's and cut to the --size problems.
  Space load_space(Registry& reg, const std::string& family) const;
  // The flags as run options, each checked (retry statuses, the report's path); `space`: as load_space made it.
  TuneOptions options(const Space& space, int argc, char** argv) const;
  // After the run: the ranked table, the report, the database line (or --json's object); returns the exit code.
  int finish(Store& store, const Space& space, const std::string& family, const TuneSummary& s) const;

  Args args_;
  std::vector<std::pair<CLI::App*, std::string>> cmds_;  // subcommand, family
};

}  // namespace pimg::cli
