// `pimg-tune compare`: which two sets of rows the arguments name, and compare_rows() of them.
#include "cli/compare_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/selection.hpp"
#include "pimg/compare.hpp"
#include "pimg/errors.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {
namespace {

// `pimg-tune compare`: which two sets of rows, by the arguments.
Comparison run_compare(const Registry& reg, const std::vector<std::string>& dbs, const std::vector<std::int64_t>& runs,
                       const std::vector<std::string>& devices, const Filters& f, double alpha) {
  if (dbs.size() == 2) {
    if (!runs.empty() || !devices.empty())
      throw UsageError("compare: two databases compare their latest rows; --runs and --devices take one database");
    Store a(dbs[0], Store::Mode::read_only), b(dbs[1], Store::Mode::read_only);
    return compare_rows(select_rows(a, reg, f, false, true, "compare"), select_rows(b, reg, f, false, true, "compare"),
                        dbs[0], dbs[1], true, alpha);
  }
  Store store(dbs[0], Store::Mode::read_only);
  if (!runs.empty() && !devices.empty()) throw UsageError("compare: give --runs or --devices, not both");
  if (!devices.empty()) {
    if (devices.size() != 2) throw UsageError("compare: --devices takes two device selectors");
    const auto rows = select_rows(store, reg, f, false, true, "compare");
    std::vector<ResultRow> a, b;
    for (const auto& r : rows) {
      if (stored_device_matches(reg, r.device, devices[0])) a.push_back(r);
      else if (stored_device_matches(reg, r.device, devices[1])) b.push_back(r);
    }
    for (std::size_t i = 0; i < 2; ++i)
      if ((i ? b : a).empty()) throw UsageError(fmt::format("compare: --devices {}: matches no stored row", devices[i]));
    return compare_rows(a, b, devices[0], devices[1], false, alpha);
  }
  const auto stored = store.runs();
  std::vector<std::int64_t> pick = runs;
  if (pick.empty()) {
    if (stored.size() < 2)
      throw UsageError(fmt::format("compare: {} holds {} run(s); give a second database, --runs or --devices", dbs[0],
                                   stored.size()));
    pick = {stored[stored.size() - 2].id, stored.back().id};
  }
  if (pick.size() != 2) throw UsageError("compare: --runs takes two run ids");
  std::string known;
  for (const auto& r : stored) known += (known.empty() ? "" : ", ") + std::to_string(r.id);
  for (std::int64_t id : pick)
    if (std::none_of(stored.begin(), stored.end(), [&](const RunRecord& r) { return r.id == id; }))
      throw UsageError(fmt::format("compare: --runs {}: no such run in {} (runs: {})", id, dbs[0], known));
  RowFilter q;
  if (!f.family.empty()) q.family = f.family;
  return compare_rows(filter_rows(store.run_rows(pick[0], q, true), reg, f),
                      filter_rows(store.run_rows(pick[1], q, true), reg, f), fmt::format("run {}", pick[0]),
                      fmt::format("run {}", pick[1]), true, alpha);
}

}  // namespace

CompareCommand::CompareCommand(CLI::App& app) {
  cmd_ = app.add_subcommand(
      "compare", "compare two databases, two runs or two devices per configuration (Mann-Whitney U over the samples)");
  cmd_->add_option("databases", dbs_, "one database (two runs or two devices of it) or two databases")
      ->required()
      ->expected(1, 2);
  cmd_->add_option("--runs", runs_, "two run ids of the database (default: its last two runs)")->expected(2);
  cmd_->add_option("--devices", devices_, "two device selectors of the database")->expected(2);
  cmd_->add_option("--family", family_, "only this family");
  cmd_->add_option("--size", size_, "image size WxH");
  cmd_->add_option("--alpha", alpha_, "significance level of the test")->capture_default_str()->check(CLI::Range(1e-9, 0.5));
  cmd_->add_flag("--json", json_, "JSON instead of markdown");
}

int CompareCommand::run(const Registry& reg) const {
  check_family(reg, "compare", family_);
  check_size("--size", size_);
  const Comparison c = run_compare(reg, dbs_, runs_, devices_, Filters{family_, "", size_, false}, alpha_);
  fmt::print("{}", json_ ? compare_json(c) : compare_markdown(c));
  return 0;
}

}  // namespace pimg::cli
