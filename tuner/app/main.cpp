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
#include "cli/docs.hpp"
#include "cli/info.hpp"
#include "cli/progress.hpp"
#include "cli/selection.hpp"
#include "pimg/compare.hpp"
#include "cli/t1_command.hpp"
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

// An output file named by a flag, checked before any tuning: its folder exists (or can be made
// under a writable one), it is writable, and its name fits NAME_MAX. Nothing is created here.
void check_output_path(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty file name", flag));
  const fs::path p(path);
  if (p.filename().empty() || p.filename().string().size() > NAME_MAX)
    throw UsageError(fmt::format("{} {}: not a usable file name", flag, path));
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (st.type() != fs::file_type::not_found && !ec) {
    if (st.type() != fs::file_type::regular) throw UsageError(fmt::format("{} {}: exists and is not a regular file", flag, path));
    if (::access(path.c_str(), W_OK) != 0) throw UsageError(fmt::format("{} {}: not writable", flag, path));
    return;
  }
  // The nearest folder that exists, and the outermost one to be made (`rep` of `rep/r.md` in a new folder).
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path(), missing;
  while (!fs::exists(dir, ec)) {
    missing = dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      dir = ".";
      break;
    }
    dir = dir.parent_path();
  }
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format("{} {}: {} is not a directory", flag, path, dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} {}: cannot write in {}", flag, path, dir.string()));
  // A folder to be made: made and removed at once, so a file system that refuses it (/proc, a
  // read-only mount) is found now and not after the run.
  if (!missing.empty()) {
    if (::mkdir(missing.c_str(), 0700) != 0)
      throw UsageError(fmt::format("{} {}: cannot create {} ({})", flag, path, missing.string(), std::strerror(errno)));
    ::rmdir(missing.c_str());
  }
}

// The pictures of `tune --report DIR/X.md` go to DIR/pictures (pimg/picture.hpp).
constexpr const char* kPicturesDir = "pictures";

// Written beside and renamed into place: a reader never sees half a file, and a symbolic link at `p` is
// replaced, never written through. Its folder is made where missing (check_output_path said it can be).
void write_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + fmt::format(".tmp{}", ::getpid());
  if (std::error_code made; p.has_parent_path() && !fs::exists(p.parent_path(), made))
    fs::create_directories(p.parent_path(), made);
  {
    std::ofstream o(tmp, std::ios::binary);
    o << text;
    o.flush();
    if (!o) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw UsageError(fmt::format("{}: cannot write", p.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UsageError(fmt::format("{}: cannot write ({})", p.string(), ec.message()));
  }
}

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

std::vector<std::string> family_names(const Registry& reg) {
  std::vector<std::string> names;
  for (const Family* f : reg.families()) names.push_back(f->name());
  return names;
}

// A family of the registry, or of results made elsewhere: a T1 kernel's (t1-NAME) or an imported one's (t4:NAME).
void check_family(const Registry& reg, const std::string& command, const std::string& family) {
  if (!family.empty() && !reg.family(family) && family.rfind("t1-", 0) != 0 && family.rfind("t4:", 0) != 0)
    throw UsageError(fmt::format("{}: unknown family '{}'{}", command, family, did_you_mean(family, family_names(reg))));
}

std::string utc_now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

volatile std::sig_atomic_t g_stop = 0;

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

// `pimg-tune compare`: which two sets of rows, by the arguments.
Comparison run_compare(const Registry& reg, const std::vector<std::string>& dbs, const std::vector<std::int64_t>& runs,
                       const std::vector<std::string>& devices, const cli::Filters& f, double alpha) {
  if (dbs.size() == 2) {
    if (!runs.empty() || !devices.empty())
      throw UsageError("compare: two databases compare their latest rows; --runs and --devices take one database");
    Store a(dbs[0], Store::Mode::read_only), b(dbs[1], Store::Mode::read_only);
    return compare_rows(cli::select_rows(a, reg, f, false, true, "compare"), cli::select_rows(b, reg, f, false, true, "compare"),
                        dbs[0], dbs[1], true, alpha);
  }
  Store store(dbs[0], Store::Mode::read_only);
  if (!runs.empty() && !devices.empty()) throw UsageError("compare: give --runs or --devices, not both");
  if (!devices.empty()) {
    if (devices.size() != 2) throw UsageError("compare: --devices takes two device selectors");
    const auto rows = cli::select_rows(store, reg, f, false, true, "compare");
    std::vector<ResultRow> a, b;
    for (const auto& r : rows) {
      if (cli::stored_device_matches(reg, r.device, devices[0])) a.push_back(r);
      else if (cli::stored_device_matches(reg, r.device, devices[1])) b.push_back(r);
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
  return compare_rows(cli::filter_rows(store.run_rows(pick[0], q, true), reg, f),
                      cli::filter_rows(store.run_rows(pick[1], q, true), reg, f), fmt::format("run {}", pick[0]),
                      fmt::format("run {}", pick[1]), true, alpha);
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

  std::size_t seeds = 50;
  std::vector<std::string> strategy_names;
  std::string strategies_report_path;
  CLI::App* strategies = app.add_subcommand(
      "strategies", "replay every strategy on stored results (no device): evaluations to reach the optimum");
  strategies->add_option("--db", db, "SQLite database")->capture_default_str();
  strategies->add_option("--family", family, "kernel family")->required();
  strategies->add_option("--device", device, device_help);
  strategies->add_option("--size", size, "image size WxH");
  strategies->add_option("--seeds", seeds, "seeds per strategy")->capture_default_str()->check(CLI::Range(1, 100000));
  std::size_t first_seed = 1;
  strategies->add_option("--first-seed", first_seed,
                         "seeds are first-seed .. first-seed+seeds-1 (check options chosen on other seeds)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  strategies->add_option("--strategy", strategy_names, "only these strategies (repeatable; default all)");
  strategies->add_flag("--json", json, "JSON instead of tables: per space and strategy the scores of the tables");
  strategies->add_option("--report", strategies_report_path, "also write a markdown section with convergence plots");
  std::size_t max_evals = 0;
  strategies->add_option("--max-evals", max_evals, "end every replayed run after this many evaluations (0: no limit)")
      ->capture_default_str();
  std::vector<std::string> strategy_options;
  strategies->add_option("--option", strategy_options,
                         "a strategy option for the replay, STRATEGY.OPTION=VALUE (repeatable), e.g. gp.length=0.5");
  std::string meta_strategy;
  std::vector<std::string> meta_grid;
  strategies->add_option("--meta-tune", meta_strategy,
                         "meta-tune this strategy's options: replay every combination of --grid, print the best");
  strategies->add_option("--grid", meta_grid, "values to try for --meta-tune, OPTION=V1,V2,... (repeatable)");
  std::string replay_objective = "writer";
  strategies->add_option("--objective", replay_objective,
                         "what a configuration costs: the time its writer ranked by (an imported file's own time, "
                         "Kernel Tuner's mean; else the median of the runs) or the median of the runs")
      ->capture_default_str()
      ->check(CLI::IsMember({"writer", "median"}));
  bool replay_transfer = false;
  strategies->add_flag("--transfer", replay_transfer,
                       "give the strategies the family's stored results of other devices and problems as priors");

  std::string format = "json", export_out, metadata_out;
  CLI::App* exporter = app.add_subcommand(
      "export", "export the best configurations (json, header), or results in Kernel Tuner's T4 format: one file per "
                "variant, device and problem with its search rows, as Kernel Tuner writes them (t4), or every stored "
                "row in one file, which import restores as stored (t4-all)");
  exporter->add_option("--db", db, "SQLite database")->capture_default_str();
  exporter->add_option("--family", family, "kernel family")->required();
  exporter->add_option("--format", format, "json | header | t4 | t4-all")
      ->capture_default_str()
      ->check(CLI::IsMember({"json", "header", "t4", "t4-all"}));
  exporter->add_option("--device", device, device_help);
  exporter->add_option("--size", size, "image size WxH");
  exporter->add_option("--out", export_out,
                       "file to write (default: standard output); t4: a directory (ending in /, or one that exists) "
                       "for its files, needed when the selection holds more than one");
  exporter->add_option("--metadata", metadata_out, "t4, t4-all: also write the T4 metadata file (hardware and software)");
  exporter->add_flag("--all-builds", all_builds, all_builds_help);

  std::vector<std::string> compare_dbs, compare_devices;
  std::vector<std::int64_t> compare_runs;
  double alpha = 0.05;
  CLI::App* compare = app.add_subcommand(
      "compare", "compare two databases, two runs or two devices per configuration (Mann-Whitney U over the samples)");
  compare->add_option("databases", compare_dbs, "one database (two runs or two devices of it) or two databases")
      ->required()
      ->expected(1, 2);
  compare->add_option("--runs", compare_runs, "two run ids of the database (default: its last two runs)")->expected(2);
  compare->add_option("--devices", compare_devices, "two device selectors of the database")->expected(2);
  compare->add_option("--family", family, "only this family");
  compare->add_option("--size", size, "image size WxH");
  compare->add_option("--alpha", alpha, "significance level of the test")->capture_default_str()->check(CLI::Range(1e-9, 0.5));
  compare->add_flag("--json", json, "JSON instead of markdown");

  double interval = 2;
  bool once = false;
  std::int64_t watch_run = 0;
  CLI::App* watch = app.add_subcommand("watch", "show a run's progress, best so far and failures (reads the database only)");
  watch->add_option("--db", db, "SQLite database")->capture_default_str();
  watch->add_option("--run", watch_run, "run id (default: the latest)");
  watch->add_option("--interval", interval, "seconds between refreshes")->capture_default_str()->check(CLI::Range(0.2, 3600.0));
  watch->add_flag("--once", once, "print one screen and exit");
  watch->add_flag("--json", json, "one JSON object of the run (its counts, best so far, latest failures) and exit");

  std::vector<std::string> import_files;
  ImportOptions import_opt;
  CLI::App* importer = app.add_subcommand(
      "import", "import results measured by other tuners (T4 result files, .json or .json.gz; Kernel Tuner caches)");
  importer->add_option("files", import_files, "files to import")->required();
  importer->add_option("--db", db, "SQLite database")->capture_default_str();
  importer->add_flag("--json", json, "JSON: one object per file");
  importer->add_option("--device", import_opt.device, "device name (default: from the file or its name)");
  importer->add_option("--kernel", import_opt.kernel, "kernel name (default: from the file or its name)");
  std::uint64_t import_max_mib = kImportMaxBytes >> 20;
  importer->add_option("--max-size", import_max_mib, "the most a file may hold or a gzip file expand to (MiB)")
      ->capture_default_str()
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 24));

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
    if (importer->parsed()) {
      // Every file is read and checked before the database is opened: bad input changes nothing.
      std::vector<ImportedFile> files;
      import_opt.max_bytes = import_max_mib << 20;
      for (const auto& path : import_files) files.push_back(read_import(path, import_opt));
      Store store(db);
      std::vector<std::string> json_files;
      for (const auto& f : files) {
        const ImportSummary s = store_import(store, f, this_run(join_args(argc, argv)));
        std::set<std::string> families, devices;
        for (const auto& e : f.entries) {
          families.insert("'" + e.problem.family + "'");
          devices.insert("'" + e.device.name + "'");
        }
        if (json) {
          std::set<std::string> fam, dev;
          for (const auto& e : f.entries) {
            fam.insert(cli::json_quote(e.problem.family));
            dev.insert(cli::json_quote(e.device.name));
          }
          json_files.push_back(fmt::format(
              "{{\"file\":{},\"format\":{},\"families\":[{}],\"devices\":[{}],\"configurations\":{},\"added\":{},"
              "\"already_stored\":{},\"outside_constraints\":{}}}",
              cli::json_quote(f.path), cli::json_quote(f.format), fmt::join(fam, ","), fmt::join(dev, ","),
              f.entries.size(), s.added, s.already_stored, f.constraint_violations));
          continue;
        }
        fmt::print("{}: {}, {} {} on {} {}: {} configurations, {} added, {} already stored{}\n", f.path, f.format,
                   families.size() == 1 ? "family" : "families", fmt::join(families, ", "),
                   devices.size() == 1 ? "device" : "devices", fmt::join(devices, ", "), f.entries.size(), s.added,
                   s.already_stored,
                   f.constraint_violations ? fmt::format(", {} outside the constraints left out", f.constraint_violations)
                                           : "");
      }
      if (json) fmt::print("[\n  {}\n]\n", fmt::join(json_files, ",\n  "));
      return 0;
    }
    if (strategies->parsed() || exporter->parsed()) {
      const std::string cmd = strategies->parsed() ? "strategies" : "export";
      check_family(reg, cmd, family);
      cli::check_size("--size", size);
      const bool t4 = format == "t4" || format == "t4-all";
      if (!metadata_out.empty() && !t4) throw UsageError("--metadata: only with --format t4 or t4-all");
      const bool out_dir = format == "t4" && !export_out.empty() && (export_out.back() == '/' || fs::is_directory(export_out));
      if (!export_out.empty()) check_output_path("--out", out_dir ? (fs::path(export_out) / "x").string() : export_out);
      if (!metadata_out.empty()) check_output_path("--metadata", metadata_out);
      if (!strategies_report_path.empty()) check_output_path("--report", strategies_report_path);
      Store store(db, Store::Mode::read_only);
      if (exporter->parsed()) {
        auto rows = cli::select_rows(store, reg, filters, true, t4, "export", &older);
        if (format == "t4-all") {  // all results: the whole-program (cold) runs too, so that an import loses nothing
          RowFilter in_family;
          in_family.family = family;
          in_family.all_builds = all_builds;
          auto cold = cli::filter_rows(store.stage_rows("cold", in_family, true), reg, filters);
          rows.insert(rows.end(), std::make_move_iterator(cold.begin()), std::make_move_iterator(cold.end()));
        }
        fmt::print(stderr, "{}", cli::older_builds_note(older, all_builds));
        if (format == "t4") {
          const std::vector<T4File> files = export_t4_files(rows);
          if (files.empty()) throw UsageError(fmt::format("export: family '{}' has no search rows here to export", family));
          if (!out_dir && files.size() > 1) {
            std::string which;
            for (const T4File& f : files) which += "\n  " + f.label;
            throw UsageError(fmt::format(
                "export --format t4 writes one file per variant, device and problem, as Kernel Tuner does, and this "
                "selection holds {}: give --out DIRECTORY/, narrow it (--device, --size), or use --format t4-all for one "
                "file of everything{}",
                files.size(), which));
          }
          for (const T4File& f : files) {
            if (!out_dir) {
              if (export_out.empty())
                fmt::print("{}", f.text);
              else
                write_file(export_out, f.text);
              continue;
            }
            fs::create_directories(export_out);
            write_file(fs::path(export_out) / f.name, f.text);
            fmt::print("{}: {} rows ({})\n", (fs::path(export_out) / f.name).string(), f.rows, f.label);
          }
          if (!metadata_out.empty()) write_file(metadata_out, export_t4_metadata(rows, store.runs()));
          return 0;
        }
        const std::string text = format == "t4-all"   ? export_t4(rows)
                                 : format == "header" ? export_header(rows)
                                                      : export_json(rows);
        if (export_out.empty())
          fmt::print("{}", text);
        else
          write_file(export_out, text);
        if (!metadata_out.empty()) write_file(metadata_out, export_t4_metadata(rows, store.runs()));
        return 0;
      }
      // Priors (with --transfer) come from every stored row of the family; the filters choose the spaces replayed.
      RowFilter all;
      all.family = family;
      ReplayOptions replay_opt;
      replay_opt.objective = replay_objective == "median" ? ReplayObjective::median : ReplayObjective::writer;
      replay_opt.transfer = replay_transfer;
      std::vector<ResultRow> rows = store.rows(all);
      store.add_metrics(rows);  // the writer's objective
      std::vector<ReplaySpace> spaces;
      for (auto& s : replay_spaces(rows, replay_opt)) {
        const bool dev_ok = device.empty() || cli::stored_device_matches(reg, s.device, device);
        if (dev_ok && (size.empty() || s.problem.size() == size)) spaces.push_back(std::move(s));
      }
      if (spaces.empty() && (!device.empty() || !size.empty()))
        cli::select_rows(store, reg, filters, false, false, "strategies");  // throws: no rows match, with what exists
      if (!meta_grid.empty() && meta_strategy.empty()) throw UsageError("--grid needs --meta-tune STRATEGY");
      if (!meta_strategy.empty()) {
        const StrategyInfo* info = reg.strategy(meta_strategy);
        if (!info) throw UsageError(fmt::format("--meta-tune {}: unknown strategy", meta_strategy));
        const OptionGrid grid = parse_option_grid(meta_grid, *info);
        for (const auto& s : spaces) fmt::print("{}: by {}; {}\n", s.label(), s.objective, priors_note(prior_groups(s.priors)));
        fmt::print("{}", meta_tune_table(meta_strategy, meta_tune(spaces, reg, meta_strategy, grid, seeds, first_seed)));
        return 0;
      }
      auto result = compare_strategies(spaces, reg, seeds, strategy_names, parse_option_overrides(strategy_options, reg),
                                       max_evals, first_seed);
      fmt::print("{}", json ? strategies_json(result) : strategies_table(result));
      if (!strategies_report_path.empty()) {
        Report r = strategies_report(result, fs::path(strategies_report_path).stem().string());
        fs::path dir = fs::path(strategies_report_path).parent_path();
        if (!dir.empty()) fs::create_directories(dir);
        for (const auto& [name, text] : r.files) write_file(dir / name, text);
        write_file(strategies_report_path, r.markdown);
        if (!json) fmt::print("report: {} ({} plots)\n", strategies_report_path, r.files.size());
      }
      return 0;
    }
    if (compare->parsed()) {
      check_family(reg, "compare", family);
      cli::check_size("--size", size);
      const Comparison c = run_compare(reg, compare_dbs, compare_runs, compare_devices, filters, alpha);
      fmt::print("{}", json ? compare_json(c) : compare_markdown(c));
      return 0;
    }
    if (watch->parsed()) {
      Store store(db, Store::Mode::read_only);
      std::signal(SIGINT, [](int) { g_stop = 1; });
      const bool tty = isatty(STDOUT_FILENO) != 0;
      for (;;) {
        const auto runs = store.runs();
        if (runs.empty()) throw UsageError(fmt::format("watch: {} holds no run yet", db));
        auto run = runs.back();
        if (watch_run) {
          auto it = std::find_if(runs.begin(), runs.end(), [&](const RunRecord& r) { return r.id == watch_run; });
          if (it == runs.end()) throw UsageError(fmt::format("watch: --run {}: no such run in {}", watch_run, db));
          run = *it;
        }
        if (json) {  // one object, no refresh
          fmt::print("{}", watch_json(run, store.run_rows(run.id)));
          return 0;
        }
        const std::string screen = watch_screen(run, store.run_rows(run.id), utc_now_text());
        fmt::print("{}{}", tty && !once ? "\033[H\033[2J" : "", screen);
        std::fflush(stdout);
        if (once) return 0;
        for (double waited = 0; waited < interval && !g_stop; waited += 0.1)
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (g_stop) return 0;
      }
    }
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
