// Evaluation in this process (isolation.hpp): the in-process session (--no-isolation, or the space's
// measure.isolation off), and the worker process's side of the supervisor's protocol (`pimg-tune worker`,
// worker_main): a server that reads length-prefixed requests on stdin, evaluates, and answers on the original
// stdout. The supervisor that starts and watches such a worker is in worker.cpp.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <optional>
#include <stdexcept>

#include "pimg/asan.hpp"
#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/isolation.hpp"
#include "pimg/registry.hpp"
#include "workers/wire.hpp"

namespace pimg {
namespace {

using namespace wire;

// The observers an evaluation or the confirmation stage reads, borrowed from the session that owns them.
std::vector<Observer*> borrowed(const std::vector<std::unique_ptr<Observer>>& owned) {
  std::vector<Observer*> out;
  for (const auto& o : owned) out.push_back(o.get());
  return out;
}

// --- in process ---------------------------------------------------------------------------------

class InProcess final : public DeviceSession {
 public:
  InProcess(const Family& family, const Backend& backend, const DeviceInfo& info, const MeasureSpec& measure,
            std::vector<std::unique_ptr<Observer>> observers)
      : family_(family), backend_(backend), device_(backend.open(info)), measure_(measure),
        observers_(std::move(observers)), resident_(std::make_unique<DeviceResidency>(*device_)) {}
  EvalResult evaluate(const EvalJob& job) override {
    EvalContext ctx{family_, job.problem, job.workload, job.expected, *device_, measure_};
    ctx.resident = resident_.get();
    ctx.race_bar_ms = job.race_bar_ms;
    ctx.load_retries = &load_retries_;
    ctx.observers = borrowed(observers_);
    return pimg::evaluate(ctx, job.variant, job.config);
  }
  std::vector<EvalResult> confirm(const ConfirmJob& job) override {
    return confirm_candidates(family_, job.problem, job.workload, *device_, measure_, job.candidates, job.seed,
                              borrowed(observers_));
  }
  EvalResult capture(const EvalJob& job, const std::string& sub, const std::string& key) override {
    EvalContext ctx{family_, job.problem, job.workload, job.expected, *device_, measure_};
    return capture_output(ctx, job.variant, job.config, sub, key);
  }
  std::optional<Ceiling> ceiling(std::size_t bytes, int repeats, CeilingKind kind) override {
    return measure_ceiling(backend_, *device_, bytes, repeats, measure_.timing, kind);
  }

 private:
  const Family& family_;
  const Backend& backend_;
  std::unique_ptr<Device> device_;
  MeasureSpec measure_;
  std::vector<std::unique_ptr<Observer>> observers_;
  std::unique_ptr<DeviceResidency> resident_;  // declared after device_: released before it
  LoadRetries load_retries_;                   // the session's allowance for loaded measurements
};

// --- the worker ---------------------------------------------------------------------------------

// Devices on the host's cores get an address-space limit of the machine's memory, so a kernel that
// allocates without bound fails inside the worker instead of driving the machine to the OOM killer. GPU
// drivers reserve large address ranges, and AddressSanitizer its shadow, so they go without.
void limit_memory(const DeviceInfo& device) {
#if !PIMG_ASAN
  if (!device.caps.host_cores || device.caps.distributed) return;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return;
  rlimit lim{};
  lim.rlim_cur = lim.rlim_max = static_cast<rlim_t>(pages) * static_cast<rlim_t>(page);
  ::setrlimit(RLIMIT_AS, &lim);
#else
  (void)device;
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
            limit_memory(d);
            resident_.reset();
            device_ = backend_->open(d);
            resident_ = std::make_unique<DeviceResidency>(*device_);
            observers_ = reg_.make_observers(d);
            send({"ready", d.name});
            return true;
          }
        throw std::runtime_error(fmt::format("no device {}:{}", m.at(2), index));
      }
      if (!device_) throw std::runtime_error("no device is open");
      if (what == "bandwidth") {
        const TimingMethod timing{m.at(3) == "1", m.at(4) == "1"};
        const CeilingKind kind = m.at(5) == "read" ? CeilingKind::read : CeilingKind::copy;
        auto c = measure_ceiling(*backend_, *device_, static_cast<std::size_t>(to_long(m.at(1))),
                                 static_cast<int>(to_long(m.at(2))), timing, kind);
        send({"bandwidth", c ? num(c->gbs) : "", c ? c->how : "", c ? c->method : ""});
        return true;
      }
      if (what == "confirm") {
        std::size_t i = 1;
        const MeasureSpec measure = decode_measure(m, i);
        const Problem problem = decode_problem(m, i);
        const std::uint64_t seed = std::stoull(m.at(i++));
        const long n = to_long(m.at(i++));
        std::vector<ConfirmCandidate> candidates;
        const Workload& w = workload(problem);
        for (long k = 0; k < n; ++k) {
          const Variant* variant = reg_.variant(family_->name(), m.at(i++));
          if (!variant) throw std::runtime_error("unknown variant " + m.at(i - 1));
          candidates.push_back({variant, Config::parse_canonical(m.at(i++)), &expected(problem, *variant)});
        }
        for (const EvalResult& r :
             confirm_candidates(*family_, problem, w, *device_, measure, candidates, seed, borrowed(observers_)))
          send(encode_result(r));
        return true;
      }
      if (what == "eval" || what == "capture") {
        const std::size_t at = what == "capture" ? 3 : 1;  // a capture's cache entry comes first
        const Variant* variant = reg_.variant(family_->name(), m.at(at));
        if (!variant) throw std::runtime_error("unknown variant " + m.at(at));
        const Config config = Config::parse_canonical(m.at(at + 1));
        const double race_bar_ms = to_double(m.at(at + 2));
        if (m.at(at + 3) == "new") {  // the measurement and problem, sent when they changed
          std::size_t i = at + 4;
          context_measure_ = decode_measure(m, i);
          context_problem_ = decode_problem(m, i);
        } else if (!context_problem_) {
          throw std::runtime_error("an evaluation without a measurement context");
        }
        const MeasureSpec& measure = context_measure_;
        const Problem& problem = *context_problem_;
        if (what == "capture") {  // no reference yet: this configuration's output becomes it
          static const std::vector<std::uint8_t> none;
          EvalContext ctx{*family_, problem, workload(problem), none, *device_, measure};
          ctx.on_run = [this](int run) { send({"run", std::to_string(run)}); };
          send(encode_result(capture_output(ctx, *variant, config, m.at(1), m.at(2))));
          return true;
        }
        EvalContext ctx{*family_, problem, workload(problem), expected(problem, *variant), *device_, measure};
        ctx.resident = resident_.get();
        ctx.race_bar_ms = race_bar_ms;
        ctx.load_retries = &load_retries_;
        ctx.on_run = [this](int run) { send({"run", std::to_string(run)}); };
        ctx.observers = borrowed(observers_);
        send(encode_result(pimg::evaluate(ctx, *variant, config)));
        return true;
      }
      throw std::runtime_error("unknown request " + what);
    } catch (const std::exception& e) {
      send({"error", e.what()});
      return what != "open";
    }
  }

  const Workload& workload(const Problem& problem) {
    const std::string key = problem.canonical();
    auto w = workloads_.find(key);
    if (w == workloads_.end()) w = workloads_.emplace(key, family_->make_workload(problem)).first;
    return w->second;
  }

  const std::vector<std::uint8_t>& expected(const Problem& problem, const Variant& variant) {
    const std::string rule_key = problem.canonical() + "\n" + variant.validation_rule();
    auto e = expected_.find(rule_key);
    if (e == expected_.end())
      e = expected_.emplace(rule_key, family_->reference(problem, workload(problem), variant.validation_rule())).first;
    return e->second;
  }

  const Registry& reg_;
  int out_;
  const Family* family_ = nullptr;
  const Backend* backend_ = nullptr;
  std::unique_ptr<Device> device_;
  std::unique_ptr<DeviceResidency> resident_;  // after device_: released before it
  LoadRetries load_retries_;  // the worker's allowance for loaded measurements (one per worker process)
  std::vector<std::unique_ptr<Observer>> observers_;
  MeasureSpec context_measure_;              // the last "eval" context sent
  std::optional<Problem> context_problem_;
  std::map<std::string, Workload> workloads_;
  std::map<std::string, std::vector<std::uint8_t>> expected_;
};

}  // namespace

std::unique_ptr<DeviceSession> open_in_process(const Family& family, const Backend& backend, const DeviceInfo& device,
                                               const MeasureSpec& measure,
                                               std::vector<std::unique_ptr<Observer>> observers) {
  return std::make_unique<InProcess>(family, backend, device, measure, std::move(observers));
}

int worker_main(const Registry& registry) {
  // The protocol keeps the original stdout; anything else printed to stdout goes to stderr.
  const int out = ::dup(1);
  if (out < 0 || ::dup2(2, 1) < 0) return 3;
  ::fcntl(out, F_SETFD, FD_CLOEXEC);
  return Server(registry, out).serve();
}

}  // namespace pimg
