// `pimg-tune best` (best_command.hpp): the selected rows of a family ranked by the chosen objective.
#include "cli/best_command.hpp"

#include <fmt/format.h>

#include <vector>

#include "cli/selection.hpp"
#include "pimg/import.hpp"
#include "pimg/report.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

BestCommand::BestCommand(CLI::App& app, const std::string& default_db, const std::string& device_help,
                         const std::string& all_builds_help)
    : db_(default_db) {
  cmd_ = app.add_subcommand("best", "print the winner and the ranked configurations per problem and device");
  cmd_->add_option("family", family_, "kernel family")->required();
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_option("--device", device_, device_help);
  cmd_->add_option("--size", size_, "image size WxH");
  cmd_->add_option("--top", top_, "configurations per group")->capture_default_str()->check(CLI::Range(1, 1000000));
  cmd_->add_flag("--json", json_, "JSON instead of a table");
  cmd_->add_flag("--all-builds", all_builds_, all_builds_help);
  cmd_->add_option("--objective", objective_,
                   "rank by the median kernel time, by end-to-end time (kernel plus upload and download medians), "
                   "by the energy of one run (docs/observers.md) or by the time the results' writer recorded (writer: "
                   "an imported file's own time); default: writer for imported families (t4:NAME), else time")
      ->check(CLI::IsMember({"time", "end-to-end", "energy", "writer"}));
}

int BestCommand::run(const Registry& reg) {
  const Filters filters{family_, device_, size_, all_builds_};
  std::size_t older = 0;
  check_family(reg, "best", family_);
  check_size("--size", size_);
  Store store(db_, Store::Mode::read_only);
  auto rows = select_rows(store, reg, filters, true, false, "best", &older);
  fmt::print(stderr, "{}", older_builds_note(older, all_builds_));
  if (rows.empty() && !json_) {
    fmt::print("{}: no results stored for family {}\n", db_, family_);
    return 0;
  }
  store.add_metrics(rows);
  if (objective_.empty()) objective_ = is_imported_family(family_) ? "writer" : "time";
  if (objective_ != "time") {
    fmt::print("{}", json_ ? best_objective_json(rows, objective_, top_) : best_objective_table(rows, objective_, top_));
    return 0;
  }
  RowFilter in_family;
  in_family.family = family_;
  in_family.all_builds = all_builds_;
  fmt::print("{}", json_ ? best_json(rows, store.all_bandwidths(), top_, store.stage_rows("cold", in_family))
                         : best_table(rows, store.all_bandwidths(), top_));
  return 0;
}

}  // namespace pimg::cli
