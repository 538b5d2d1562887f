// Compile workers (compile_worker.hpp): the pipeline thread's side (CompileWorker) and the worker's
// (`pimg-tune compile-worker`, compile_worker_main).
#include "workers/compile_worker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <stdexcept>

#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "workers/spawn.hpp"

namespace pimg {

using namespace wire;
using Clock = std::chrono::steady_clock;

wire::Message encode_compile(const DeviceInfo& device, const KernelSource& source, const LaunchPlan& plan) {
  Message m = {"compile",   device.backend, std::to_string(device.index), device.name, source.path, source.hash,
               source.text, plan.entry,     std::to_string(plan.defines.size())};
  for (const auto& [name, value] : plan.defines) {
    m.push_back(name);
    m.push_back(value);
  }
  m.push_back(std::to_string(plan.options.size()));
  for (const auto& o : plan.options) m.push_back(o);
  return m;
}

CompileRequest decode_compile(const wire::Message& m) {
  if (m.empty() || m[0] != "compile") throw std::runtime_error("compile worker: not a compile request");
  CompileRequest r;
  std::size_t i = 1;
  r.backend = m.at(i++);
  r.device_index = static_cast<int>(to_long(m.at(i++)));
  r.device_name = m.at(i++);
  r.source.path = m.at(i++);
  r.source.hash = m.at(i++);
  r.source.text = m.at(i++);
  r.plan.entry = m.at(i++);
  for (long n = to_long(m.at(i++)), k = 0; k < n; ++k) {
    std::string name = m.at(i++);
    r.plan.defines.emplace_back(std::move(name), m.at(i++));
  }
  for (long n = to_long(m.at(i++)), k = 0; k < n; ++k) r.plan.options.push_back(m.at(i++));
  if (i != m.size()) throw std::runtime_error("compile worker: trailing fields in a compile request");
  return r;
}

// --- the pipeline thread's side -----------------------------------------------------------------

CompileElsewhere compile_workers(const std::string& exe) {
  return {"compile-worker " + exe, [exe] { return std::make_unique<CompileWorker>(exe); }};
}

CompileWorker::~CompileWorker() { stop(false); }

bool CompileWorker::start() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return false;
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]);
    ::close(in[1]);
    return false;
  }
  // Its stderr to /dev/null: a failed build's log is compile()'s to report, in the measuring worker.
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  const pid_t pid = spawn_pimg(exe_, "compile-worker", in[0], out[1], null >= 0 ? null : out[1]);
  if (null >= 0) ::close(null);
  ::close(in[0]);
  ::close(out[1]);
  if (pid < 0) {
    ::close(in[1]);
    ::close(out[0]);
    return false;
  }
  ::signal(SIGPIPE, SIG_IGN);  // a worker that dies between two writes must not take the tuner with it
  pid_ = pid;
  to_ = in[1];
  from_ = out[0];
  decoder_ = Decoder();
  return true;
}

void CompileWorker::stop(bool kill_now) {
  if (pid_ < 0) return;
  ::close(to_);  // asks it to exit
  to_ = -1;
  int status = 0;
  const auto t0 = Clock::now();
  while (!kill_now && ::waitpid(pid_, &status, WNOHANG) == 0) {
    if (Clock::now() - t0 > std::chrono::seconds(2)) {
      kill_now = true;
      break;
    }
    ::usleep(2000);
  }
  if (kill_now) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  ::close(from_);
  from_ = -1;
  pid_ = -1;
}

std::optional<Message> CompileWorker::wait(double limit_s) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  char buf[4096];
  for (;;) {
    if (auto m = decoder_.next()) return m;
    const double left_ms = std::chrono::duration<double, std::milli>(deadline - Clock::now()).count();
    if (left_ms <= 0) return std::nullopt;
    pollfd p{from_, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min(left_ms + 1, 1000.0)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    const ssize_t k = ::read(from_, buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return std::nullopt;  // it died
    decoder_.feed(buf, static_cast<std::size_t>(k));
  }
}

std::optional<PlanCompiler::Done> CompileWorker::compile(const DeviceInfo& device, const KernelSource& source,
                                                          const LaunchPlan& plan) {
  if (unavailable_) return std::nullopt;
  const bool fresh = pid_ < 0;
  if (fresh && !start()) {
    unavailable_ = true;
    return std::nullopt;
  }
  std::optional<Message> reply;
  try {
    if (write_all(to_, encode(encode_compile(device, source, plan)))) reply = wait(kCompileTimeoutS);
  } catch (const std::exception&) {  // malformed framing: a confused worker is replaced
    reply.reset();
  }
  if (reply && reply->size() == 3 && (*reply)[0] == "compiled")
    return Done{static_cast<std::size_t>(to_long((*reply)[1])), to_double((*reply)[2])};
  // A worker that ended before its first answer was reaped here; one that could not be executed at all (exit 127)
  // is not started again.
  if (fresh && !reply) {
    int status = 0;
    pid_t got = 0;
    for (int i = 0; i < 500 && (got = ::waitpid(pid_, &status, WNOHANG)) == 0; ++i) ::usleep(2000);
    if (got == pid_) {
      ::close(to_);
      ::close(from_);
      to_ = from_ = pid_ = -1;
      unavailable_ = WIFEXITED(status) && WEXITSTATUS(status) == 127;
      return std::nullopt;
    }
  }
  // A fresh worker that answers with an error could not find or open the device (or the backend): so would the next
  // one, so the thread compiles its plans itself from now on.
  if (fresh && reply && !reply->empty() && (*reply)[0] == "error") unavailable_ = true;
  stop(!reply);  // hung or died: killed; an error answer: asked to leave
  return std::nullopt;
}

// --- the worker's side --------------------------------------------------------------------------

namespace {

double process_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

int compile_worker_main(const Registry& registry) {
  // The protocol keeps the original stdout; anything a compiler prints to stdout goes to stderr.
  const int out = ::dup(1);
  if (out < 0 || ::dup2(2, 1) < 0) return 3;
  ::fcntl(out, F_SETFD, FD_CLOEXEC);
  std::map<std::pair<std::string, int>, DeviceInfo> devices;  // a backend's devices, enumerated once
  Decoder decoder;
  char buf[65536];
  for (;;) {
    std::optional<Message> m;
    try {
      m = decoder.next();
    } catch (const std::exception&) {
      return 3;  // malformed framing
    }
    if (m) {
      Message reply;
      try {
        CompileRequest r = decode_compile(*m);
        const Backend* backend = registry.backend(r.backend);
        if (!backend) throw std::runtime_error("unknown backend " + r.backend);
        auto d = devices.find({r.backend, r.device_index});
        if (d == devices.end()) {
          for (const DeviceInfo& info : backend->devices()) devices[{r.backend, info.index}] = info;
          d = devices.find({r.backend, r.device_index});
        }
        if (d == devices.end() || d->second.name != r.device_name)
          throw std::runtime_error("no device " + r.backend + ":" + std::to_string(r.device_index) + " named " +
                                   r.device_name);
        const double cpu0 = process_cpu_ms();
        // One plan on one thread: the backend keeps its device context for this thread's next plans.
        const std::size_t n = backend->precompile(d->second, r.source, {r.plan}, 1);
        reply = {"compiled", std::to_string(n), num(process_cpu_ms() - cpu0)};
      } catch (const std::exception& e) {
        reply = {"error", e.what()};
      }
      if (!write_all(out, encode(reply))) return 0;  // the pipeline is gone
      continue;
    }
    const ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;  // stdin closed: done
    decoder.feed(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace pimg
