// The whole-program run (cold_run.hpp) and the runner's post-search stage that runs it for the top
// configurations of each problem: the child times each part of a standalone program, the parent starts it
// with the compile caches off, waits for it within a timeout and stores its result with stage "cold".
#include "pimg/cold_run.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "pimg/errors.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"
#include "measure/stopwatch.hpp"
#include "run/tuner_impl.hpp"
#include "stages/cold_jobs.hpp"
#include "workers/wire.hpp"

extern char** environ;

namespace pimg {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

// The caches a cold build must not use: pimg-tune's own (a fresh directory), PoCL's and the CUDA driver's.
constexpr const char* kCacheOff[] = {"POCL_KERNEL_CACHE=0", "CUDA_CACHE_DISABLE=1"};

// Nsight Compute's counters of the top configurations (docs/observers.md): DRAM throughput, achieved
// occupancy, issue-slot use, registers per thread, and the kernel's duration under the profiler.
constexpr const char* kNcuMetrics[][2] = {
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "ncu.dram_throughput_pct"},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "ncu.achieved_occupancy_pct"},
    {"sm__inst_issued.avg.pct_of_peak_sustained_active", "ncu.issue_slots_busy_pct"},
    {"launch__registers_per_thread", "ncu.registers_per_thread"},
    {"gpu__time_duration.sum", "ncu.duration_ns"},
};

// "VmData:" + "VmStk:" of /proc/self/status in bytes: what `ps -o size` reports, seed 002's footprint.
double ps_size_bytes() {
  std::ifstream f("/proc/self/status");
  double kb = 0;
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmData:", 0) == 0 || line.rfind("VmStk:", 0) == 0) kb += std::stod(line.substr(7));
  return kb * 1024.0;
}

double peak_rss_bytes() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) * 1024.0;
  return -1;
}

double metric(const EvalResult& r, const std::string& name) {
  for (const Metric& m : r.metrics)
    if (m.name == name && m.seq == -1) return m.value;
  return 0;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

std::string tail(const std::string& s, std::size_t n = 2000) { return s.size() > n ? s.substr(s.size() - n) : s; }

// Finds `name` on the PATH; empty when absent.
std::string on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((fs::path(d) / name).c_str(), X_OK) == 0) return (fs::path(d) / name).string();
  return "";
}

struct Child {
  bool finished = false, timed_out = false;
  int status = 0;
  double wall_ms = 0;
};

// `argv` in a fresh process with `env` added to this one's, stdin fed `input`, stdout and stderr into `log`.
Child run_child(const std::vector<std::string>& argv, const std::vector<std::string>& env, const std::string& input,
                const fs::path& log, double timeout_s) {
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const std::string key = kv.substr(0, kv.find('='));
    if (std::none_of(env.begin(), env.end(), [&](const std::string& x) { return x.rfind(key + "=", 0) == 0; }))
      env_text.push_back(kv);
  }
  env_text.insert(env_text.end(), env.begin(), env.end());
  std::vector<char*> envp, args;
  for (auto& s : env_text) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (out < 0) throw std::runtime_error(fmt::format("{}: {}", log.string(), std::strerror(errno)));
  const auto t0 = Clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  if (pid == 0) {  // only async-signal-safe calls until exec
    ::dup2(in[0], 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
    ::signal(SIGPIPE, SIG_DFL);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out);
  const auto old = ::signal(SIGPIPE, SIG_IGN);
  wire::write_all(in[1], input);  // a child that died early leaves it unread; its status says why
  ::close(in[1]);
  ::signal(SIGPIPE, old);
  Child c;
  for (;;) {
    const pid_t w = ::waitpid(pid, &c.status, WNOHANG);
    if (w == pid) {
      c.finished = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    if (ms_since(t0) > timeout_s * 1000.0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &c.status, 0);
      c.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  c.wall_ms = ms_since(t0);
  return c;
}

// One CSV line of `ncu --csv`, fields unquoted.
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

}  // namespace

// The ncu.* metrics of ncu's CSV (one row per kernel launch and metric): seq numbers the configuration's own
// launches in the order ncu lists them (its "ID" column); the harness's kernels (pimg_check*, pimg_spin) are
// left out.
std::vector<Metric> parse_ncu_csv(const std::string& text) {
  std::vector<Metric> out;
  std::istringstream in(text);
  std::vector<std::string> header;
  std::map<std::string, int> launch_seq;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] != '"') continue;
    const auto f = csv_fields(line);
    if (header.empty()) {
      if (std::find(f.begin(), f.end(), "Metric Name") != f.end()) header = f;
      continue;
    }
    auto col = [&](const char* name) -> std::string {
      const auto it = std::find(header.begin(), header.end(), name);
      const auto i = static_cast<std::size_t>(it - header.begin());
      return it == header.end() || i >= f.size() ? "" : f[i];
    };
    // The harness's own kernels in the program (validation on the device, the launch-hiding spin) are not
    // the configuration's: only its kernels' launches are kept and numbered.
    const std::string kernel = col("Kernel Name");
    if (kernel.rfind("pimg_check", 0) == 0 || kernel.rfind("pimg_spin", 0) == 0) continue;
    const std::string metric_name = col("Metric Name");
    for (const auto& [ncu_name, ours] : kNcuMetrics) {
      if (metric_name != ncu_name) continue;
      std::string value = col("Metric Value");
      value.erase(std::remove(value.begin(), value.end(), ','), value.end());
      try {
        const auto seq = launch_seq.emplace(col("ID"), static_cast<int>(launch_seq.size())).first->second;
        out.push_back({ours, col("Metric Unit"), seq, std::stod(value)});
      } catch (const std::exception&) {  // "n/a": the metric does not apply to this launch
      }
    }
  }
  return out;
}

EvalResult run_cold(const std::string& named, const ColdRequest& q) {
  // The program by its real path: "/proc/self/exe" (the runner's default) names whatever process reads it, and
  // a launcher in between (Nsight Compute below) would start itself, profiling no kernel at all.
  EvalResult r;
  r.stage = "cold";
  r.method = "cold process";
  std::error_code resolved;
  const std::string exe = fs::canonical(named, resolved).string();
  if (resolved) {
    r.status = Status::env_error;
    r.log = fmt::format("the cold run: {}: {}", named, resolved.message());
    return r;
  }
  std::string dir_pattern = (fs::temp_directory_path() / fmt::format("pimg-cold-{}-XXXXXX", ::getpid())).string();
  if (!::mkdtemp(dir_pattern.data())) {
    r.status = Status::env_error;
    r.log = fmt::format("cannot create a temporary directory: {}", std::strerror(errno));
    return r;
  }
  const fs::path dir = dir_pattern;
  const fs::path answer = dir / "answer", log = dir / "output.txt", cache = dir / "cache";
  std::vector<std::string> env(std::begin(kCacheOff), std::end(kCacheOff));
  env.push_back("PIMG_CACHE_DIR=" + cache.string());
  auto request = [&](long long t0_ns) {
    wire::Message m = {"cold",          answer.string(),           std::to_string(t0_ns),  q.family.name(),
                       q.backend.name(), std::to_string(q.device.index), q.variant.name(), q.config.canonical(),
                       wire::num(q.timeout_s), q.output_path};
    for (auto& f : wire::encode_problem(q.problem)) m.push_back(std::move(f));
    return wire::encode(m);
  };
  try {
    const long long t0 = now_ns();
    const Child c = run_child({exe, "cold"}, env, request(t0), log, q.timeout_s);
    const std::string printed = tail(read_text(log));
    if (c.finished && WIFEXITED(c.status) && WEXITSTATUS(c.status) == 0 && fs::exists(answer)) {
      r = wire::decode_result(wire::decode_whole(read_text(answer)));
      r.stage = "cold";
      r.eval_ms = c.wall_ms;
    } else {
      r.status = c.timed_out ? Status::timeout : Status::crash;
      r.log = c.timed_out ? fmt::format("the cold run did not end within {:.0f} s", q.timeout_s)
                          : fmt::format("the cold run ended without a result (wait status {})", c.status);
      if (!printed.empty()) r.log += "; it printed: " + printed;
      r.eval_ms = c.wall_ms;
    }
    // The same program once more under Nsight Compute, for its counters only (the profiler replays kernels).
    const char* want = std::getenv("PIMG_NCU");
    const std::string ncu = on_path("ncu");
    if (r.status == Status::ok && q.output_path.empty() && q.device.caps.profiler == "ncu" && want &&
        std::string(want) == "1") {
      if (ncu.empty()) {
        r.metrics.push_back({"ncu.available", "bool", -1, 0});
      } else {
        std::string metrics;
        for (const auto& [name, ours] : kNcuMetrics) metrics += (metrics.empty() ? "" : ",") + std::string(name);
        fs::remove(answer);
        const fs::path csv = dir / "ncu.csv", request_file = dir / "request";
        {
          std::ofstream out(request_file, std::ios::binary);
          out << request(now_ns());
        }
        std::vector<std::string> ncu_env = env;
        ncu_env.push_back("PIMG_COLD_REQUEST=" + request_file.string());
        // --clock-control none: the GPU's clocks are left as they are (the machine's method; ncu would lock
        // them to base otherwise, which the H100 machines refuse).
        run_child({ncu, "--csv", "--clock-control", "none", "--log-file", csv.string(), "--metrics", metrics,
                   "--target-processes", "all", exe, "cold"},
                  ncu_env, "", dir / "ncu-output.txt", q.timeout_s * 20);
        const std::vector<Metric> counted = parse_ncu_csv(read_text(csv));
        r.metrics.insert(r.metrics.end(), counted.begin(), counted.end());
        r.metrics.push_back({"ncu.available", "bool", -1, counted.empty() ? 0.0 : 1.0});
        if (counted.empty()) {  // say why (on the H100 machines: no permission for the counters)
          std::string said = read_text(dir / "ncu-output.txt") + read_text(csv);
          for (auto& c : said) c = c == '\n' ? ' ' : c;
          r.log += (r.log.empty() ? "" : "; ") + std::string("Nsight Compute gave no counters: ") +
                   (said.size() > 400 ? said.substr(0, 400) + "..." : said);
        }
      }
    }
  } catch (const std::exception& e) {
    r.status = Status::env_error;
    r.log = fmt::format("the cold run: {}", e.what());
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  r.stage = "cold";
  return r;
}

int cold_main(const Registry& reg) {
  const long long t_main = now_ns();
  if (::dup2(2, 1) < 0) return 3;  // whatever kernels print goes to the log, not to the answer
  // The request: on standard input, or in the file PIMG_COLD_REQUEST names (under a profiler, which need
  // not pass its own standard input on to the program it starts).
  std::string input;
  if (const char* file = std::getenv("PIMG_COLD_REQUEST"); file && *file) {
    input = read_text(file);
  } else {
    char buf[65536];
    for (ssize_t n; (n = ::read(0, buf, sizeof buf)) != 0;) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return 3;
      input.append(buf, static_cast<std::size_t>(n));
    }
  }
  wire::Message m;
  try {
    m = wire::decode_whole(input);
  } catch (const std::exception&) {
    m.clear();
  }
  if (m.size() < 10 || m[0] != "cold") {
    std::fprintf(stderr, "pimg-tune cold: no request (%zu bytes read)\n", input.size());
    return 3;
  }
  EvalResult r;
  std::map<std::string, double> parts;
  double footprint_run = -1, footprint_end = -1;
  try {
    parts["process_start"] = static_cast<double>(t_main - std::stoll(m[2])) / 1e6;
    const Family* family = reg.family(m[3]);
    const Backend* backend = reg.backend(m[4]);
    const Variant* variant = reg.variant(m[3], m[6]);
    if (!family || !backend || !variant) throw std::runtime_error("unknown family, backend or variant " + m[6]);
    const int index = static_cast<int>(wire::to_long(m[5]));
    const Config config = Config::parse_canonical(m[7]);
    const double timeout_s = wire::to_double(m[8]);
    const std::string output_path = m[9];
    std::size_t i = 10;
    const Problem problem = wire::decode_problem(m, i);

    auto t = Clock::now();
    std::unique_ptr<Device> device;
    for (const DeviceInfo& d : backend->devices())
      if (d.index == index) device = backend->open(d);
    if (!device) throw std::runtime_error(fmt::format("no device {}:{}", m[4], index));
    parts["device_open"] = ms_since(t);
    t = Clock::now();
    const Workload workload = family->make_workload(problem);
    parts["input"] = ms_since(t);
    const std::vector<std::uint8_t> expected = family->reference(problem, workload, variant->validation_rule());
    // A program times its run as it calls it: hot, launch latency included, no confirmation.
    MeasureSpec measure = MeasureSpec::fixed(0, 1, timeout_s);
    measure.timing.hide_launch = false;
    auto plan = std::make_unique<PreparedPlan>(*family, problem, workload, expected, *device, measure, *variant, config);
    std::optional<RunTimes> times;
    if (!plan->failed()) times = plan->run(0);
    footprint_run = ps_size_bytes();
    r = plan->result();
    if (!output_path.empty() && !plan->output().empty()) {
      std::ofstream o(output_path, std::ios::binary);
      o.write(reinterpret_cast<const char*>(plan->output().data()), static_cast<std::streamsize>(plan->output().size()));
      if (!o) throw std::runtime_error(output_path + ": cannot write the output");
    }
    parts["build"] = r.compile_ms;
    parts["alloc"] = metric(r, "memory.alloc_ms");
    parts["upload"] = metric(r, "transfer.h2d_first_ms");
    if (times) {
      parts["run"] = times->wall_ms;
      parts["download"] = metric(r, "transfer.d2h_ms");
      r.kernel_ms = {times->kernel_ms};
      r.wall_ms = {times->wall_ms};
      times->add_parts(r.metrics, 0);
      r.status = Status::ok;
    }
    t = Clock::now();
    plan.reset();
    device.reset();
    parts["release"] = ms_since(t);
    footprint_end = ps_size_bytes();
  } catch (const std::exception& e) {
    r.status = Status::harness_error;
    r.log = fmt::format("the cold run: {}", e.what());
  }
  finish_stats(r);
  double total = 0;
  for (const char* part : kColdParts)
    if (auto it = parts.find(part); it != parts.end()) {
      r.metrics.push_back({fmt::format("cold.{}_ms", part), "ms", -1, it->second});
      total += it->second;
    }
  if (r.status == Status::ok) {
    r.metrics.push_back({"cold.total_ms", "ms", -1, total});
    r.metrics.push_back({"cold.startup_share", "fraction", -1, total > 0 ? (total - parts["run"]) / total : 0});
  }
  if (footprint_end >= 0) {
    r.metrics.push_back({"cold.footprint_program_bytes", "B", -1, footprint_end});
    r.metrics.push_back({"cold.footprint_kernel_bytes", "B", -1, footprint_run - footprint_end});
  }
  if (const double peak = peak_rss_bytes(); peak >= 0) r.metrics.push_back({"cold.peak_rss_bytes", "B", -1, peak});
  r.stage = "cold";
  r.method = "cold process";
  std::ofstream out(m[1], std::ios::binary);
  out << wire::encode(wire::encode_result(r));
  return out.good() ? 0 : 3;
}

std::vector<const ResultRow*> top_rows(const std::vector<ResultRow>& rows, const DeviceInfo& device,
                                       const Problem& problem, const std::map<std::string, const Variant*>& variants,
                                       int top) {
  // The confirmation stage's ranking where it ran, else the search's.
  std::vector<const ResultRow*> ok;
  bool confirmed = false;
  for (const ResultRow& r : rows)
    if (r.result.status == Status::ok && same_device(r.device, device) && r.problem == problem &&
        variants.count(r.variant.name)) {
      ok.push_back(&r);
      confirmed = confirmed || r.result.stage == "confirm";
    }
  std::erase_if(ok, [&](const ResultRow* r) { return confirmed != (r->result.stage == "confirm"); });
  std::sort(ok.begin(), ok.end(),
            [](const ResultRow* a, const ResultRow* b) { return a->result.kernel.median < b->result.kernel.median; });
  ok.resize(std::min<std::size_t>(ok.size(), static_cast<std::size_t>(std::max(top, 0))));
  return ok;
}

std::vector<ColdJob> cold_jobs(const Tuner::Impl& m, std::size_t device, Store& store) {
  std::vector<ColdJob> jobs;
  const int top = m.measure.cold.top;
  if (top <= 0) return jobs;
  const SelectedDevice& sd = m.devices[device];
  const std::map<std::string, const Variant*> variants = device_variants(m, device);
  RowFilter f;
  f.family = m.family->name();
  const std::vector<ResultRow> rows = store.ranking_rows(f);
  const std::vector<ResultRow> done = store.stage_rows("cold", f);
  for (std::size_t p = 0; p < m.space.problems.size(); ++p) {
    const Problem& problem = m.space.problems[p];
    for (const ResultRow* best : top_rows(rows, sd.info, problem, variants, top)) {
      const bool stored = m.opt.resume && std::any_of(done.begin(), done.end(), [&](const ResultRow& c) {
        return same_device(c.device, sd.info) && c.problem == problem && c.variant.name == best->variant.name &&
               c.config.canonical() == best->config.canonical() && c.result.identity == best->result.identity;
      });
      if (!stored) jobs.push_back({p, *best});
    }
  }
  return jobs;
}

wire::Message cold_job_message(std::size_t device, const ColdJob& job) {
  return {std::to_string(device), std::to_string(job.problem), job.row.variant.name, job.row.config.canonical()};
}

std::size_t cold_job_device(const wire::Message& job, std::size_t at) {
  return static_cast<std::size_t>(wire::to_long(job.at(at)));
}

EvalResult cold_job_run(const Tuner::Impl& m, std::size_t device, const wire::Message& job, std::size_t at) {
  const auto problem = static_cast<std::size_t>(wire::to_long(job.at(at + 1)));
  PIMG_CHECK(problem < m.space.problems.size(), "a cold job for an unknown problem");
  const std::map<std::string, const Variant*> variants = device_variants(m, device);
  const auto v = variants.find(job.at(at + 2));
  PIMG_CHECK(v != variants.end(), "a cold job for a variant not on this device: " + job.at(at + 2));
  const SelectedDevice& sd = m.devices[device];
  const ColdRequest req{*m.family, *sd.backend, sd.info, m.space.problems[problem], *v->second,
                        Config::parse_canonical(job.at(at + 3)), kWorkerSetupTimeoutS + m.measure.timeout_s};
  return run_cold(m.opt.worker_exe, req);
}

void cold_job_store(const Tuner::Impl& m, std::size_t device, const ColdJob& job, EvalResult r, Store& store,
                    TuneSummary& summary, RunObserver& obs, const std::string& where) {
  const SelectedDevice& sd = m.devices[device];
  const Problem& problem = m.space.problems[job.problem];
  const ResultRow& best = job.row;
  if (r.identity.empty()) r.identity = best.result.identity;
  double total = 0, share = 0;
  for (const Metric& x : r.metrics) {
    if (x.name == "cold.total_ms") total = x.value;
    if (x.name == "cold.startup_share") share = x.value;
  }
  obs.on_message((r.status == Status::ok
                      ? fmt::format("{} {}: cold run of {} {}: {:.1f} ms as a program, {:.0f}% start-up", sd.info.id(),
                                    problem.label(), best.variant.name, best.config.brief(), total, share * 100)
                      : fmt::format("{} {}: cold run of {} {}: {}", sd.info.id(), problem.label(), best.variant.name,
                                    best.config.brief(), to_string(r.status))) +
                 where);
  const std::int64_t problem_row =
      store.problem_id(problem, {m.family->work(problem), m.family->unit(), m.family->traffic(problem)});
  store.save(summary.run_id, store.device_id(sd.info), problem_row, store.variant_id(best.variant), best.config, r);
}

void cold_stage(const Tuner::Impl& m, std::size_t device, Store& store, TuneSummary& summary, RunObserver& obs) {
  for (const ColdJob& job : cold_jobs(m, device, store))
    cold_job_store(m, device, job, cold_job_run(m, device, cold_job_message(device, job), 0), store, summary, obs);
}

}  // namespace pimg
