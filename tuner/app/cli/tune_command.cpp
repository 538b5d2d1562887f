// The family tuning subcommands (tune_command.hpp): their flags, the checks made before the database is opened,
// the sequential or distributed run, and what is printed after it.
#include "cli/tune_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "cli/info.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/report_command.hpp"
#include "cli/resume.hpp"
#include "cli/selection.hpp"
#include "cli/spread.hpp"
#include "pimg/errors.hpp"
#include "pimg/isolation.hpp"
#include "pimg/report.hpp"
#include "user/user_variant.hpp"

namespace fs = std::filesystem;

namespace pimg::cli {

int run_outcome(const TuneSummary& s, const std::vector<ResultRow>& ranked) {
  // `ranked` holds the current build's rows only (Store::ranking_rows): a passing row of an older pimg-tune does not
  // count, nor one of a variant whose source this run measured anew (an edited kernel or header: its stored passes
  // are of the old code). A resumption ends as the run it continues would have: where what it measured all failed
  // (a killed run's leftovers, a variant added) but the store holds passing configurations of the code as it is, the
  // answer stands and the failures are said.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> measured_sources;  // (family, variant) -> sources
  for (const ResultRow& r : ranked)
    if (r.run_id == s.run_id) measured_sources[{r.variant.family, r.variant.name}].insert(r.variant.source_hash);
  const bool any_ok = std::any_of(ranked.begin(), ranked.end(), [&](const ResultRow& r) {
    if (r.result.status != Status::ok) return false;
    const auto m = measured_sources.find({r.variant.family, r.variant.name});
    return m == measured_sources.end() || m->second.count(r.variant.source_hash) > 0;
  });
  if (any_ok) {
    if (s.measured > 0 && s.ok == 0)
      fmt::print(stderr, "pimg-tune: none of the {} configurations this run measured passed (`pimg-tune report` lists "
                 "why); the answer stands on the passing configurations stored before\n", s.measured);
    return 0;
  }
  if (s.measured > 0)
    fmt::print(stderr, "pimg-tune: none of the {} configurations this run measured passed, nor any stored of the code as it is; "
               "`pimg-tune report` lists why (exit code 4)\n", s.measured);
  else
    fmt::print(stderr, "pimg-tune: no configuration of this family passed, in this run or before; `pimg-tune report` "
               "lists why (exit code 4)\n");
  return 4;
}

TuneCommand::TuneCommand(CLI::App& app, const Registry& reg, const std::string& default_db) {
  args_.db = default_db;
  Args& a = args_;
  for (const Family* f : reg.families()) {
    CLI::App* cmd = app.add_subcommand(f->name(), fmt::format("tune the {} family over a space file", f->name()));
    cmd->add_option("--space", a.space, "space file (YAML), e.g. spaces/conv.yaml")->required();
    cmd->add_option("--db", a.db, "SQLite database (created if missing)")->capture_default_str();
    cmd->add_option("--backend", a.backends, "only these backends (repeatable)");
    cmd->add_option("--device", a.devices,
                    "only these devices (repeatable): index, backend, backend:index, backend:name or name substring");
    cmd->add_option("--repeats", a.repeats, "exactly this many timed runs per configuration in every stage (overrides the space file's repeats, max_repeats and the confirmation stage's rounds, max_rounds and sessions: one session)")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--size", a.sizes, "only the space's problems of this image size WxH (repeatable)");
    cmd->add_flag("--no-resume", a.no_resume, "measure again configurations already in the database");
    cmd->add_flag("--transfer", a.transfer,
                  "give the search strategy the family's stored results of other devices and problems as priors");
    cmd->add_flag("--ladder-only", a.ladder_only,
                  "measure only the space's ladder: no search, confirmation, whole-program or picture stage");
    cmd->add_option("--retry-failed", a.retry_failed,
                    "measure again stored configurations of these statuses (repeatable: crash, timeout, compile_error, "
                    "...; env_error is always retried)");
    cmd->add_flag("--no-isolation", a.no_isolation,
                  "evaluate in this process instead of a supervised worker (a hung or crashing kernel stops the run)");
    cmd->add_option("--report", a.report,
                    "also write the markdown report (plots beside it; the input, best and failed outputs as PNG "
                    "pictures in pictures/ beside it)");
    cmd->add_option("--top", a.top, "rows per group in the ranked table")->capture_default_str();
    cmd->add_flag("--quiet", a.quiet, "no progress output");
    cmd->add_flag("--json", a.json,
                  "the run's result as one JSON object on stdout: its counts, exit code and best --json's decisions");
    cmd->add_flag("--share-devices", a.share_devices,
                  "under mpirun: ranks beyond a host's devices of a kind share them (time-shared timings; for checks)");
    cmd->footer("The space file's strategy: {name, seed, options} takes one of these:\n" + strategies_help(reg));
    cmds_.emplace_back(cmd, f->name());
  }
}

bool TuneCommand::parsed() const {
  return std::any_of(cmds_.begin(), cmds_.end(), [](const auto& c) { return c.first->parsed(); });
}

std::vector<std::string> TuneCommand::families() const {
  std::vector<std::string> out;
  for (const auto& c : cmds_) out.push_back(c.second);
  return out;
}

Space TuneCommand::load_space(Registry& reg, const std::string& fam) const {
  Space space = user::load_space_with_user_variants(reg, args_.space);
  if (space.family != fam)
    throw UsageError(fmt::format("{}: the space is for family '{}', not '{}'", args_.space, space.family, fam));
  if (!args_.sizes.empty()) {  // --size: only those problems of the space
    std::set<std::string> sizes, had;
    for (const std::string& z : args_.sizes) {
      check_size("--size", z);
      sizes.insert(z);
    }
    std::vector<Problem> kept;
    for (const Problem& p : space.problems) {
      const std::string z = fmt::format("{}x{}", p.width, p.height);
      had.insert(z);
      if (sizes.count(z)) kept.push_back(p);
    }
    if (kept.empty())
      throw UsageError(fmt::format("{}: --size {}: the space has no problem of that size (its sizes: {})",
                                   args_.space, fmt::join(sizes, ", "), fmt::join(had, ", ")));
    space.problems = std::move(kept);
  }
  return space;
}

TuneOptions TuneCommand::options(const Space& space, int argc, char** argv) const {
  TuneOptions opt;
  opt.backends = args_.backends;
  opt.devices = args_.devices;
  opt.repeats = args_.repeats;
  opt.resume = !args_.no_resume;
  opt.transfer = args_.transfer;
  opt.ladder_only = args_.ladder_only;
  if (opt.ladder_only && space.ladder.steps.empty())
    throw UsageError(fmt::format("{}: --ladder-only, but the space has no ladder", args_.space));
  for (const std::string& st : args_.retry_failed) {
    try {
      const Status status = status_from_string(st);
      if (status == Status::ok) throw std::invalid_argument(st);
      opt.retry.insert(status);
    } catch (const std::invalid_argument&) {
      throw UsageError(fmt::format("--retry-failed {}: not a failure status (crash, timeout, compile_error, "
                                   "launch_error, wrong_result, harness_error, env_error)", st));
    }
  }
  if (!args_.report.empty()) {
    check_output_path("--report", args_.report);
    opt.pictures_dir = (fs::path(args_.report).parent_path() / kPicturesDir).string();
  }
  opt.isolation = !args_.no_isolation;
  opt.command_line = join_args(argc, argv);
  return opt;
}

int TuneCommand::run(Registry& reg, int argc, char** argv) const {
  const auto parsed_cmd = std::find_if(cmds_.begin(), cmds_.end(), [](const auto& c) { return c.first->parsed(); });
  if (parsed_cmd == cmds_.end()) return 0;
  const std::string& fam = parsed_cmd->second;
  say_how_to_resume_when_interrupted(argc, argv);
  const Space space = load_space(reg, fam);
  const TuneOptions opt = options(space, argc, argv);
  // Under mpirun with several ranks the run is spread over them (cli/spread.hpp). Everything is checked before the
  // database is opened, so bad input leaves it untouched.
  RunPlace place(args_.share_devices);
  Progress progress(stderr, args_.quiet);
  RunObserver& obs = place.observer(progress);
  Tuner tuner(reg, space, opt, obs);
  Store* store = place.open_store(args_.db);
  const std::optional<TuneSummary> s = place.run(tuner, obs);
  if (!s) return 0;
  return finish(*store, space, fam, *s);
}

int TuneCommand::finish(Store& store, const Space& space, const std::string& fam, const TuneSummary& s) const {
  RowFilter f;
  f.family = fam;
  if (args_.ladder_only && !args_.json) {  // no search: the ladder's steps are what was stored (no exit code 4 for it)
    const auto steps = store.ladder_rows(f);
    const auto n = std::count_if(steps.begin(), steps.end(),
                                 [&](const LadderRow& l) { return l.ladder == space.ladder.name; });
    fmt::print("ladder {}: {} steps in the store (each step on each problem and device; `pimg-tune report` "
               "shows them)\n",
               space.ladder.name, n);
  }
  const std::vector<ResultRow> ranked = store.ranking_rows(f);
  const bool text = !args_.json;
  if (!args_.ladder_only && text) fmt::print("{}", best_table(ranked, store.all_bandwidths(), args_.top));
  if (!args_.report.empty()) {
    std::size_t plots = write_report(store, fam, args_.report, 10);
    if (text) fmt::print("report: {} ({} plots)\n", args_.report, plots);
  }
  if (text)
    fmt::print("database: {} (run {}: {} measured, {} ok, {} failed, {} already stored)\n", args_.db, s.run_id,
               s.measured, s.ok, s.failed, s.skipped);
  if (!s.per_rank.empty() && text) fmt::print("evaluations per rank: {}\n", fmt::join(s.per_rank, ", "));
  const int code = args_.ladder_only ? 0 : run_outcome(s, ranked);
  if (args_.json)
    fmt::print("{}", run_json(args_.db, s, code,
                              best_json(ranked, store.all_bandwidths(), args_.top, store.stage_rows("cold", f))));
  return code;
}

}  // namespace pimg::cli
