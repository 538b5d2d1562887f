// The command line of a tuning run, how to resume it, and the signal handler that says so (resume.hpp).
#include "cli/resume.hpp"

#include <fmt/format.h>

#include <signal.h>
#include <unistd.h>

#include <csignal>

namespace pimg::cli {
namespace {

std::string g_interrupt_note;

extern "C" void interrupted(int sig) {
  const ssize_t written = ::write(STDERR_FILENO, g_interrupt_note.data(), g_interrupt_note.size());
  (void)written;
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

std::string join_args(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) out += (i ? " " : "") + std::string(argv[i]);
  return out;
}

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

void say_how_to_resume_when_interrupted(int argc, char** argv) {
  g_interrupt_note = fmt::format("\npimg-tune: interrupted; every result stored so far is kept; resume with: {}\n",
                                 resume_command(argc, argv));
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, interrupted);
}

}  // namespace pimg::cli
