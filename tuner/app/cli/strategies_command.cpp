// `pimg-tune strategies`: replay_spaces() of the family's stored rows, filtered by --device and --size, through
// compare_strategies() or meta_tune(), and their tables, JSON and report.
#include "cli/strategies_command.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/output.hpp"
#include "cli/selection.hpp"
#include "pimg/errors.hpp"
#include "pimg/metatune.hpp"
#include "pimg/replay.hpp"
#include "pimg/report.hpp"
#include "pimg/store.hpp"
#include "pimg/strategy.hpp"

namespace pimg::cli {

namespace fs = std::filesystem;

StrategiesCommand::StrategiesCommand(CLI::App& app, const std::string& default_db, const std::string& device_help)
    : db_(default_db) {
  cmd_ = app.add_subcommand(
      "strategies", "replay every strategy on stored results (no device): evaluations to reach the optimum");
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_option("--family", family_, "kernel family")->required();
  cmd_->add_option("--device", device_, device_help);
  cmd_->add_option("--size", size_, "image size WxH");
  cmd_->add_option("--seeds", seeds_, "seeds per strategy")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd_->add_option("--first-seed", first_seed_,
                   "seeds are first-seed .. first-seed+seeds-1 (check options chosen on other seeds)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  cmd_->add_option("--strategy", names_, "only these strategies (repeatable; default all)");
  cmd_->add_flag("--json", json_, "JSON instead of tables: per space and strategy the scores of the tables");
  cmd_->add_option("--report", report_, "also write a markdown section with convergence plots");
  cmd_->add_option("--max-evals", max_evals_, "end every replayed run after this many evaluations (0: no limit)")
      ->capture_default_str();
  cmd_->add_option("--option", options_,
                   "a strategy option for the replay, STRATEGY.OPTION=VALUE (repeatable), e.g. gp.length=0.5");
  cmd_->add_option("--meta-tune", meta_strategy_,
                   "meta-tune this strategy's options: replay every combination of --grid, print the best");
  cmd_->add_option("--grid", meta_grid_, "values to try for --meta-tune, OPTION=V1,V2,... (repeatable)");
  cmd_->add_option("--objective", objective_,
                   "what a configuration costs: the time its writer ranked by (an imported file's own time, "
                   "Kernel Tuner's mean; else the median of the runs) or the median of the runs")
      ->capture_default_str()
      ->check(CLI::IsMember({"writer", "median"}));
  cmd_->add_flag("--transfer", transfer_,
                 "give the strategies the family's stored results of other devices and problems as priors");
}

int StrategiesCommand::run(const Registry& reg) const {
  check_family(reg, "strategies", family_);
  check_size("--size", size_);
  if (!report_.empty()) check_output_path("--report", report_);
  Store store(db_, Store::Mode::read_only);
  // Priors (with --transfer) come from every stored row of the family; the filters choose the spaces replayed.
  RowFilter all;
  all.family = family_;
  ReplayOptions replay_opt;
  replay_opt.objective = objective_ == "median" ? ReplayObjective::median : ReplayObjective::writer;
  replay_opt.transfer = transfer_;
  std::vector<ResultRow> rows = store.rows(all);
  store.add_metrics(rows);  // the writer's objective
  std::vector<ReplaySpace> spaces;
  for (auto& s : replay_spaces(rows, replay_opt)) {
    const bool dev_ok = device_.empty() || stored_device_matches(reg, s.device, device_);
    if (dev_ok && (size_.empty() || s.problem.size() == size_)) spaces.push_back(std::move(s));
  }
  if (spaces.empty() && (!device_.empty() || !size_.empty()))  // throws: no rows match, with what exists
    select_rows(store, reg, Filters{family_, device_, size_, false}, false, false, "strategies");
  if (!meta_grid_.empty() && meta_strategy_.empty()) throw UsageError("--grid needs --meta-tune STRATEGY");
  if (!meta_strategy_.empty()) {
    const StrategyInfo* info = reg.strategy(meta_strategy_);
    if (!info) throw UsageError(fmt::format("--meta-tune {}: unknown strategy", meta_strategy_));
    const OptionGrid grid = parse_option_grid(meta_grid_, *info);
    for (const auto& s : spaces) fmt::print("{}: by {}; {}\n", s.label(), s.objective, priors_note(prior_groups(s.priors)));
    fmt::print("{}", meta_tune_table(meta_strategy_, meta_tune(spaces, reg, meta_strategy_, grid, seeds_, first_seed_)));
    return 0;
  }
  auto result = compare_strategies(spaces, reg, seeds_, names_, parse_option_overrides(options_, reg), max_evals_,
                                   first_seed_);
  fmt::print("{}", json_ ? strategies_json(result) : strategies_table(result));
  if (!report_.empty()) {
    Report r = strategies_report(result, fs::path(report_).stem().string());
    fs::path dir = fs::path(report_).parent_path();
    if (!dir.empty()) fs::create_directories(dir);
    for (const auto& [name, text] : r.files) write_file(dir / name, text);
    write_file(report_, r.markdown);
    if (!json_) fmt::print("report: {} ({} plots)\n", report_, r.files.size());
  }
  return 0;
}

}  // namespace pimg::cli
