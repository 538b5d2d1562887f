// pimg-tune: tune a kernel family over a space file, rank and report what the store holds.
// Exit codes: 0 success, 1 internal failure, 2 bad input (space file, flags, image, database),
// 3 environment (a fault of the machine: stored results intact, the message says how to resume).
// Each subcommand is a class of its own (cli/*_command.hpp); this file wires them to the registry, parses the
// command line and maps what a command throws to the exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <signal.h>

#include <algorithm>
#include <csignal>
#include <map>
#include <memory>
#include <optional>

#include "cli/best_command.hpp"
#include "cli/compare_command.hpp"
#include "cli/cover_command.hpp"
#include "cli/docs.hpp"
#include "cli/export_command.hpp"
#include "cli/import_command.hpp"
#include "cli/info.hpp"
#include "cli/info_commands.hpp"
#include "cli/report_command.hpp"
#include "cli/resume.hpp"
#include "cli/strategies_command.hpp"
#include "cli/t1_command.hpp"
#include "cli/tune_command.hpp"
#include "cli/watch_command.hpp"
#include "pimg/cold_run.hpp"
#include "pimg/errors.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "pimg/suggest.hpp"
#include "user/t1.hpp"

using namespace pimg;

namespace {

constexpr const char* kDefaultDb = "pimg-tune.db";

const std::string kDeviceHelp = "device: index, backend, backend:index, backend:name or name substring";
const std::string kAllBuildsHelp = "also rank rows stored by older builds of pimg-tune (marked [older build])";

// Every subcommand, registered on the app in the order the help, the man page and the completions list them.
struct Commands {
  Commands(CLI::App& app, const Registry& reg)
      : tune(app, reg, kDefaultDb),
        best(app, kDefaultDb, kDeviceHelp, kAllBuildsHelp),
        report(app, kDefaultDb, kAllBuildsHelp),
        strategies(app, kDefaultDb, kDeviceHelp),
        exporter(app, kDefaultDb, kDeviceHelp, kAllBuildsHelp),
        compare(app),
        watch(app, kDefaultDb),
        importer(app, kDefaultDb),
        t1(app),
        cover(app),
        info(app) {}
  cli::TuneCommand tune;  // one tuning subcommand per registered family, all of the same shape
  cli::BestCommand best;
  cli::ReportCommand report;
  cli::StrategiesCommand strategies;
  cli::ExportCommand exporter;
  cli::CompareCommand compare;
  cli::WatchCommand watch;
  cli::ImportCommand importer;
  cli::T1Command t1;
  cli::CoverCommand cover;
  cli::InfoCommands info;  // devices, list, completion, man
};

// The example under each command's description in its help.
void set_examples(cli::ExampleFormatter& help, const cli::TuneCommand& tune) {
  for (const std::string& fam : tune.families())
    help.set_example(fam, fmt::format("pimg-tune {0} --space spaces/{0}.yaml --db out/pimg-tune.db --report "
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
    help.set_example(command, example);
}

// A bare command or an unknown one: says so, with the usage, before CLI11's terse message; true when it did.
bool refuse_missing_command(const CLI::App& app, int argc, char** argv) {
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
    return true;
  }
  return false;
}

// Parses the command line; the exit code where that ends the program (help, version, a parse error).
std::optional<int> parse(CLI::App& app, int argc, char** argv) {
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
  return std::nullopt;
}

// Runs the parsed command; returns its exit code. What it throws is main's to tell.
int run_command(Commands& c, Registry& reg, const CLI::App& app, int argc, char** argv) {
  if (c.t1.parsed() && !c.t1.checking()) cli::say_how_to_resume_when_interrupted(argc, argv);
  if (c.t1.parsed()) {
    std::vector<ResultRow> ranked;
    const std::optional<TuneSummary> s = c.t1.run(reg, cli::join_args(argc, argv), ranked);
    if (!s) return 0;
    const int code = cli::run_outcome(*s, ranked);
    if (c.t1.json()) fmt::print("{}", cli::run_json(c.t1.db(), *s, code, c.t1.decisions_json()));
    return code;
  }
  if (c.tune.parsed()) return c.tune.run(reg, argc, argv);
  if (c.best.parsed()) return c.best.run(reg);
  if (c.report.parsed()) return c.report.run(reg);
  if (c.importer.parsed()) return c.importer.run(cli::join_args(argc, argv));
  if (c.exporter.parsed()) return c.exporter.run(reg);
  if (c.strategies.parsed()) return c.strategies.run(reg);
  if (c.compare.parsed()) return c.compare.run(reg);
  if (c.watch.parsed()) return c.watch.run();
  if (c.cover.parsed()) return c.cover.run(cli::join_args(argc, argv));
  if (c.info.parsed()) return c.info.run(reg, app);
  return 0;
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
  // Hidden: a compile worker of the compile pipeline (DeviceCaps::serial_compiler, docs/design.md).
  if (argc == 2 && std::string(argv[1]) == "compile-worker") return compile_worker_main(reg);
  // Hidden: the fresh process of the whole-program stage (pimg/cold_run.hpp, docs/observers.md).
  if (argc == 2 && std::string(argv[1]) == "cold") return cold_main(reg);
  CLI::App app{"pimg-tune: auto-tuning experiment harness for image kernels"};
  const auto help = std::make_shared<cli::ExampleFormatter>();
  app.formatter(help);
  app.name("pimg-tune");
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("pimg-tune ") + PIMG_VERSION);
  Commands commands(app, reg);
  set_examples(*help, commands.tune);
  if (refuse_missing_command(app, argc, argv)) return 2;
  if (const std::optional<int> code = parse(app, argc, argv)) return *code;

  try {
    return run_command(commands, *owned, app, argc, argv);
  } catch (const UsageError& e) {
    fmt::print(stderr, "pimg-tune: {}\n", e.what());
    return 2;
  } catch (const EnvironmentError& e) {
    const bool tuning = commands.t1.parsed() || commands.tune.parsed();
    fmt::print(stderr, "pimg-tune: environment: {}{}\n", e.what(),
               tuning ? fmt::format("; every result stored so far is kept; resume with: {}",
                                    cli::resume_command(argc, argv))
                      : std::string());
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pimg-tune: error: {}\n", e.what());
    return 1;
  }
}
