// Evaluation sessions in a supervised worker process (fork + exec of `pimg-tune worker`, whose side is in
// in_process.cpp beside the in-process session) that speaks length-prefixed messages over pipes. The supervisor
// times each run against measure.timeout_s, kills a worker that overruns it (`timeout`) and reports one that
// dies (`crash`, with how it ended and the tail of what it printed); the next evaluation starts a fresh worker.
// Faults of the machine are told apart: a worker killed by a signal a kernel does not raise itself, or stopped,
// ends as `env_error`; a measurement during which the tuner was stopped (Ctrl-Z) is taken again; a worker that
// cannot start is retried, then an EnvironmentError.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <thread>

#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "workers/spawn.hpp"
#include "workers/wire.hpp"
#include "measure/stopwatch.hpp"


namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;
using namespace wire;
constexpr std::size_t kTailBytes = 4096;     // of the worker's stderr kept for a crash log
constexpr int kStartAttempts = 3;            // tries to start a worker that opens its device
constexpr int kStoppedAttempts = 3;          // measurements of one configuration interrupted by a stop

// Counts SIGCONT received by the tuner: a stop (Ctrl-Z, SIGSTOP) and its end. Time spent stopped
// is neither the kernel's run time nor a timeout.
std::atomic<unsigned> g_continued{0};
extern "C" void on_continue(int) { g_continued.fetch_add(1, std::memory_order_relaxed); }

void count_continues() {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_handler = on_continue;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGCONT, &sa, nullptr) == 0;
  }();
  (void)installed;
}

// Signals a kernel raises itself (a fault, an abort, a trap); any other signal that ends a worker
// came from outside the configuration (the OOM killer, another process, a file size limit).
bool kernel_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT || sig == SIGTRAP ||
         sig == SIGSYS;
}

// True when the process is stopped (state T or t in /proc/PID/stat).
bool is_stopped(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && (text[paren + 2] == 'T' || text[paren + 2] == 't');
}


// --- the supervisor -----------------------------------------------------------------------------

std::string describe_exit(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  return fmt::format("ended with wait status {}", status);
}

class Worker final : public DeviceSession {
 public:
  Worker(std::string exe, const Family& family, const Backend& backend, const DeviceInfo& info,
         const MeasureSpec& measure)
      : exe_(std::move(exe)), family_(family), backend_(backend), info_(info), measure_(measure) {
    // A worker that dies between two writes must not take the tuner with it.
    ::signal(SIGPIPE, SIG_IGN);
    count_continues();
    start();
  }
  ~Worker() override { stop(); }

  EvalResult evaluate(const EvalJob& job) override {
    for (int attempt = 1;; ++attempt) {
      const unsigned continued = g_continued.load();
      EvalResult r = evaluate_once(job, {"eval"});
      if (g_continued.load() == continued) return r;
      // The tuner was stopped while this configuration ran: its times include the stop.
      if (attempt == kStoppedAttempts) {
        r.status = Status::env_error;
        r.log = fmt::format("the tuner was stopped (SIGTSTP or SIGSTOP) during each of {} attempts; last: {}", attempt,
                            r.log);
        r.kernel_ms.clear();
        r.wall_ms.clear();
        return r;
      }
    }
  }

  EvalResult capture(const EvalJob& job, const std::string& sub, const std::string& key) override {
    return evaluate_once(job, {"capture", sub, key});
  }

  // `head`: {"eval"}, or {"capture", cache sub, cache key} (a warm-up and one run); the variant, configuration, race
  // bar and context follow.
  EvalResult evaluate_once(const EvalJob& job, const Message& head) {
    const auto t0 = Clock::now();
    if (pid_ < 0) start();
    tail_.clear();
    // Only what changed: the measurement settings and the problem are sent when they differ from the last
    // evaluation's on this worker ("same" otherwise); the variant and configuration always.
    Message context = encode_measure(measure_);
    for (auto& f : encode_problem(job.problem)) context.push_back(std::move(f));
    Message req = head;
    req.push_back(job.variant.name());
    req.push_back(job.config.canonical());
    req.push_back(num(job.race_bar_ms));
    if (context == sent_context_) {
      req.push_back("same");
    } else {
      req.push_back("new");
      req.insert(req.end(), context.begin(), context.end());
      sent_context_ = std::move(context);
    }
    // Fill, download and validation too; after the last run, the back-to-back window (measure.energy_s) too.
    const double run_limit_s = measure_.timeout_s * 1.1 + 0.5 + measure_.energy_s;
    int run = -1;
    Reply reply = send_and_wait(req, kWorkerSetupTimeoutS);
    for (;;) {
      if (reply.kind == Reply::message && reply.msg[0] == "run") {
        run = static_cast<int>(to_long(reply.msg.at(1)));
        reply = wait(run_limit_s);
        continue;
      }
      EvalResult r;
      if (reply.kind == Reply::message && reply.msg[0] == "result") {
        return decode_result(reply.msg);
      }
      if (reply.kind == Reply::message && reply.msg[0] == "error") {  // what evaluate() would have thrown here
        sent_context_.clear();
        throw std::runtime_error(fmt::format("worker for {}: {}", info_.id(), reply.msg.size() > 1 ? reply.msg[1] : ""));
      }
      const std::string phase =
          run < 0 ? "before the first run (reference, compile, upload)"
                  : fmt::format("in run {} of {}", run + 1, head[0] == "capture" ? 2 : measure_.warmups + measure_.repeats);
      if (reply.kind == Reply::timed_out) {
        const bool stopped = is_stopped(pid_);
        kill_now();
        r.status = stopped ? Status::env_error : Status::timeout;
        r.log = stopped    ? fmt::format("the worker was stopped {} by a signal the tuner did not send (SIGSTOP); it was "
                                         "killed", phase)
                : run < 0 ? fmt::format("no answer within {:.0f} s {}; the worker was killed", kWorkerSetupTimeoutS, phase)
                          : fmt::format("run {} did not return within the {:.1f} s timeout; the worker was killed",
                                        run + 1, measure_.timeout_s);
      } else {
        const bool outside = WIFSIGNALED(last_status_) && !kernel_signal(WTERMSIG(last_status_));
        r.status = outside ? Status::env_error : Status::crash;
        r.log = fmt::format("worker {} {}{}", reply.how, phase,
                            outside ? ", a signal the tuner did not send and a kernel does not raise (the OOM killer, "
                                      "another process, a file size limit)"
                                    : "");
      }
      if (!tail_.empty()) r.log += "; it printed:\n" + tail_;
      r.eval_ms = ms_since(t0);
      return r;
    }
  }

  std::vector<EvalResult> confirm(const ConfirmJob& job) override {
    if (pid_ < 0) start();
    tail_.clear();
    Message req = {"confirm"};
    for (auto& f : encode_measure(measure_)) req.push_back(std::move(f));
    for (auto& f : encode_problem(job.problem)) req.push_back(std::move(f));
    req.push_back(std::to_string(job.seed));
    req.push_back(std::to_string(job.candidates.size()));
    for (const ConfirmCandidate& c : job.candidates) {
      req.push_back(c.variant->name());
      req.push_back(c.config.canonical());
    }
    // Every candidate is prepared, then the rounds run for at most max_time_s, each run under the timeout.
    const double limit_s = kWorkerSetupTimeoutS + measure_.confirm.max_time_s + 4 * measure_.timeout_s;
    std::vector<EvalResult> out;
    Reply reply = send_and_wait(req, limit_s);
    while (reply.kind == Reply::message && reply.msg[0] == "result") {
      out.push_back(decode_result(reply.msg));
      if (out.size() == job.candidates.size()) return out;
      reply = wait(limit_s);
    }
    // A worker that died or hung here loses the stage's measurements, not the search's: nothing stored.
    if (reply.kind == Reply::timed_out) kill_now();
    return {};
  }

  std::optional<Ceiling> ceiling(std::size_t bytes, int repeats, CeilingKind kind) override {
    if (pid_ < 0) start();
    Reply reply = send_and_wait({"bandwidth", std::to_string(bytes), std::to_string(repeats),
                                 measure_.timing.cold ? "1" : "0", measure_.timing.hide_launch ? "1" : "0",
                                 ceiling_kind_name(kind)},
                                kWorkerSetupTimeoutS);
    if (reply.kind != Reply::message) {
      if (reply.kind == Reply::timed_out) kill_now();
      return std::nullopt;
    }
    if (reply.msg.size() < 4 || reply.msg[1].empty()) return std::nullopt;
    return Ceiling{to_double(reply.msg[1]), reply.msg[2], reply.msg[3], kind};
  }

 private:
  struct Reply {
    enum Kind { message, died, timed_out } kind = died;
    Message msg;
    std::string how;  // for died
  };

  // Starts a worker that opens the device, tried kStartAttempts times with growing pauses; a worker
  // that never gets its device open is a fault of the machine (EnvironmentError).
  void start() {
    for (int attempt = 1;; ++attempt) {
      try {
        start_once();
        return;
      } catch (const std::runtime_error& e) {
        if (attempt >= kStartAttempts)
          throw EnvironmentError(fmt::format("{} (device {}, {} attempts)", e.what(), info_.id(), attempt));
        std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
      }
    }
  }

  void start_once() {
    sent_context_.clear();  // a fresh worker holds no measurement context
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
      throw std::runtime_error(fmt::format("cannot create pipes for a worker: {}", std::strerror(errno)));
    const pid_t pid = spawn_pimg(exe_, "worker", in[0], out[1], err[1]);
    if (pid < 0) throw std::runtime_error(fmt::format("cannot start a worker: {}", std::strerror(errno)));
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    pid_ = pid;
    to_ = in[1];
    from_ = out[0];
    err_ = err[0];
    decoder_ = Decoder();
    tail_.clear();
    Reply r = send_and_wait({"open", family_.name(), info_.backend, std::to_string(info_.index)}, kWorkerSetupTimeoutS);
    if (r.kind == Reply::message && r.msg[0] == "ready") return;
    std::string why = r.kind == Reply::message  ? (r.msg.size() > 1 ? r.msg[1] : "no reason")
                      : r.kind == Reply::died ? "it " + r.how
                                              : fmt::format("no answer within {:.0f} s", kWorkerSetupTimeoutS);
    std::string tail = tail_;
    stop();
    throw std::runtime_error(fmt::format("worker for {} ({}) could not open the device: {}{}", info_.id(), info_.name,
                                         why, tail.empty() ? "" : "; it printed: " + tail));
  }

  void close_fds() {
    for (int* fd : {&to_, &from_, &err_})
      if (*fd >= 0) {
        ::close(*fd);
        *fd = -1;
      }
  }

  // Ends the worker: closing its stdin asks it to exit; it is killed if it does not.
  void stop() {
    if (pid_ < 0) return;
    if (to_ >= 0) {
      ::close(to_);
      to_ = -1;
    }
    reap_within(2000);
  }

  // Waits up to `ms` for the worker to exit, then kills it; returns its wait status.
  int reap_within(double ms) {
    const auto t0 = Clock::now();
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (ms_since(t0) > ms) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      ::usleep(2000);
    }
    pid_ = -1;
    close_fds();
    last_status_ = status;
    return status;
  }

  void kill_now() {
    if (pid_ < 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    close_fds();
  }

  void keep_tail(const char* data, std::size_t n) {
    tail_.append(data, n);
    if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
  }

  // Reads stderr until EOF (or a short grace period), reaps the worker and says how it ended.
  std::string reap() {
    char buf[4096];
    const auto t0 = Clock::now();
    while (err_ >= 0 && ms_since(t0) < 1000) {
      pollfd p{err_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      ssize_t n = ::read(err_, buf, sizeof buf);
      if (n <= 0) break;
      keep_tail(buf, static_cast<std::size_t>(n));
    }
    return describe_exit(reap_within(2000));
  }

  Reply send_and_wait(const Message& m, double limit_s) {
    if (!write_all(to_, encode(m))) {
      Reply r;
      r.how = reap();
      return r;
    }
    return wait(limit_s);
  }

  // The next message, or the worker's death, or the limit passing.
  Reply wait(double limit_s) {
    Reply r;
    if (auto msg = decoder_.next()) {
      r.kind = Reply::message;
      r.msg = std::move(*msg);
      return r;
    }
    const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    auto deadline = Clock::now() + limit;
    unsigned continued = g_continued.load();
    char buf[65536];
    for (;;) {
      if (g_continued.load() != continued) {  // the time spent stopped does not count
        continued = g_continued.load();
        deadline = Clock::now() + limit;
      }
      const double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
      if (left_ms <= 0) {
        r.kind = Reply::timed_out;
        return r;
      }
      pollfd fds[2] = {{from_, POLLIN, 0}, {err_, POLLIN, 0}};
      int n = ::poll(fds, 2, static_cast<int>(std::min(left_ms + 1, 1000.0)));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw std::runtime_error(fmt::format("poll on a worker: {}", std::strerror(errno)));
      if (fds[1].revents & (POLLIN | POLLHUP)) {
        ssize_t k = ::read(err_, buf, sizeof buf);
        if (k > 0) keep_tail(buf, static_cast<std::size_t>(k));
        if (k == 0) {
          ::close(err_);
          err_ = -1;
        }
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t k = ::read(from_, buf, sizeof buf);
        if (k > 0) {
          decoder_.feed(buf, static_cast<std::size_t>(k));
          if (auto msg = decoder_.next()) {
            if (msg->empty()) throw std::runtime_error("worker protocol: empty message");
            r.kind = Reply::message;
            r.msg = std::move(*msg);
            return r;
          }
        } else if (k == 0 || errno != EINTR) {
          r.how = reap();
          return r;
        }
      }
    }
  }

  std::string exe_;
  const Family& family_;
  const Backend& backend_;
  DeviceInfo info_;
  MeasureSpec measure_;
  pid_t pid_ = -1;
  int last_status_ = 0;  // wait status of the last worker reaped
  Message sent_context_;  // the measurement and problem the running worker holds (empty: none yet)
  int to_ = -1, from_ = -1, err_ = -1;
  Decoder decoder_;
  std::string tail_;
};

}  // namespace

std::unique_ptr<DeviceSession> open_worker(const std::string& worker_exe, const Family& family,
                                           const Backend& backend, const DeviceInfo& device,
                                           const MeasureSpec& measure) {
  return std::make_unique<Worker>(worker_exe, family, backend, device, measure);
}

}  // namespace pimg
