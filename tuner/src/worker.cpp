// Evaluation sessions: in this process, or in a supervised worker process (fork + exec of
// `pimg-tune worker`) that speaks length-prefixed messages over pipes. The supervisor times each
// run against measure.timeout_s, kills a worker that overruns it (`timeout`) and reports one that
// dies (`crash`, with how it ended and the tail of what it printed); the next evaluation starts a
// fresh worker.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "wire.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define PIMG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PIMG_ASAN 1
#endif
#endif

namespace pimg {
namespace {

using Clock = std::chrono::steady_clock;
using namespace wire;
constexpr std::size_t kTailBytes = 4096;     // of the worker's stderr kept for a crash log

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

Message encode_problem(const Problem& p) {
  Message m = {p.family, std::to_string(p.width), std::to_string(p.height), std::to_string(p.channels),
               std::to_string(p.attrs.size())};
  for (const auto& [k, v] : p.attrs) {
    m.push_back(k);
    m.push_back(v);
  }
  return m;
}

Problem decode_problem(const Message& m, std::size_t& i) {
  Problem p;
  p.family = m.at(i++);
  p.width = static_cast<int>(to_long(m.at(i++)));
  p.height = static_cast<int>(to_long(m.at(i++)));
  p.channels = static_cast<int>(to_long(m.at(i++)));
  const long n = to_long(m.at(i++));
  for (long k = 0; k < n; ++k) {
    std::string key = m.at(i++);
    p.attrs[key] = m.at(i++);
  }
  return p;
}

// --- in process ---------------------------------------------------------------------------------

class InProcess final : public DeviceSession {
 public:
  InProcess(const Family& family, const Backend& backend, const DeviceInfo& info, const MeasureSpec& measure,
            std::vector<std::unique_ptr<Observer>> observers)
      : family_(family), backend_(backend), device_(backend.open(info)), measure_(measure),
        observers_(std::move(observers)) {}
  EvalResult evaluate(const EvalJob& job) override {
    EvalContext ctx{family_, job.problem, job.workload, job.expected, *device_, measure_};
    for (const auto& o : observers_) ctx.observers.push_back(o.get());
    return pimg::evaluate(ctx, job.variant, job.config);
  }
  std::optional<double> copy_bandwidth(std::size_t bytes, int repeats) override {
    return measure_copy_bandwidth(backend_, *device_, bytes, repeats);
  }

 private:
  const Family& family_;
  const Backend& backend_;
  std::unique_ptr<Device> device_;
  MeasureSpec measure_;
  std::vector<std::unique_ptr<Observer>> observers_;
};

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
    start();
  }
  ~Worker() override { stop(); }

  EvalResult evaluate(const EvalJob& job) override {
    const auto t0 = Clock::now();
    if (pid_ < 0) start();
    tail_.clear();
    Message req = {"eval", std::to_string(measure_.warmups), std::to_string(measure_.repeats),
                   num(measure_.timeout_s), job.variant.name(), job.config.canonical()};
    for (auto& f : encode_problem(job.problem)) req.push_back(std::move(f));
    const double run_limit_s = measure_.timeout_s * 1.1 + 0.5;  // fill + download + validation too
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
      if (reply.kind == Reply::message && reply.msg[0] == "error")  // what evaluate() would have thrown here
        throw std::runtime_error(fmt::format("worker for {}: {}", info_.id(), reply.msg.size() > 1 ? reply.msg[1] : ""));
      const std::string phase =
          run < 0 ? "before the first run (reference, compile, upload)"
                  : fmt::format("in run {} of {}", run + 1, measure_.warmups + measure_.repeats);
      if (reply.kind == Reply::timed_out) {
        kill_now();
        r.status = Status::timeout;
        r.log = run < 0 ? fmt::format("no answer within {:.0f} s {}; the worker was killed", kWorkerSetupTimeoutS, phase)
                        : fmt::format("run {} did not return within the {:.1f} s timeout; the worker was killed", run + 1,
                                      measure_.timeout_s);
      } else {
        r.status = Status::crash;
        r.log = fmt::format("worker {} {}", reply.how, phase);
      }
      if (!tail_.empty()) r.log += "; it printed:\n" + tail_;
      r.eval_ms = ms_since(t0);
      return r;
    }
  }

  std::optional<double> copy_bandwidth(std::size_t bytes, int repeats) override {
    if (pid_ < 0) start();
    Reply reply = send_and_wait({"bandwidth", std::to_string(bytes), std::to_string(repeats)}, kWorkerSetupTimeoutS);
    if (reply.kind != Reply::message) {
      if (reply.kind == Reply::timed_out) kill_now();
      return std::nullopt;
    }
    if (reply.msg.size() < 2 || reply.msg[1].empty()) return std::nullopt;
    return to_double(reply.msg[1]);
  }

 private:
  struct Reply {
    enum Kind { message, died, timed_out } kind = died;
    Message msg;
    std::string how;  // for died
  };

  void start() {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
      throw std::runtime_error(fmt::format("cannot create pipes for a worker: {}", std::strerror(errno)));
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(fmt::format("cannot start a worker: {}", std::strerror(errno)));
    if (pid == 0) {  // only async-signal-safe calls until exec
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::syscall(SYS_close_range, 3u, ~0u, 0u);
      ::signal(SIGPIPE, SIG_DFL);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a tuner killed with -9 takes its worker along
      if (::getppid() != parent) ::_exit(1);
      ::execl(exe_.c_str(), exe_.c_str(), "worker", static_cast<char*>(nullptr));
      ::_exit(127);
    }
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
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
    char buf[65536];
    for (;;) {
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
  int to_ = -1, from_ = -1, err_ = -1;
  Decoder decoder_;
  std::string tail_;
};

// --- the worker ---------------------------------------------------------------------------------

// CPU backends get an address-space limit of the machine's memory, so a kernel that allocates
// without bound fails inside the worker instead of driving the machine to the OOM killer. GPU
// drivers reserve large address ranges, and AddressSanitizer its shadow, so they go without.
void limit_memory(const std::string& backend) {
#ifndef PIMG_ASAN
  if (backend != "openmp" && backend != "host") return;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(pages) * static_cast<rlim_t>(page);
  ::setrlimit(RLIMIT_AS, &lim);
#else
  (void)backend;
#endif
}

class Server {
 public:
  Server(const Registry& reg, int out) : reg_(reg), out_(out) {}

  int serve() {
    Decoder decoder;
    char buf[65536];
    for (;;) {
      while (auto m = decoder.next()) {
        if (m->empty()) return 3;
        if (!handle(*m)) return 0;
      }
      ssize_t n = ::read(0, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return 0;  // the supervisor closed our stdin: done
      decoder.feed(buf, static_cast<std::size_t>(n));
    }
  }

 private:
  void send(const Message& m) {
    if (!write_all(out_, encode(m))) ::_exit(0);  // the supervisor is gone
  }

  bool handle(const Message& m) {
    const std::string& what = m[0];
    try {
      if (what == "open") {
        family_ = reg_.family(m.at(1));
        backend_ = reg_.backend(m.at(2));
        if (!family_ || !backend_) throw std::runtime_error("unknown family or backend");
        const int index = static_cast<int>(to_long(m.at(3)));
        for (const auto& d : backend_->devices())
          if (d.index == index) {
            limit_memory(d.backend);
            device_ = backend_->open(d);
            observers_ = reg_.make_observers(d);
            send({"ready", d.name});
            return true;
          }
        throw std::runtime_error(fmt::format("no device {}:{}", m.at(2), index));
      }
      if (!device_) throw std::runtime_error("no device is open");
      if (what == "bandwidth") {
        auto gbs = measure_copy_bandwidth(*backend_, *device_, static_cast<std::size_t>(to_long(m.at(1))),
                                          static_cast<int>(to_long(m.at(2))));
        send({"bandwidth", gbs ? num(*gbs) : ""});
        return true;
      }
      if (what == "eval") {
        MeasureSpec measure;
        measure.warmups = static_cast<int>(to_long(m.at(1)));
        measure.repeats = static_cast<int>(to_long(m.at(2)));
        measure.timeout_s = to_double(m.at(3));
        const Variant* variant = reg_.variant(family_->name(), m.at(4));
        if (!variant) throw std::runtime_error("unknown variant " + m.at(4));
        const Config config = Config::parse_canonical(m.at(5));
        std::size_t i = 6;
        const Problem problem = decode_problem(m, i);
        const std::string key = problem.canonical();
        auto w = workloads_.find(key);
        if (w == workloads_.end()) w = workloads_.emplace(key, family_->make_workload(problem)).first;
        const std::string rule_key = key + "\n" + variant->validation_rule();
        auto e = expected_.find(rule_key);
        if (e == expected_.end())
          e = expected_.emplace(rule_key, family_->reference(problem, w->second, variant->validation_rule())).first;
        EvalContext ctx{*family_, problem, w->second, e->second, *device_, measure};
        ctx.on_run = [this](int run) { send({"run", std::to_string(run)}); };
        for (const auto& o : observers_) ctx.observers.push_back(o.get());
        send(encode_result(pimg::evaluate(ctx, *variant, config)));
        return true;
      }
      throw std::runtime_error("unknown request " + what);
    } catch (const std::exception& e) {
      send({"error", e.what()});
      return what != "open";
    }
  }

  const Registry& reg_;
  int out_;
  const Family* family_ = nullptr;
  const Backend* backend_ = nullptr;
  std::unique_ptr<Device> device_;
  std::vector<std::unique_ptr<Observer>> observers_;
  std::map<std::string, Workload> workloads_;
  std::map<std::string, std::vector<std::uint8_t>> expected_;
};

}  // namespace

std::unique_ptr<DeviceSession> open_in_process(const Family& family, const Backend& backend, const DeviceInfo& device,
                                               const MeasureSpec& measure,
                                               std::vector<std::unique_ptr<Observer>> observers) {
  return std::make_unique<InProcess>(family, backend, device, measure, std::move(observers));
}

std::unique_ptr<DeviceSession> open_worker(const std::string& worker_exe, const Family& family,
                                           const Backend& backend, const DeviceInfo& device,
                                           const MeasureSpec& measure) {
  return std::make_unique<Worker>(worker_exe, family, backend, device, measure);
}

int worker_main(const Registry& registry) {
  // The protocol keeps the original stdout; anything else printed to stdout goes to stderr.
  const int out = ::dup(1);
  if (out < 0 || ::dup2(2, 1) < 0) return 3;
  ::fcntl(out, F_SETFD, FD_CLOEXEC);
  return Server(registry, out).serve();
}

}  // namespace pimg
