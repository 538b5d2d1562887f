// `pimg-tune watch`: the store's runs, watch_screen() or watch_json() of one, every --interval seconds.
#include "cli/watch_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <thread>

#include "pimg/errors.hpp"
#include "pimg/report.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {
namespace {

std::string utc_now_text() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

volatile std::sig_atomic_t g_stop = 0;

}  // namespace

WatchCommand::WatchCommand(CLI::App& app, const std::string& default_db) : db_(default_db) {
  cmd_ = app.add_subcommand("watch", "show a run's progress, best so far and failures (reads the database only)");
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_option("--run", run_, "run id (default: the latest)");
  cmd_->add_option("--interval", interval_, "seconds between refreshes")->capture_default_str()->check(CLI::Range(0.2, 3600.0));
  cmd_->add_flag("--once", once_, "print one screen and exit");
  cmd_->add_flag("--json", json_, "one JSON object of the run (its counts, best so far, latest failures) and exit");
}

int WatchCommand::run() const {
  Store store(db_, Store::Mode::read_only);
  std::signal(SIGINT, [](int) { g_stop = 1; });
  const bool tty = isatty(STDOUT_FILENO) != 0;
  for (;;) {
    const auto runs = store.runs();
    if (runs.empty()) throw UsageError(fmt::format("watch: {} holds no run yet", db_));
    auto run = runs.back();
    if (run_) {
      auto it = std::find_if(runs.begin(), runs.end(), [&](const RunRecord& r) { return r.id == run_; });
      if (it == runs.end()) throw UsageError(fmt::format("watch: --run {}: no such run in {}", run_, db_));
      run = *it;
    }
    if (json_) {  // one object, no refresh
      fmt::print("{}", watch_json(run, store.run_rows(run.id)));
      return 0;
    }
    const std::string screen = watch_screen(run, store.run_rows(run.id), utc_now_text());
    fmt::print("{}{}", tty && !once_ ? "\033[H\033[2J" : "", screen);
    std::fflush(stdout);
    if (once_) return 0;
    for (double waited = 0; waited < interval_ && !g_stop; waited += 0.1)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (g_stop) return 0;
  }
}

}  // namespace pimg::cli
