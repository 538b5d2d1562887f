// `pimg-tune t1 FILE`: loads the T1 file into the registry (and the environment its workers read),
// computes the default configuration's output as the reference where the file gives none, then
// tunes like a family subcommand: same runner, evaluator, isolation and store.
#include "cli/t1_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>

#include "cli/info.hpp"
#include "cli/progress.hpp"
#include "cli/spread.hpp"
#include "pimg/cache.hpp"
#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/report.hpp"
#include "pimg/runner.hpp"
#include "pimg/strategy.hpp"
#include "pimg/store.hpp"
#include "user/t1.hpp"

namespace pimg::cli {
namespace {

// The default configuration's output, kept as the reference (evaluator.hpp's capture_output) where the file gives
// none: run in a worker under the run timeout like every configuration (in this process with --no-isolation), so a
// default that crashes, hangs, writes past its output or leaves it unwritten is refused with that reason.
void compute_default_reference(const Registry& reg, const user::T1Spec& spec, const Space& space,
                               const TuneOptions& opt, RunObserver& obs) {
  const std::string key = user::default_reference_key(spec);
  if (cache_exists("t1-reference", key)) return;
  const auto devices = select_devices(reg, space, opt, obs);
  if (devices.empty())
    throw UsageError(fmt::format("{}: no {} device to run the default configuration on for the reference",
                                 spec.file, space.backends.at(0).backend));
  const SelectedDevice& sd = devices.front();
  const Family& family = *reg.family(spec.name);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Problem& problem = space.problems.at(0);
  const Workload workload = family.make_workload(problem);
  const Config config = spec.default_config();
  const std::vector<std::uint8_t> none;
  const auto session = opt.isolation && space.measure.isolation
                           ? open_worker(opt.worker_exe, family, *sd.backend, sd.info, space.measure)
                           : open_in_process(family, *sd.backend, sd.info, space.measure);
  const EvalResult r = session->capture({problem, workload, none, variant, config}, "t1-reference", key);
  if (r.status != Status::ok)
    throw UsageError(fmt::format("{}: the default configuration ({}) gives no reference on {}: {}: {}", spec.file,
                                 config.brief(), sd.info.id(), to_string(r.status), r.log.substr(0, 2000)));
  obs.on_message(fmt::format("reference: the default configuration's output ({}) on {} {}", config.brief(),
                             sd.info.id(), sd.info.name));
}

}  // namespace

T1Command::T1Command(CLI::App& app) {
  cmd_ = app.add_subcommand("t1", "tune the kernel a T1 file describes (docs/tune-your-own-kernel.md)");
  cmd_->add_option("file", file_, "T1 file (JSON)")->required();
  cmd_->add_option("--db", db_, "SQLite database (created if missing)")->capture_default_str();
  cmd_->add_option("--backend", backends_, "only these backends (default: cuda for CUDA kernels, opencl for OpenCL)");
  cmd_->add_option("--device", devices_, "only devices whose index or name matches (repeatable)");
  cmd_->add_option("--repeats", repeats_, "timed runs per configuration")->check(CLI::Range(1, 100000));
  cmd_->add_option("--timeout", timeout_s_,
                   "seconds a run may take (the default configuration's reference run too) before it is a timeout")
      ->check(CLI::Range(0.01, 86400.0));
  cmd_->add_flag("--no-resume", no_resume_, "measure again configurations already in the database");
  cmd_->add_flag("--transfer", transfer_,
                 "give the search strategy the family's stored results of other devices and problems as priors");
  cmd_->add_flag("--no-isolation", no_isolation_, "evaluate in this process instead of a supervised worker");
  cmd_->add_option("--top", top_, "rows per group in the ranked table")->capture_default_str();
  cmd_->add_flag("--quiet", quiet_, "no progress output");
  cmd_->add_flag("--share-devices", share_devices_,
                 "under mpirun: ranks beyond a host's devices of a kind share them (time-shared timings; for checks)");
  cmd_->add_flag("--check", check_, "only load and check the file, print its space; no device, no database");
  cmd_->add_flag("--json", json_,
                 "JSON on stdout: with --check the file's space, else the run's counts, exit code and best --json's "
                 "decisions");
  cmd_->add_option("--strategy", strategy_, "the search instead of the file's Search (pimg-tune strategies lists them)");
  cmd_->add_option("--budget", budget_, "configurations the search measures, instead of the file's Budget")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd_->add_option("--seed", seed_, "the search's seed, instead of the file's");
  cmd_->add_option("--problem-size", problem_size_,
                   "the ProblemSize a runner would supply (N, NxM or N,M,K); replaces the file's");
  cmd_->add_option("--set", sets_,
                   "NAME=VALUE: the value of a scalar argument, or the one value of a tuning parameter (repeatable)");
}

namespace {

user::T1Overrides overrides(const std::string& problem_size, const std::vector<std::string>& sets) {
  user::T1Overrides o;
  if (!problem_size.empty()) {
    std::string dims = problem_size;
    std::replace(dims.begin(), dims.end(), 'x', ',');
    std::size_t pos = 0;
    while (pos <= dims.size()) {
      std::size_t end = dims.find(',', pos);
      if (end == std::string::npos) end = dims.size();
      const std::string n = dims.substr(pos, end - pos);
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
      if (n.empty() || ec != std::errc() || ptr != n.data() + n.size() || v <= 0 || v > (std::int64_t{1} << 31))
        throw UsageError(fmt::format("--problem-size {}: '{}' is not a size from 1 to 2^31", problem_size, n));
      o.problem_size.push_back(v);
      pos = end + 1;
    }
    if (o.problem_size.size() > 3) throw UsageError(fmt::format("--problem-size {}: 1 to 3 dimensions", problem_size));
  }
  for (const auto& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == s.size() || s.find_first_of("\t\n") != std::string::npos)
      throw UsageError(fmt::format("--set {}: give NAME=VALUE", s));
    o.sets.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return o;
}

}  // namespace

std::optional<TuneSummary> T1Command::run(Registry& reg, const std::string& command_line, std::vector<ResultRow>& ranked) {
  const user::T1Overrides o = overrides(problem_size_, sets_);
  const user::T1Spec& spec = user::register_t1(reg, file_, o);
  user::export_to_env({user::t1_env_entry(file_, o)});
  // Under mpirun with several ranks the run is spread over them (cli/spread.hpp), each rank reading the file itself.
  RunPlace place(share_devices_);
  if (place.rank0())
    for (const auto& a : spec.assumptions) fmt::print(stderr, "pimg-tune: {}\n", a.warning());
  Space space = user::t1_space(spec);
  if (timeout_s_) space.measure.timeout_s = *timeout_s_;
  if (!strategy_.empty() || budget_ || seed_) {  // the command line's search replaces the file's
    StrategySpec& st = space.strategy;
    if (!strategy_.empty() && strategy_ != st.name) {
      st.name = strategy_;
      st.options.clear();
    }
    if (budget_ && strategy_.empty() && st.name == "exhaustive") st.name = "random";  // a budget alone: random, as in T1
    if (budget_) st.options["budget"] = std::to_string(*budget_);
    if (seed_) st.seed = *seed_;
    const StrategyInfo* info = reg.strategy(st.name);
    if (!info) throw UsageError(fmt::format("--strategy {}: no such strategy (pimg-tune strategies lists them)", st.name));
    try {
      resolve_options(*info, st.options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--strategy {}{}: {}", st.name, budget_ ? fmt::format(" --budget {}", *budget_) : "",
                                   e.what()));
    }
  }
  if (check_) {
    std::size_t valid = 0;
    DeviceInfo any;
    std::uint64_t sampled_from = 0;
    try {
      const SearchSpace points = space.variants[0].search_space(any);
      valid = points.size();
      sampled_from = points.sampled_from();
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: ConfigurationSpace: {}", spec.file, e.what()));
    }
    if (json_) {
      fmt::print("{{\"file\":{},\"family\":{},\"kernel\":{},\"language\":{},\"parameters\":{},\"raw\":{},\"valid\":{},"
                 "\"sampled\":{},\"reference\":{}}}\n",
                 json_quote(spec.file), json_quote(spec.name), json_quote(spec.kernel_name), json_quote(spec.language),
                 spec.params.size(), sampled_from > 0 ? sampled_from : space.variants[0].raw_size(), valid,
                 sampled_from > 0 ? "true" : "false",
                 json_quote(spec.refs.empty() ? "the default configuration's output" : "the file's reference argument"));
      return std::nullopt;
    }
    if (sampled_from > 0) {
      fmt::print("{}: family {}, kernel {} ({}), {} parameters, {} raw configurations, too many to list: the search "
                 "draws from a uniform sample of {} valid ones, reference: {}\n",
                 spec.file, spec.name, spec.kernel_name, spec.language, spec.params.size(), sampled_from, valid,
                 spec.refs.empty() ? "the default configuration's output" : "the file's reference argument");
      return std::nullopt;
    }
    fmt::print("{}: family {}, kernel {} ({}), {} parameters, {} raw and {} valid configurations, reference: {}\n",
               spec.file, spec.name, spec.kernel_name, spec.language, spec.params.size(), space.variants[0].raw_size(),
               valid, spec.refs.empty() ? "the default configuration's output" : "the file's reference argument");
    return std::nullopt;
  }
  TuneOptions opt;
  opt.backends = backends_;
  opt.devices = devices_;
  opt.repeats = repeats_;
  opt.resume = !no_resume_;
  opt.transfer = transfer_;
  opt.isolation = !no_isolation_;
  opt.command_line = command_line;
  Progress progress(stderr, quiet_);
  RunObserver& obs = place.observer(progress);
  // Every rank computes it (or finds it in the shared disk cache): each validates against it.
  if (spec.refs.empty()) compute_default_reference(reg, spec, space, opt, obs);
  // The whole-program stage's fresh process cannot check against a reference computed here: off then.
  if (spec.refs.empty()) space.measure.cold.top = 0;
  Tuner tuner(reg, space, opt, obs);
  Store* opened = place.open_store(db_);
  const std::optional<TuneSummary> ran = place.run(tuner, obs);
  if (!ran) return std::nullopt;
  const TuneSummary& s = *ran;
  Store& store = *opened;
  RowFilter f;
  f.family = spec.name;
  // What `best` and every export answer (the confirmation stage's winner where it ran; the current build's rows).
  ranked = store.ranking_rows(f);
  if (json_) {
    RowFilter in_family;
    in_family.family = spec.name;
    decisions_json_ = best_json(ranked, store.all_bandwidths(), top_, store.stage_rows("cold", in_family));
    return s;
  }
  fmt::print("{}", best_table(ranked, store.all_bandwidths(), top_));
  fmt::print("database: {} (run {}: {} measured, {} ok, {} failed, {} already stored); family {}\n", db_, s.run_id,
             s.measured, s.ok, s.failed, s.skipped, spec.name);
  if (!s.per_rank.empty()) fmt::print("evaluations per rank: {}\n", fmt::join(s.per_rank, ", "));
  return s;
}

}  // namespace pimg::cli
