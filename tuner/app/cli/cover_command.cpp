// `pimg-tune cover`: the stores' rows in, pimg::cover() over them, its table or JSON out, the alias rows into
// --into, and the exit code of --min-fraction.
#include "cli/cover_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <tuple>

#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "pimg/runner.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {
namespace cover_cli {  // named: the program's files may be compiled in one unity batch

namespace fs = std::filesystem;

// --into: a store that exists must be pimg-tune's, and the alias rows it holds of these families must be those
// about to be written (a second, different set under the same names would give best_config two answers).
void check_into(const std::string& into, const std::vector<std::string>& families,
                const std::vector<ImportedFile>& files) {
  std::error_code ec;
  if (!fs::exists(into, ec)) {
    const fs::path dir = fs::path(into).parent_path();
    if (!dir.empty() && !fs::is_directory(dir, ec))
      throw UsageError(fmt::format("--into {}: {} is not a directory", into, dir.string()));
    return;
  }
  std::set<std::tuple<std::string, std::string, std::string>> writing;
  for (const ImportedFile& f : files)
    for (const ImportedEntry& e : f.entries)
      writing.emplace(e.problem.canonical(), e.device.name, e.config.canonical());
  std::vector<ResultRow> rows;
  try {
    rows = Store(into, Store::Mode::read_only).ranking_rows();
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("--into {}", e.what()));
  }
  for (const ResultRow& r : rows) {
    if (r.device.platform != kCoverPlatform) continue;
    if (std::find(families.begin(), families.end(), r.problem.family) == families.end()) continue;
    if (!writing.count({r.problem.canonical(), r.device.name, r.config.canonical()}))
      throw UsageError(
          fmt::format("--into {}: holds another covering set of family {} ({} is {}): write into a new "
                      "file",
                      into, r.problem.family, r.device.name, r.config.brief()));
  }
}

}  // namespace cover_cli

CoverCommand::CoverCommand(CLI::App& app) {
  cmd_ = app.add_subcommand("cover",
                            "choose at most k configurations per problem that give every device of several stores "
                            "and families a fraction of its optimum, checked leave-one-device-out (a set to ship)");
  cmd_->add_option("--db", dbs_, "SQLite database, read only (repeatable: the devices of every one)")->required();
  cmd_->add_option("--family", families_,
                   "the kernel's family (repeatable: the same kernel under other names, e.g. t4:convolution and "
                   "t1-convolution_milo)")
      ->required();
  cmd_->add_option("-k,--max-configs", k_, "configurations per problem, at most")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
  cmd_->add_option("--objective", objective_,
                   "what a configuration costs on a device: the time its writer ranked it by (an imported file's own "
                   "time; the median of the runs for pimg-tune's rows) or the median of the runs")
      ->capture_default_str()
      ->check(CLI::IsMember({"writer", "median"}));
  cmd_->add_option("--min-fraction", min_fraction_,
                   "exit with code 5 when a device's leave-one-device-out fraction of its optimum is below this "
                   "(0 < F <= 1)")
      ->check(CLI::Validator(
          [](std::string& text) {
            char* end = nullptr;
            const double v = std::strtod(text.c_str(), &end);
            return end && *end == '\0' && v > 0 && v <= 1 ? std::string() : "a fraction above 0 and at most 1: " + text;
          },
          "FRACTION"));
  cmd_->add_option("--into", into_,
                   "also store the chosen configurations as alias devices cover[1], cover[2], ... of each family in "
                   "this database (created if missing), where pimg::best_config finds them");
  cmd_->add_flag("--json", json_, "JSON instead of a table");
}

int CoverCommand::run(const std::string& command_line) const {
  std::vector<CoverSource> sources;
  for (std::size_t i = 0; i < dbs_.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      std::error_code ec;
      if (dbs_[j] == dbs_[i] || std::filesystem::equivalent(dbs_[j], dbs_[i], ec))
        throw UsageError(fmt::format("--db {}: given twice", dbs_[i]));
    }
    try {
      const Store store(dbs_[i], Store::Mode::read_only);
      CoverSource s{dbs_[i], store.ranking_rows()};
      store.add_metrics(s.rows);
      sources.push_back(std::move(s));
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("--db {}", e.what()));  // the store names its file
    }
  }
  CoverOptions opt;
  opt.families = families_;
  opt.k = k_;
  opt.objective = objective_ == "median" ? CoverObjective::median : CoverObjective::writer;
  const CoverResult result = cover(sources, opt);
  if (!into_.empty()) {
    const std::vector<ImportedFile> files = cover_aliases(result);
    cover_cli::check_into(into_, families_, files);
    Store store(into_);
    std::size_t added = 0;
    for (const ImportedFile& f : files) added += store_import(store, f, this_run(command_line)).added;
    fmt::print(stderr,
               "{}: {} rows added on the alias devices cover[1]..cover[{}]; pimg::best_config(db, family, "
               "\"cover[i]\", size) gives configuration i\n",
               into_, added, result.k);
  }
  fmt::print("{}", json_ ? cover_json(result, min_fraction_) : cover_table(result, min_fraction_));
  if (!min_fraction_) return 0;
  const std::vector<std::string> below = cover_shortfalls(result, *min_fraction_);
  if (below.empty()) return 0;
  fmt::print(stderr, "pimg-tune: cover: below --min-fraction {} leave-one-device-out: {} (exit code {})\n",
             *min_fraction_, fmt::join(below, ", "), kCoverBelowExit);
  return kCoverBelowExit;
}

}  // namespace pimg::cli
