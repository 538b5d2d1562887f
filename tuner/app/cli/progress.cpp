// Progress bar and plain progress lines for `pimg-tune <family>`.
#include "progress.hpp"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace pimg::cli {

std::string format_duration(double s) {
  if (s < 60) return fmt::format("{:.0f}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  return fmt::format("{}h{:02}m", static_cast<int>(s / 3600), static_cast<int>(s / 60) % 60);
}

Progress::Progress(std::FILE* out, bool quiet) : out_(out), tty_(isatty(fileno(out)) != 0), quiet_(quiet) {}

void Progress::on_start(std::size_t planned) {
  planned_ = planned;
  start_ = last_draw_ = std::chrono::steady_clock::now();
  if (!quiet_) fmt::print(out_, "tuning {} configurations\n", planned);
}

void Progress::on_message(const std::string& line) {
  if (quiet_) return;
  if (tty_) fmt::print(out_, "\r\033[K");
  fmt::print(out_, "{}\n", line);
  if (tty_ && planned_) draw(true);
}

void Progress::on_result(const RunEvent& e) {
  ++done_;
  if (e.skipped) ++skipped_;
  std::string where = fmt::format("{} {} {}", e.device->id(), e.problem->size(), e.variant->name());
  // Best so far within the current device and problem: times of different problems do not compare.
  std::string group = e.device->id() + " " + e.problem->canonical();
  if (group != current_) {
    current_ = group;
    best_ms_ = 0;
  }
  if (e.result->status == Status::ok) {
    double ms = e.result->kernel.median;
    if (best_ms_ == 0 || ms < best_ms_) {
      best_ms_ = ms;
      best_label_ = fmt::format("{} {}", where, e.config->brief());
    }
  } else if (!e.skipped) {
    ++failed_;
    std::string log = e.result->log.substr(0, e.result->log.find('\n'));
    if (log.size() > 120) log = log.substr(0, 117) + "...";
    on_message(fmt::format("  {}: {} {}: {}", to_string(e.result->status), where, e.config->brief(), log));
  }
  draw(false);
}

void Progress::draw(bool force) {
  if (quiet_ || planned_ == 0) return;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  std::size_t measured = done_ - skipped_;
  double per = measured ? elapsed / static_cast<double>(measured) : 0;
  double eta = per * static_cast<double>(planned_ > done_ ? planned_ - done_ : 0);
  double pct = 100.0 * static_cast<double>(done_) / static_cast<double>(planned_);
  std::string best = best_ms_ > 0 ? fmt::format("best {:.4g} ms ({})", best_ms_, best_label_) : "best -";
  if (tty_) {
    if (!force && done_ != planned_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    winsize ws{};
    int width = ioctl(fileno(out_), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 100;
    constexpr int kBar = 24;
    int filled = static_cast<int>(kBar * done_ / planned_);
    std::string line = fmt::format("[{}{}] {}/{} {:.0f}% {} ETA {} {}", std::string(filled, '#'),
                                   std::string(kBar - filled, '.'), done_, planned_, pct, format_duration(elapsed),
                                   format_duration(eta), best);
    if (static_cast<int>(line.size()) > width - 1) line = line.substr(0, width - 1);
    fmt::print(out_, "\r\033[K{}", line);
    std::fflush(out_);
  } else {
    // Plain lines: about every 5% and at the end.
    std::size_t step = std::max<std::size_t>(1, planned_ / 20);
    if (!force && done_ != planned_ && done_ - last_plain_ < step) return;
    last_plain_ = done_;
    fmt::print(out_, "[{}/{}] {:.0f}% elapsed {} ETA {} {}\n", done_, planned_, pct, format_duration(elapsed),
               format_duration(eta), best);
    std::fflush(out_);
  }
}

void Progress::on_finish() {
  if (quiet_) return;
  if (tty_) fmt::print(out_, "\n");
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  fmt::print(out_, "done: {} evaluated ({} failed), {} already stored, in {}\n", done_ - skipped_, failed_, skipped_,
             format_duration(elapsed));
}

}  // namespace pimg::cli
