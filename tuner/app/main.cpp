// pimg-tune: tune a kernel family over a space file, rank and report what the store holds.
// Exit codes: 0 success, 1 internal failure, 2 bad input (space file, flags, image, database).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>

#include "cli/progress.hpp"
#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "pimg/replay.hpp"
#include "pimg/report.hpp"
#include "pimg/runner.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"
#include "pimg/transport.hpp"

namespace fs = std::filesystem;
using namespace pimg;

namespace {

constexpr const char* kDefaultDb = "pimg-tune.db";

std::string join_args(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

// Writes the report and its plots beside it; returns the plot count.
std::size_t write_report(Store& store, const std::string& family, const std::string& out_path, int top) {
  RowFilter f;
  if (!family.empty()) f.family = family;
  ReportOptions opt;
  opt.family = family;
  opt.top = top;
  opt.plot_prefix = fs::path(out_path).stem().string();
  Report r = make_report(store.rows(f), store.bandwidths(), opt);
  fs::path dir = fs::path(out_path).parent_path();
  if (!dir.empty()) fs::create_directories(dir);
  auto write = [](const fs::path& p, const std::string& text) {
    std::ofstream o(p);
    o << text;
    if (!o) throw UsageError(fmt::format("{}: cannot write", p.string()));
  };
  write(out_path, r.markdown);
  for (const auto& [name, text] : r.files) write(dir / name, text);
  return r.files.size();
}

void print_devices(const Registry& reg) {
  for (const Backend* b : reg.backends()) {
    BackendStatus st = b->status();
    if (!st.available) {
      fmt::print("{}: unavailable: {}\n", b->name(), st.reason);
      continue;
    }
    for (const auto& d : b->devices())
      fmt::print("{}  {}  [{}] driver {}  {} compute units  {:.1f} GiB  max work-group {}\n", d.id(), d.name,
                 d.platform, d.driver, d.compute_units, static_cast<double>(d.global_mem_bytes) / (1u << 30),
                 d.max_work_group_size);
  }
}

// The strategies and their typed options, as `list` and each tuning command's --help show them.
std::string strategies_help(const Registry& reg) {
  std::string out = "strategies:\n";
  for (const StrategyInfo* s : reg.strategies()) {
    out += fmt::format("  {:<12} {}\n", s->name, s->help);
    for (const auto& o : s->options) {
      const char* type = o.type == OptionDecl::Type::Int ? "integer" : o.type == OptionDecl::Type::Real ? "number" : "text";
      std::string range;
      if (o.min || o.max)
        range = fmt::format(" [{}..{}]", o.min ? fmt::format("{:g}", *o.min) : "", o.max ? fmt::format("{:g}", *o.max) : "");
      out += fmt::format("    {:<10} {:<7} default {:<6} {}{}\n", o.name, type, o.default_value, o.help, range);
    }
  }
  return out;
}

void print_list(const Registry& reg) {
  for (const Family* f : reg.families()) {
    fmt::print("family {} (unit {})\n  problem attributes:\n", f->name(), f->unit());
    for (const auto& a : f->attributes()) {
      std::string allowed;
      for (const auto& v : a.allowed) allowed += (allowed.empty() ? "" : "|") + v;
      fmt::print("    {:<10} {:<34} default {:<10} {}\n", a.name, allowed.empty() ? "-" : allowed,
                 a.default_value.empty() ? "-" : a.default_value, a.help);
    }
    fmt::print("  variants:\n");
    for (const Variant* v : reg.variants(f->name())) {
      fmt::print("    {:<26} {:<7} {:<28} {}\n", v->name(), v->backend(), v->source(), v->help());
      for (const auto& p : v->parameters()) {
        std::string choices;
        for (const auto& c : p.choices) choices += (choices.empty() ? "" : "|") + c;
        fmt::print("      {:<12} {:<26} default {:<8} {}\n", p.name, p.is_text ? choices : "integer",
                   to_string(p.default_value), p.help);
      }
    }
  }
  fmt::print("{}", strategies_help(reg));
}

}  // namespace

int main(int argc, char** argv) {
  const Registry& reg = Registry::builtin();
  // Hidden: the worker process the tuner starts for its evaluations (docs/reliability.md).
  if (argc == 2 && std::string(argv[1]) == "worker") return worker_main(reg);
  CLI::App app{"pimg-tune: auto-tuning experiment harness for image kernels"};
  app.require_subcommand(1);

  // One tuning subcommand per registered family, all of the same shape.
  struct TuneArgs {
    std::string space, db = kDefaultDb, report;
    std::vector<std::string> backends, devices;
    std::optional<int> repeats;
    bool no_resume = false, quiet = false, no_isolation = false, share_devices = false;
    int top = 5;
  } tune_args;
  std::vector<std::pair<CLI::App*, std::string>> family_cmds;
  for (const Family* f : reg.families()) {
    CLI::App* cmd = app.add_subcommand(f->name(), fmt::format("tune the {} family over a space file", f->name()));
    cmd->add_option("--space", tune_args.space, "space file (YAML), e.g. spaces/conv.yaml")->required();
    cmd->add_option("--db", tune_args.db, "SQLite database (created if missing)")->capture_default_str();
    cmd->add_option("--backend", tune_args.backends, "only these backends (repeatable)");
    cmd->add_option("--device", tune_args.devices, "only devices whose index or name matches (repeatable)");
    cmd->add_option("--repeats", tune_args.repeats, "timed runs per configuration (overrides the space file)")
        ->check(CLI::Range(1, 100000));
    cmd->add_flag("--no-resume", tune_args.no_resume, "measure again configurations already in the database");
    cmd->add_flag("--no-isolation", tune_args.no_isolation,
                  "evaluate in this process instead of a supervised worker (a hung or crashing kernel stops the run)");
    cmd->add_option("--report", tune_args.report, "also write the markdown report (plots beside it)");
    cmd->add_option("--top", tune_args.top, "rows per group in the ranked table")->capture_default_str();
    cmd->add_flag("--quiet", tune_args.quiet, "no progress output");
    cmd->add_flag("--share-devices", tune_args.share_devices,
                  "under mpirun: ranks beyond a host's devices of a kind share them (time-shared timings; for checks)");
    cmd->footer("The space file's strategy: {name, seed, options} takes one of these:\n" + strategies_help(reg));
    family_cmds.emplace_back(cmd, f->name());
  }

  std::string db = kDefaultDb, family, device, size, out = "report/pimg-report.md";
  int top = 1;
  bool json = false;
  CLI::App* best = app.add_subcommand("best", "print the best configurations per backend, device and size");
  best->add_option("family", family, "kernel family")->required();
  best->add_option("--db", db, "SQLite database")->capture_default_str();
  best->add_option("--device", device, "device name substring");
  best->add_option("--size", size, "image size WxH");
  best->add_option("--top", top, "configurations per group")->capture_default_str()->check(CLI::Range(1, 1000000));
  best->add_flag("--json", json, "JSON instead of a table");

  CLI::App* report = app.add_subcommand("report", "write the markdown report with plots from the database");
  report->add_option("--db", db, "SQLite database")->capture_default_str();
  report->add_option("--family", family, "only this family");
  report->add_option("--out", out, "markdown file; plots are written beside it")->capture_default_str();
  report->add_option("--top", top, "rows of each top-N table")->default_val(10)->check(CLI::Range(1, 100000));

  std::size_t seeds = 50;
  std::vector<std::string> strategy_names;
  std::string strategies_report_path;
  CLI::App* strategies = app.add_subcommand(
      "strategies", "replay every strategy on stored results (no device): evaluations to reach the optimum");
  strategies->add_option("--db", db, "SQLite database")->capture_default_str();
  strategies->add_option("--family", family, "kernel family")->required();
  strategies->add_option("--device", device, "device name substring");
  strategies->add_option("--size", size, "image size WxH");
  strategies->add_option("--seeds", seeds, "seeds per strategy")->capture_default_str()->check(CLI::Range(1, 100000));
  strategies->add_option("--strategy", strategy_names, "only these strategies (repeatable; default all)");
  strategies->add_option("--report", strategies_report_path, "also write a markdown section with convergence plots");
  std::size_t max_evals = 0;
  strategies->add_option("--max-evals", max_evals, "end every replayed run after this many evaluations (0: no limit)")
      ->capture_default_str();
  std::vector<std::string> strategy_options;
  strategies->add_option("--option", strategy_options,
                         "a strategy option for the replay, STRATEGY.OPTION=VALUE (repeatable), e.g. gp.length=0.5");

  std::string format = "json", export_out;
  CLI::App* exporter = app.add_subcommand("export", "export the best configurations (json, header) or all results (t4)");
  exporter->add_option("--db", db, "SQLite database")->capture_default_str();
  exporter->add_option("--family", family, "kernel family")->required();
  exporter->add_option("--format", format, "json | header | t4")
      ->capture_default_str()
      ->check(CLI::IsMember({"json", "header", "t4"}));
  exporter->add_option("--device", device, "device name substring");
  exporter->add_option("--size", size, "image size WxH");
  exporter->add_option("--out", export_out, "file to write (default: standard output)");

  std::vector<std::string> import_files;
  ImportOptions import_opt;
  CLI::App* importer = app.add_subcommand(
      "import", "import results measured by other tuners (T4 result files, .json or .json.gz; Kernel Tuner caches)");
  importer->add_option("files", import_files, "files to import")->required();
  importer->add_option("--db", db, "SQLite database")->capture_default_str();
  importer->add_option("--device", import_opt.device, "device name (default: from the file or its name)");
  importer->add_option("--kernel", import_opt.kernel, "kernel name (default: from the file or its name)");

  app.add_subcommand("devices", "list backends and devices (and why a backend is unavailable)");
  app.add_subcommand("list", "list families, variants with their parameters, and strategies");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "pimg-tune: {}\n", e.what());
    return 2;
  }

  try {
    for (auto& [cmd, fam] : family_cmds) {
      if (!cmd->parsed()) continue;
      Space space = load_space(tune_args.space, reg);
      if (space.family != fam)
        throw UsageError(fmt::format("{}: the space is for family '{}', not '{}'", tune_args.space, space.family, fam));
      TuneOptions opt;
      opt.backends = tune_args.backends;
      opt.devices = tune_args.devices;
      opt.repeats = tune_args.repeats;
      opt.resume = !tune_args.no_resume;
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
      fmt::print("{}", best_table(store.rows(f), store.bandwidths(), tune_args.top));
      if (!tune_args.report.empty()) {
        std::size_t plots = write_report(store, fam, tune_args.report, 10);
        fmt::print("report: {} ({} plots)\n", tune_args.report, plots);
      }
      fmt::print("database: {} (run {}: {} measured, {} ok, {} failed, {} already stored)\n", tune_args.db, s.run_id,
                 s.measured, s.ok, s.failed, s.skipped);
      if (!s.per_rank.empty()) fmt::print("evaluations per rank: {}\n", fmt::join(s.per_rank, ", "));
      return 0;
    }
    if (best->parsed()) {
      if (!reg.family(family)) throw UsageError(fmt::format("best: unknown family '{}'", family));
      Store store(db, Store::Mode::existing);
      RowFilter f;
      f.family = family;
      if (!device.empty()) f.device = device;
      if (!size.empty()) f.size = size;
      auto rows = store.rows(f);
      fmt::print("{}", json ? best_json(rows, store.bandwidths(), top) : best_table(rows, store.bandwidths(), top));
      return 0;
    }
    if (report->parsed()) {
      if (!family.empty() && !reg.family(family)) throw UsageError(fmt::format("report: unknown family '{}'", family));
      Store store(db, Store::Mode::existing);
      std::size_t plots = write_report(store, family, out, top);
      fmt::print("report: {} ({} plots)\n", out, plots);
      return 0;
    }
    if (importer->parsed()) {
      // Every file is read and checked before the database is opened: bad input changes nothing.
      std::vector<ImportedFile> files;
      for (const auto& path : import_files) files.push_back(read_import(path, import_opt));
      Store store(db);
      for (const auto& f : files) {
        const ImportSummary s = store_import(store, f, this_run(join_args(argc, argv)));
        fmt::print("{}: {}, family '{}' on device '{}': {} configurations, {} added, {} already stored{}\n", f.path,
                   f.format, f.problem.family, f.device.name, f.entries.size(), s.added, s.already_stored,
                   f.constraint_violations ? fmt::format(", {} outside the constraints left out", f.constraint_violations)
                                           : "");
      }
      return 0;
    }
    if (strategies->parsed() || exporter->parsed()) {
      const std::string cmd = strategies->parsed() ? "strategies" : "export";
      if (!reg.family(family) && !(strategies->parsed() && is_imported_family(family))) throw UsageError(fmt::format("{}: unknown family '{}'", cmd, family));
      Store store(db, Store::Mode::existing);
      RowFilter f;
      f.family = family;
      if (!device.empty()) f.device = device;
      if (!size.empty()) f.size = size;
      if (exporter->parsed()) {
        const std::string text = format == "t4"       ? export_t4(store.rows_with_samples(f))
                                 : format == "header" ? export_header(store.rows(f))
                                                      : export_json(store.rows(f));
        if (export_out.empty()) {
          fmt::print("{}", text);
        } else {
          std::ofstream o(export_out);
          o << text;
          if (!o) throw UsageError(fmt::format("--out {}: cannot write", export_out));
        }
        return 0;
      }
      // Priors come from every stored row of the family; the filters choose the spaces replayed.
      RowFilter all;
      all.family = family;
      std::vector<ReplaySpace> spaces;
      for (auto& s : replay_spaces(store.rows(all))) {
        const bool dev_ok = device.empty() || s.device.name.find(device) != std::string::npos ||
                            s.device.backend + ":" + s.device.name == device;
        if (dev_ok && (size.empty() || s.problem.size() == size)) spaces.push_back(std::move(s));
      }
      auto result = compare_strategies(spaces, reg, seeds, strategy_names, parse_option_overrides(strategy_options, reg), max_evals);
      fmt::print("{}", strategies_table(result));
      if (!strategies_report_path.empty()) {
        Report r = strategies_report(result, fs::path(strategies_report_path).stem().string());
        fs::path dir = fs::path(strategies_report_path).parent_path();
        if (!dir.empty()) fs::create_directories(dir);
        for (const auto& [name, text] : r.files) std::ofstream(dir / name) << text;
        std::ofstream o(strategies_report_path);
        o << r.markdown;
        if (!o) throw UsageError(fmt::format("--report {}: cannot write", strategies_report_path));
        fmt::print("report: {} ({} plots)\n", strategies_report_path, r.files.size());
      }
      return 0;
    }
    if (app.got_subcommand("devices")) {
      print_devices(reg);
      return 0;
    }
    if (app.got_subcommand("list")) {
      print_list(reg);
      return 0;
    }
  } catch (const UsageError& e) {
    fmt::print(stderr, "pimg-tune: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pimg-tune: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
