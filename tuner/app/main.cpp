// pimg-tune: tune a kernel family over a space file, rank and report what the store holds.
// Exit codes: 0 success, 1 internal failure, 2 bad input (space file, flags, image, database),
// 3 environment (a fault of the machine: stored results intact, the message says how to resume).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>

#include "cli/cover_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/docs.hpp"
#include "cli/export_command.hpp"
#include "cli/import_command.hpp"
#include "cli/info.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/selection.hpp"
#include "cli/strategies_command.hpp"
#include "pimg/compare.hpp"
#include "cli/t1_command.hpp"
#include "cli/watch_command.hpp"
#include "pimg/cold_run.hpp"
#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "pimg/metatune.hpp"
#include "pimg/replay.hpp"
#include "pimg/report.hpp"
#include "pimg/runner.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"
#include "pimg/suggest.hpp"
#include "pimg/transport.hpp"
#include "user/t1.hpp"
#include "user/user_variant.hpp"

namespace fs = std::filesystem;
using pimg::cli::check_family;
using pimg::cli::check_output_path;
using pimg::cli::write_file;
using namespace pimg;

namespace {

constexpr const char* kDefaultDb = "pimg-tune.db";

std::string join_args(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

// The command that resumes an interrupted run: the same arguments, shell-quoted, without
// --no-resume (which would measure everything again).
std::string resume_command(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-resume") continue;
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                         "_-./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (const char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += (out.empty() ? "" : " ") + (plain ? a : quoted + "'");
  }
  return out;
}

// The pictures of `tune --report DIR/X.md` go to DIR/pictures (pimg/picture.hpp).
constexpr const char* kPicturesDir = "pictures";

// Writes the report, its plots beside it and the same as one self-contained HTML file (the markdown's
// name with .html); returns the plot count.
std::size_t write_report(Store& store, const std::string& family, const std::string& out_path, int top,
                         bool all_builds = false) {
  RowFilter f;
  if (!family.empty()) f.family = family;
  f.all_builds = all_builds;
  ReportOptions opt;
  opt.family = family;
  opt.top = top;
  opt.plot_prefix = fs::path(out_path).stem().string();
  opt.runs = store.runs();
  std::size_t older = 0;
  opt.cold = store.stage_rows("cold", f);
  std::vector<ResultRow> rows = store.ranking_rows(f, false, &older);
  fmt::print(stderr, "{}", cli::older_builds_note(older, all_builds));
  store.add_metrics(rows);
  opt.ladders = store.ladder_rows(f);
  opt.times = store.evaluation_times(f);
  fs::path dir = fs::path(out_path).parent_path();
  // The pictures a tuning run wrote beside the report (its picture stage), when there are any.
  if (std::ifstream manifest(dir / kPicturesDir / "pictures.tsv"); manifest) {
    opt.pictures = parse_pictures_manifest(std::string(std::istreambuf_iterator<char>(manifest), {}));
    opt.pictures_prefix = std::string(kPicturesDir) + "/";
  }
  Report r = make_report(rows, store.all_bandwidths(), opt);
  if (!dir.empty()) fs::create_directories(dir);
  write_file(out_path, r.markdown);
  for (const auto& [name, text] : r.files) write_file(dir / name, text);
  write_file(fs::path(out_path).replace_extension(".html"),
             report_html(r, "pimg-tune report" + (family.empty() ? std::string() : ": " + family)));
  return r.files.size();
}


// Ctrl-C (SIGINT), SIGTERM or SIGHUP during a tuning run: every evaluation is stored in a transaction of its own,
// so what was measured is kept. The handler says so and how to resume, then ends the process as the signal
// does (its status tells a shell it was interrupted). The note is written before the handler is installed.
std::string g_interrupt_note;

extern "C" void interrupted(int sig) {
  const ssize_t written = ::write(STDERR_FILENO, g_interrupt_note.data(), g_interrupt_note.size());
  (void)written;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void say_how_to_resume_when_interrupted(int argc, char** argv) {
  g_interrupt_note = fmt::format("\npimg-tune: interrupted; every result stored so far is kept; resume with: {}\n",
                                 resume_command(argc, argv));
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, interrupted);
}

// The end of a tuning run: exit code 4 where it measured configurations and none passed (a kernel that fails
// everywhere, a reference it cannot meet), or where the store holds no passing configuration of the family at all
// (`ranked`: the rows `best` ranks), said on stderr; 0 otherwise (README, `pimg-tune man`).
int run_outcome(const TuneSummary& s, const std::vector<ResultRow>& ranked) {
  const bool any_ok = std::any_of(ranked.begin(), ranked.end(), [](const ResultRow& r) { return r.result.status == Status::ok; });
  if (any_ok && (s.measured == 0 || s.ok > 0)) return 0;
  if (s.measured > 0 && s.ok == 0)
    fmt::print(stderr, "pimg-tune: none of the {} configurations this run measured passed; `pimg-tune report` lists why "
               "(exit code 4)\n", s.measured);
  else
    fmt::print(stderr, "pimg-tune: no configuration of this family passed, in this run or before; `pimg-tune report` "
               "lists why (exit code 4)\n");
  return 4;
}

}  // namespace

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) makes writes fail with EFBIG, which the store reports, instead of
  // killing the process between two writes.
  ::signal(SIGXFSZ, SIG_IGN);
  // The build's registry plus the user kernels of the run that started this process as its worker.
  const std::unique_ptr<Registry> owned = Registry::make_builtin();
  try {
    user::register_from_env(*owned);
  } catch (const std::exception& e) {
    fmt::print(stderr, "pimg-tune: {}: {}\n", user::kUserKernelsEnv, e.what());
    return 2;
  }
  const Registry& reg = *owned;
  // Hidden: the worker process the tuner starts for its evaluations (docs/reliability.md).
  if (argc == 2 && std::string(argv[1]) == "worker") return worker_main(reg);
  // Hidden: the fresh process of the whole-program stage (pimg/cold_run.hpp, docs/observers.md).
  if (argc == 2 && std::string(argv[1]) == "cold") return cold_main(reg);
  CLI::App app{"pimg-tune: auto-tuning experiment harness for image kernels"};
  const auto help = std::make_shared<cli::ExampleFormatter>();
  app.formatter(help);
  app.name("pimg-tune");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pimg-tune ") + PIMG_VERSION);

  // One tuning subcommand per registered family, all of the same shape.
  struct TuneArgs {
    std::string space, db = kDefaultDb, report;
    std::vector<std::string> backends, devices, retry_failed, sizes;
    std::optional<int> repeats;
    bool no_resume = false, quiet = false, no_isolation = false, share_devices = false, ladder_only = false,
         transfer = false, json = false;
    int top = 5;
  } tune_args;
  std::vector<std::pair<CLI::App*, std::string>> family_cmds;
  for (const Family* f : reg.families()) {
    CLI::App* cmd = app.add_subcommand(f->name(), fmt::format("tune the {} family over a space file", f->name()));
    cmd->add_option("--space", tune_args.space, "space file (YAML), e.g. spaces/conv.yaml")->required();
    cmd->add_option("--db", tune_args.db, "SQLite database (created if missing)")->capture_default_str();
    cmd->add_option("--backend", tune_args.backends, "only these backends (repeatable)");
    cmd->add_option("--device", tune_args.devices,
                    "only these devices (repeatable): index, backend, backend:index, backend:name or name substring");
    cmd->add_option("--repeats", tune_args.repeats, "exactly this many timed runs per configuration in every stage (overrides the space file's repeats, max_repeats and the confirmation stage's rounds, max_rounds and sessions: one session)")
        ->check(CLI::Range(1, 100000));
    cmd->add_option("--size", tune_args.sizes, "only the space's problems of this image size WxH (repeatable)");
    cmd->add_flag("--no-resume", tune_args.no_resume, "measure again configurations already in the database");
    cmd->add_flag("--transfer", tune_args.transfer,
                  "give the search strategy the family's stored results of other devices and problems as priors");
    cmd->add_flag("--ladder-only", tune_args.ladder_only,
                  "measure only the space's ladder: no search, confirmation, whole-program or picture stage");
    cmd->add_option("--retry-failed", tune_args.retry_failed,
                    "measure again stored configurations of these statuses (repeatable: crash, timeout, compile_error, "
                    "...; env_error is always retried)");
    cmd->add_flag("--no-isolation", tune_args.no_isolation,
                  "evaluate in this process instead of a supervised worker (a hung or crashing kernel stops the run)");
    cmd->add_option("--report", tune_args.report,
                    "also write the markdown report (plots beside it; the input, best and failed outputs as PNG "
                    "pictures in pictures/ beside it)");
    cmd->add_option("--top", tune_args.top, "rows per group in the ranked table")->capture_default_str();
    cmd->add_flag("--quiet", tune_args.quiet, "no progress output");
    cmd->add_flag("--json", tune_args.json,
                  "the run's result as one JSON object on stdout: its counts, exit code and best --json's decisions");
    cmd->add_flag("--share-devices", tune_args.share_devices,
                  "under mpirun: ranks beyond a host's devices of a kind share them (time-shared timings; for checks)");
    cmd->footer("The space file's strategy: {name, seed, options} takes one of these:\n" + cli::strategies_help(reg));
    family_cmds.emplace_back(cmd, f->name());
  }

  const std::string device_help = "device: index, backend, backend:index, backend:name or name substring";
  std::string db = kDefaultDb, family, device, size, out = "report/pimg-report.md";
  bool json = false, all_builds = false;
  const std::string all_builds_help = "also rank rows stored by older builds of pimg-tune (marked [older build])";
  int best_top = 5;
  CLI::App* best = app.add_subcommand("best", "print the winner and the ranked configurations per problem and device");
  best->add_option("family", family, "kernel family")->required();
  best->add_option("--db", db, "SQLite database")->capture_default_str();
  best->add_option("--device", device, device_help);
  best->add_option("--size", size, "image size WxH");
  best->add_option("--top", best_top, "configurations per group")->capture_default_str()->check(CLI::Range(1, 1000000));
  best->add_flag("--json", json, "JSON instead of a table");
  best->add_flag("--all-builds", all_builds, all_builds_help);
  std::string objective;  // default: writer for imported families, time for the others
  best->add_option("--objective", objective,
                   "rank by the median kernel time, by end-to-end time (kernel plus upload and download medians), "
                   "by the energy of one run (docs/observers.md) or by the time the results' writer recorded (writer: "
                   "an imported file's own time); default: writer for imported families (t4:NAME), else time")
      ->check(CLI::IsMember({"time", "end-to-end", "energy", "writer"}));

  int report_top = 10;
  CLI::App* report = app.add_subcommand(
      "report", "write the markdown report with plots from the database, and the same as one HTML file beside it");
  report->add_option("--db", db, "SQLite database")->capture_default_str();
  report->add_option("--family", family, "only this family");
  report->add_option("--out", out, "markdown file; plots and the .html are written beside it")->capture_default_str();
  report->add_option("--top", report_top, "rows of each top-N table")->capture_default_str()->check(CLI::Range(1, 100000));
  report->add_flag("--all-builds", all_builds, all_builds_help);

  cli::StrategiesCommand strategies(app, kDefaultDb, device_help);

  cli::ExportCommand exporter(app, kDefaultDb, device_help, all_builds_help);

  cli::CompareCommand compare(app);
  cli::WatchCommand watch(app, kDefaultDb);

  cli::ImportCommand importer(app, kDefaultDb);

  cli::T1Command t1(app);
  cli::CoverCommand cover(app);
  CLI::App* devices = app.add_subcommand("devices", "list backends and devices (and why a backend is unavailable)");
  devices->add_flag("--json", json, "JSON instead of text");
  std::string list_family;
  CLI::App* list = app.add_subcommand("list", "list families, variants with their parameters, and strategies");
  list->add_option("family", list_family, "only this family");
  list->add_flag("--json", json, "JSON instead of text");
  std::string shell = "bash";
  CLI::App* completion = app.add_subcommand("completion", "print the shell completion script");
  completion->add_option("shell", shell, "shell")->capture_default_str()->check(CLI::IsMember({"bash", "zsh", "fish"}));
  CLI::App* man = app.add_subcommand("man", "print the man page (roff)");

  for (const auto& [cmd, fam] : family_cmds)
    help->set_example(fam, fmt::format("pimg-tune {0} --space spaces/{0}.yaml --db out/pimg-tune.db --report "
                                       "out/report/{0}.md",
                                       fam));
  for (const auto& [command, example] : std::map<std::string, std::string>{
           {"best", "pimg-tune best conv --db out/pimg-tune.db --device openmp:0 --size 1024x1024"},
           {"report", "pimg-tune report --db out/pimg-tune.db --out out/report/conv.md"},
           {"strategies", "pimg-tune strategies --db out/pimg-tune.db --family conv --seeds 30"},
           {"export", "pimg-tune export --db out/pimg-tune.db --family conv --format header --out best.h"},
           {"compare", "pimg-tune compare yesterday.db today.db"},
           {"watch", "pimg-tune watch --db out/pimg-tune.db"},
           {"import", "pimg-tune import convolution_A100_T4.json.gz --db out/t4.db"},
           {"cover", "pimg-tune cover --db out/t4.db --db milo.db --family t4:convolution --family t1-convolution_milo "
                     "--min-fraction 0.9"},
           {"t1", "pimg-tune t1 kernel.json --check"},
           {"devices", "pimg-tune devices --json"},
           {"list", "pimg-tune list conv"},
           {"completion", "pimg-tune completion zsh > ~/.zfunc/_pimg-tune"},
           {"man", "pimg-tune man | man -l -"}})
    help->set_example(command, example);

  // A bare command or an unknown one: say so, with the usage, before CLI11's terse message.
  std::vector<std::string> command_names;
  for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; })) command_names.push_back(c->get_name());
  if (argc == 1 ||
      (argv[1][0] != '-' && std::find(command_names.begin(), command_names.end(), argv[1]) == command_names.end())) {
    const auto& names = command_names;
    if (argc == 1)
      fmt::print(stderr, "pimg-tune: a command is required\n\n");
    else
      fmt::print(stderr, "pimg-tune: unknown command '{}'{}\n\n", argv[1], did_you_mean(argv[1], names));
    fmt::print(stderr, "{}", app.help());
    return 2;
  }



  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "pimg-tune: {}\n", e.what());
    return 2;
  }

  try {
    if (t1.parsed() && !t1.checking()) say_how_to_resume_when_interrupted(argc, argv);
    if (t1.parsed()) {
      std::vector<ResultRow> ranked;
      const std::optional<TuneSummary> s = t1.run(*owned, join_args(argc, argv), ranked);
      if (!s) return 0;
      const int code = run_outcome(*s, ranked);
      if (t1.json()) fmt::print("{}", cli::run_json(t1.db(), *s, code, t1.decisions_json()));
      return code;
    }
    for (auto& [cmd, fam] : family_cmds) {
      if (!cmd->parsed()) continue;
      say_how_to_resume_when_interrupted(argc, argv);
      Space space = user::load_space_with_user_variants(*owned, tune_args.space);
      if (space.family != fam)
        throw UsageError(fmt::format("{}: the space is for family '{}', not '{}'", tune_args.space, space.family, fam));
      TuneOptions opt;
      opt.backends = tune_args.backends;
      opt.devices = tune_args.devices;
      opt.repeats = tune_args.repeats;
      opt.resume = !tune_args.no_resume;
      opt.transfer = tune_args.transfer;
      opt.ladder_only = tune_args.ladder_only;
      if (!tune_args.sizes.empty()) {  // --size: only those problems of the space
        std::set<std::string> sizes, had;
        for (const std::string& z : tune_args.sizes) {
          cli::check_size("--size", z);
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
                                       tune_args.space, fmt::join(sizes, ", "), fmt::join(had, ", ")));
        space.problems = std::move(kept);
      }
      if (opt.ladder_only && space.ladder.steps.empty())
        throw UsageError(fmt::format("{}: --ladder-only, but the space has no ladder", tune_args.space));
      for (const std::string& st : tune_args.retry_failed) {
        try {
          const Status status = status_from_string(st);
          if (status == Status::ok) throw std::invalid_argument(st);
          opt.retry.insert(status);
        } catch (const std::invalid_argument&) {
          throw UsageError(fmt::format("--retry-failed {}: not a failure status (crash, timeout, compile_error, "
                                       "launch_error, wrong_result, harness_error, env_error)", st));
        }
      }
      if (!tune_args.report.empty()) {
        check_output_path("--report", tune_args.report);
        opt.pictures_dir = (fs::path(tune_args.report).parent_path() / kPicturesDir).string();
      }
      opt.isolation = !tune_args.no_isolation;
      opt.command_line = join_args(argc, argv);
      // Under mpirun with several ranks the run is spread over them (docs/mpi.md, part 2): every rank
      // checks the input itself, so bad input ends each with exit code 2 before MPI starts; only
      // rank 0 opens the database and prints.
      const std::optional<MpiLaunch> launch = mpi_launch_from_env();
      const bool distributed = launch && launch->size > 1;
      const bool rank0 = !distributed || launch->rank == 0;
      if (tune_args.share_devices && !distributed) throw UsageError("--share-devices: only for runs under mpirun with several ranks");
      // Everything is checked before the database is opened, so bad input leaves it untouched.
      cli::Progress progress(stderr, tune_args.quiet);
      RunObserver silent;
      RunObserver& obs = rank0 ? static_cast<RunObserver&>(progress) : silent;
      Tuner tuner(reg, space, opt, obs);
      std::optional<Store> opened;
      if (rank0) opened.emplace(tune_args.db);
      TuneSummary s;
      if (distributed) {
        const auto net = open_mpi_transport();
        if (!rank0) {
          try {
            tuner.run_distributed(nullptr, obs, *net, {launch->local_rank, tune_args.share_devices});
          } catch (const std::exception& e) {
            // Without MPI_Finalize: mpirun then ends the job, and rank 0 has stored every result it received.
            fmt::print(stderr, "pimg-tune (rank {}): error: {}\n", launch->rank, e.what());
            std::fflush(stderr);
            std::_Exit(1);
          }
          return 0;
        }
        s = tuner.run_distributed(&*opened, obs, *net, {launch->local_rank, tune_args.share_devices});
      } else {
        s = tuner.run(*opened, progress);
      }
      Store& store = *opened;
      RowFilter f;
      f.family = fam;
      if (tune_args.ladder_only && !tune_args.json) {  // no search: the ladder's steps are what was stored (no exit code 4 for it)
        const auto steps = store.ladder_rows(f);
        const auto n = std::count_if(steps.begin(), steps.end(),
                                     [&](const LadderRow& l) { return l.ladder == space.ladder.name; });
        fmt::print("ladder {}: {} steps in the store (each step on each problem and device; `pimg-tune report` "
                   "shows them)\n",
                   space.ladder.name, n);
      }
      const std::vector<ResultRow> ranked = store.ranking_rows(f);
      const bool text = !tune_args.json;
      if (!tune_args.ladder_only && text) fmt::print("{}", best_table(ranked, store.all_bandwidths(), tune_args.top));
      if (!tune_args.report.empty()) {
        std::size_t plots = write_report(store, fam, tune_args.report, 10);
        if (text) fmt::print("report: {} ({} plots)\n", tune_args.report, plots);
      }
      if (text)
        fmt::print("database: {} (run {}: {} measured, {} ok, {} failed, {} already stored)\n", tune_args.db, s.run_id,
                   s.measured, s.ok, s.failed, s.skipped);
      if (!s.per_rank.empty() && text) fmt::print("evaluations per rank: {}\n", fmt::join(s.per_rank, ", "));
      const int code = tune_args.ladder_only ? 0 : run_outcome(s, ranked);
      if (tune_args.json)
        fmt::print("{}", cli::run_json(tune_args.db, s, code,
                                       best_json(ranked, store.all_bandwidths(), tune_args.top, store.stage_rows("cold", f))));
      return code;
    }
    const cli::Filters filters{family, device, size, all_builds};
    std::size_t older = 0;
    if (best->parsed()) {
      check_family(reg, "best", family);
      cli::check_size("--size", size);
      Store store(db, Store::Mode::read_only);
      auto rows = cli::select_rows(store, reg, filters, true, false, "best", &older);
      fmt::print(stderr, "{}", cli::older_builds_note(older, all_builds));
      if (rows.empty() && !json) {
        fmt::print("{}: no results stored for family {}\n", db, family);
        return 0;
      }
      store.add_metrics(rows);
      if (objective.empty()) objective = is_imported_family(family) ? "writer" : "time";
      if (objective != "time") {
        fmt::print("{}", json ? best_objective_json(rows, objective, best_top) : best_objective_table(rows, objective, best_top));
        return 0;
      }
      RowFilter in_family;
      in_family.family = family;
      in_family.all_builds = all_builds;
      fmt::print("{}", json ? best_json(rows, store.all_bandwidths(), best_top, store.stage_rows("cold", in_family))
                            : best_table(rows, store.all_bandwidths(), best_top));
      return 0;
    }
    if (report->parsed()) {
      check_family(reg, "report", family);
      check_output_path("--out", out);
      Store store(db, Store::Mode::read_only);
      std::size_t plots = write_report(store, family, out, report_top, all_builds);
      fmt::print("report: {} and {} ({} plots)\n", out, fs::path(out).replace_extension(".html").string(), plots);
      return 0;
    }
    if (importer.parsed()) return importer.run(join_args(argc, argv));
    if (exporter.parsed()) return exporter.run(reg);
    if (strategies.parsed()) return strategies.run(reg);
    if (compare.parsed()) return compare.run(reg);
    if (watch.parsed()) return watch.run();
    if (cover.parsed()) return cover.run(join_args(argc, argv));
    if (devices->parsed()) {
      fmt::print("{}", json ? cli::devices_json(reg) : cli::devices_text(reg));
      return 0;
    }
    if (list->parsed()) {
      fmt::print("{}", json ? cli::list_json(reg, list_family) : cli::list_text(reg, list_family));
      return 0;
    }
    if (completion->parsed()) {
      cli::CompletionValues values;
      for (const Family* f : reg.families()) values["family"].push_back(f->name());
      for (const Backend* b : reg.backends()) values["backend"].push_back(b->name());
      values["device"] = values["backend"];
      for (const StrategyInfo* st : reg.strategies()) values["strategy"].push_back(st->name);
      fmt::print("{}", shell == "zsh"    ? cli::zsh_completion(app, values)
                       : shell == "fish" ? cli::fish_completion(app, values)
                                         : cli::bash_completion(app, values));
      return 0;
    }
    if (man->parsed()) {
      fmt::print("{}", cli::man_page(app, PIMG_VERSION));
      return 0;
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "pimg-tune: {}\n", e.what());
    return 2;
  } catch (const EnvironmentError& e) {
    const bool tuning = t1.parsed() ||
                        std::any_of(family_cmds.begin(), family_cmds.end(), [](const auto& c) { return c.first->parsed(); });
    fmt::print(stderr, "pimg-tune: environment: {}{}\n", e.what(),
               tuning ? fmt::format("; every result stored so far is kept; resume with: {}", resume_command(argc, argv))
                      : std::string());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pimg-tune: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
