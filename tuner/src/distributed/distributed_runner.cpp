// The distributed runner (`mpirun -np N pimg-tune <family> --space FILE`, docs/mpi.md part 2): every
// rank builds the same Tuner; rank 0 walks the strategies, hands configurations out one at a time to
// whichever rank is free (configurations differ in cost), evaluates on its own device on a second
// thread meanwhile, and is the only one to write the store, each result in its own transaction as
// it arrives. Rank 0 compiles each task's configurations ahead on its host's cores (one pool of compile threads
// for the host, shared by the tasks begun, not one per rank or per task) and hands out only configurations whose
// programs are in the disk cache, so no rank compiles while its device waits; the other ranks open their devices
// while the first programs compile. After the search, each problem's confirmation and each whole-program (cold)
// run is a job for a free rank driving a device of its kind, as the configurations were (stage_jobs.hpp; a cold run
// only while this host does not compile); rank 0 stores what they return, then runs the other stages a sequential run runs (the ladder, pictures) on its own devices. The ranks speak wire messages over a Transport; the runner
// knows nothing of MPI.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "pimg/errors.hpp"
#include "pimg/evaluator.hpp"
#include "compile/compile_pipeline.hpp"
#include "distributed/distributed_local.hpp"
#include "distributed/stage_jobs.hpp"
#include "pimg/transport.hpp"
#include "measure/plan_metrics.hpp"
#include "run/tuner_impl.hpp"
#include "workers/wire.hpp"

namespace pimg {
namespace {

using wire::Message;

// Rank 0.
class Coordinator {
 public:
  Coordinator(Tuner::Impl& m, const Layout& l, Store& store, RunObserver& obs, Transport& net,
              const DistributedOptions& o)
      : m_(m), l_(l), store_(store), obs_(obs), net_(net), o_(o), local_(m), state_(l.tasks.size()) {}

  TuneSummary run() {
    summary_.run_id = store_.begin_run(this_run(m_.opt.command_line));
    std::size_t planned = 0;
    for (std::size_t i : l_.tasks) planned += m_.tasks[i].strategy->planned();
    obs_.on_start(planned);
    try {
      greet();
      for (std::size_t pos = 0; pos < state_.size(); ++pos) {
        const std::size_t d = task(pos).device;
        const bool seen = std::any_of(stages_.begin(), stages_.end(), [&](const KindStages& k) { return task(k.pos()).device == d; });
        if (my_device(l_, d, o_) && !seen) stages_.emplace_back(pos, d);
      }
      if (!m_.opt.ladder_only && !state_.empty()) {
        // The first task's compiles start, then rank 0 opens its device while they run (as the other ranks do),
        // on a thread of its own, handing out work to the other ranks meanwhile.
        begin(0);
        loop();
        // The compile threads end beside the stages, with the contexts they kept (NVIDIA's OpenCL: seconds, in turn).
        for (std::size_t pos = 0; pos < state_.size(); ++pos)
          if (state_[pos].pipeline) end_pipeline(state_[pos], task(pos));
        pool_ended_ = std::async(std::launch::async, [pool = std::move(compile_pool_)]() mutable { pool.reset(); });
      }
      finish_setup();
      summary_.per_rank.assign(static_cast<std::size_t>(net_.size()), 0);
      for (const auto& s : slots_) summary_.per_rank[static_cast<std::size_t>(s.rank)] = s.evaluated;
      end_stages();  // the ranks take the confirmation jobs: they are stopped after it
    } catch (...) {
      stop_all();  // the other ranks end too, rather than wait for work that will not come
      throw;
    }
    stop_all();
    obs_.on_finish();
    return summary_;
  }

 private:
  struct Slot {
    int rank = 0;
    std::string host;
    std::vector<bool> serves;  // per task run
    bool busy = false;
    std::size_t evaluated = 0;
  };
  struct Job {
    std::size_t pos = 0;  // index into l_.tasks
    PointId point = 0;
    Config config;
    std::size_t slot = 0;
    CompilePipeline::Cost compile;  // what compiling it ahead cost (0: cached, or another's program)
  };
  struct TaskState {
    bool begun = false, exhausted = false;
    std::size_t outstanding = 0;
    std::deque<PointId> retry;  // handed to a rank that could not evaluate it
    std::deque<PointId> asked;  // asked of the strategy, not handed out: their programs are still compiling
    std::unique_ptr<CompilePipeline> pipeline;  // this host's compiles of the task's configurations, ahead
    TaskRows rows;
    bool drained() const { return exhausted && retry.empty() && asked.empty(); }  // nothing left to hand out
    bool finished() const { return drained() && outstanding == 0; }
  };

  Task& task(std::size_t pos) { return m_.tasks[l_.tasks[pos]]; }

  void greet() {
    Slot self{0, hostname(), {}, false, 0};
    for (std::size_t i : l_.tasks) self.serves.push_back(my_device(l_, m_.tasks[i].device, o_).has_value());
    slots_.push_back(self);
    std::map<int, Message> hellos;
    while (static_cast<int>(hellos.size()) < net_.size() - 1) {
      auto [from, bytes] = net_.receive();
      hellos[from] = wire::decode_whole(bytes);
    }
    for (auto& [rank, h] : hellos) {
      if (h.size() != 4 || h[0] != "hello") throw std::runtime_error(fmt::format("rank {}: unexpected greeting", rank));
      Slot s{rank, h[2], std::vector<bool>(l_.tasks.size(), false), false, 0};
      if (h[1] != l_.fingerprint || h[3].size() != l_.tasks.size()) {
        obs_.on_message(fmt::format("rank {} ({}): its devices, problems or variants differ from rank 0's; it takes no work",
                                    rank, s.host));
      } else {
        for (std::size_t i = 0; i < l_.tasks.size(); ++i) s.serves[i] = h[3][i] == '1';
      }
      slots_.push_back(s);
    }
    std::size_t serving = 0;
    for (const auto& s : slots_) serving += std::count(s.serves.begin(), s.serves.end(), true) > 0;
    obs_.on_message(fmt::format("distributed run: {} ranks, {} with a device to drive", slots_.size(), serving));
  }

  void loop() {
    for (;;) {
      begin_stages_early();
      for (auto& k : stages_) hand_out(k);
      for (std::size_t s = 0; s < slots_.size(); ++s)
        if (!slots_[s].busy) assign(s);
      compile_next();
      while (first_open_ < state_.size() && state_[first_open_].finished()) ++first_open_;
      if (first_open_ == state_.size() && !stages_running()) return;
      bool progressed = false;
      if (setup_ && setup_->ceilings.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        finish_setup();
        progressed = true;
      }
      if (local_job_ && local_result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        const std::uint64_t id = *local_job_;
        local_job_.reset();
        try {
          finish(id, local_result_.get());
        } catch (const std::exception& e) {
          failed(id, e.what());
        }
        progressed = true;
      }
      progressed = local_stage_answer() || progressed;
      while (auto msg = net_.poll()) {
        const Message r = wire::decode_whole(msg->second);
        progressed = true;
        if (take_stage_answer(r)) continue;
        const std::uint64_t id = std::stoull(r.at(1));
        if (r[0] == "done")
          finish(id, wire::decode_result(Message(r.begin() + 2, r.end())));
        else
          failed(id, r.at(2));
      }
      if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  // Gives slot s the next configuration of the first open task it can serve whose program is compiled. A slot
  // whose task still has configurations compiling waits for them rather than start the next task.
  void assign(std::size_t s) {
    for (std::size_t pos = first_open_; pos < state_.size(); ++pos) {
      TaskState& ts = state_[pos];
      if (!slots_[s].serves[pos] || ts.drained()) continue;
      Task& t = task(pos);
      if (!ts.begun) begin(pos);
      if (slots_[s].rank == 0) {  // rank 0 opens a device of a kind it has not driven yet on a thread of its own
        const std::size_t device = *my_device(l_, t.device, o_);
        if (!local_.is_open(device) && !tried_.count(device)) return start_setup(pos);
      }
      if (const auto point = next_point(ts, t)) return dispatch(s, pos, *point);
      if (!ts.drained()) return;
      if (ts.pipeline) end_pipeline(ts, t);
    }
  }

  void begin(std::size_t pos) {
    TaskState& ts = state_[pos];
    Task& t = task(pos);
    const DeviceInfo& device = m_.devices[t.device].info;
    // On a device that computes on the host's cores every program is compiled before the first measurement (a
    // compiler beside the kernels would be measured with them); elsewhere in a pipeline beside the measurements,
    // on every core of this host but one per rank measuring here.
    const bool on_cpu = device.caps.host_cores;
    ts.rows = begin_task(m_, t, device, store_, obs_, on_cpu);
    if (!on_cpu) {
      if (!compile_pool_) {
        const auto here = std::count_if(slots_.begin(), slots_.end(), [&](const Slot& x) { return x.host == slots_[0].host; });
        compile_pool_ = std::make_unique<CompilePool>(compile_threads() - static_cast<int>(here));
      }
      ts.pipeline = start_pipeline(m_, t, device, store_, ts.rows, obs_, 0, compile_pool_.get());
    }
    ts.begun = true;
  }

  // Once every program of the tasks begun so far is being compiled, the next task on a device that is not the host's
  // cores is begun, so its programs compile while the ranks measure the current one's last configurations.
  void compile_next() {
    std::size_t next = first_open_;
    while (next < state_.size() && state_[next].begun) {
      const TaskState& ts = state_[next];
      // Nothing compiles beside the last measurements of a device that computes on the host's cores.
      if (m_.devices[task(next).device].info.caps.host_cores && !ts.finished()) return;
      if (!ts.drained() && (!ts.pipeline || !ts.pipeline->drained())) return;
      ++next;
    }
    if (next < state_.size() && !m_.devices[task(next).device].info.caps.host_cores) begin(next);
  }

  // The task's next configuration to hand out: one given back by a rank that could not evaluate it, else the
  // first asked whose program is compiled, asking the strategy up to a window ahead of the compiles.
  std::optional<PointId> next_point(TaskState& ts, Task& t) {
    if (!ts.retry.empty()) {
      const PointId p = ts.retry.front();
      ts.retry.pop_front();
      return p;
    }
    auto ready = [&](PointId p) { return !ts.pipeline || ts.pipeline->ready(p); };
    for (auto it = ts.asked.begin(); it != ts.asked.end(); ++it)
      if (ready(*it)) {
        const PointId p = *it;
        ts.asked.erase(it);
        return p;
      }
    const std::size_t window = ts.pipeline ? 2 * static_cast<std::size_t>(ts.pipeline->threads()) + slots_.size() : 0;
    while (!ts.exhausted && ts.asked.size() <= window) {
      const std::optional<PointId> p = t.strategy->ask();
      if (!p) {
        ts.exhausted = true;
        break;
      }
      if (m_.opt.resume && tell_if_stored(m_, t, *p, ts.rows, store_, obs_, summary_)) continue;
      if (ready(*p)) return p;
      ts.asked.push_back(*p);
    }
    return std::nullopt;
  }

  void dispatch(std::size_t s, std::size_t pos, PointId p) {
    const std::uint64_t id = next_id_++;
    Task& t = task(pos);
    TaskState& ts = state_[pos];
    Job& job = jobs_[id] = {pos, p, t.space.config(p), s, ts.pipeline ? ts.pipeline->cost(p) : CompilePipeline::Cost{}};
    ++ts.outstanding;
    if (ts.drained() && ts.pipeline) end_pipeline(ts, t);  // every program is compiled
    slots_[s].busy = true;
    if (slots_[s].rank != 0) {
      net_.send(slots_[s].rank, wire::encode({"job", std::to_string(id), std::to_string(pos), std::to_string(p)}));
      return;
    }
    try {
      DeviceSession& session = local_session(pos);
      local_job_ = id;
      local_result_ = local_thread_.submit([this, &t, &session, &job] { return evaluate_point(m_, t, session, job.config); });
    } catch (const std::exception& e) {
      failed(id, e.what());
    }
  }

  // Opens rank 0's device of task pos's kind and measures its ceilings on a thread of its own; rank 0 takes no
  // work until finish_setup() has stored them. A device that cannot be opened is reported with the first
  // configuration handed to it.
  void start_setup(std::size_t pos) {
    const std::size_t device = *my_device(l_, task(pos).device, o_);
    tried_.insert(device);
    slots_[0].busy = true;
    setup_ = {pos, device, local_thread_.submit([this, device] { return read_ceilings(m_, local_.get(device)); })};
  }

  void finish_setup() {
    if (!setup_) return;
    try {
      store_ceilings(store_, summary_.run_id, state_[setup_->pos].rows.device, m_.devices[setup_->device].info,
                     setup_->ceilings.get(), obs_);
    } catch (const std::exception&) {
    }
    setup_.reset();
    slots_[0].busy = false;
  }

  // Rank 0's session on the device of task pos's kind, opened (and its ceilings measured) on first use.
  DeviceSession& local_session(std::size_t pos) {
    bool opened = false;
    const std::size_t device = *my_device(l_, task(pos).device, o_);
    DeviceSession& session = local_.get(device, &opened);
    if (opened)
      measure_ceilings(m_, store_, summary_.run_id, state_[pos].rows.device, session, m_.devices[device].info, obs_);
    return session;
  }

  void finish(std::uint64_t id, EvalResult r) {
    const Job job = take(id);
    ++slots_[job.slot].evaluated;
    if (job.compile.wall_ms > 0 || job.compile.cpu_ms > 0) {
      set_metric(r.metrics, "time.ahead_compile_ms", "ms", job.compile.wall_ms);
      set_metric(r.metrics, "time.ahead_compile_cpu_ms", "ms", job.compile.cpu_ms);
    }
    record(m_, task(job.pos), job.point, job.config, r, state_[job.pos].rows, store_, obs_, summary_);
  }

  void end_pipeline(TaskState& ts, const Task& t) {
    if (ts.pipeline->compiled() > 0) {
      const CompilePipeline::Totals c = ts.pipeline->totals();
      obs_.on_message(fmt::format("{} {}: {} programs compiled ahead on {} threads of this host: {:.1f} s of compiles "
                                  "({:.1f} CPU-s on their threads) in {:.1f} s",
                                  m_.devices[t.device].info.id(), t.variant->name(), ts.pipeline->compiled(),
                                  ts.pipeline->threads(), c.compile_ms / 1000, c.cpu_ms / 1000, c.elapsed_ms / 1000));
    }
    ts.pipeline.reset();
  }

  // The stages after the search on each kind searched, as a sequential run has them: the confirmation and the
  // whole programs spread over the ranks driving that kind (begun during the search where begin_stages_early()
  // allows, else here, one kind after the other), the ladder and pictures on rank 0's device.
  void end_stages() {
    for (KindStages& k : stages_) {
      const std::size_t d = task(k.pos()).device;
      const std::size_t mine = *my_device(l_, d, o_);
      bool opened = false;
      std::unique_ptr<DeviceSession>& session = local_.slot(mine, &opened);
      if (opened && !m_.opt.ladder_only)
        measure_ceilings(m_, store_, summary_.run_id, store_.device_id(m_.devices[d].info), *session,
                         m_.devices[mine].info, obs_);
      const bool spreads = !m_.opt.ladder_only;
      if (spreads) {
        advance(k);
        while (!k.done()) {  // the search is over: every other rank's answer is to a stage job
          hand_out(k);
          if (local_stage_answer()) continue;
          if (auto msg = net_.poll())
            PIMG_CHECK(take_stage_answer(wire::decode_whole(msg->second)), "distributed runner: an answer to no job");
          else
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
      }
      // local_.slot() opens the device again where rank 0's jobs left it closed (its jobs went to other ranks).
      end_device(m_, d, local_.slot(mine), store_, summary_, obs_, !spreads || m_.measure.confirm.top <= 0, !spreads);
    }
  }

  // A kind's stages begin as soon as its search has finished, while the ranks search the kinds after it, where
  // neither it nor a kind still searched computes on the host's cores (measurements there disturb every other
  // measurement) and rank 0's device of the kind is open (its ceilings stored, as end_stages() would have them).
  void begin_stages_early() {
    if (m_.opt.ladder_only) return;
    for (std::size_t pos = first_open_; pos < state_.size(); ++pos)
      if (!state_[pos].finished() && on_host_cores(pos)) return;
    for (KindStages& k : stages_) {
      const std::size_t d = task(k.pos()).device;
      if (k.begun() || on_host_cores(k.pos()) || !local_.is_open(*my_device(l_, d, o_))) continue;
      bool searched = true;
      for (std::size_t pos = 0; pos < state_.size() && searched; ++pos)
        searched = task(pos).device != d || state_[pos].finished();
      if (searched) advance(k);
    }
  }

  bool on_host_cores(std::size_t pos) { return m_.devices[task(pos).device].info.caps.host_cores; }
  bool stages_running() const {
    return std::any_of(stages_.begin(), stages_.end(), [](const KindStages& k) { return k.running(); });
  }
  void advance(KindStages& k) {
    const auto ranks = std::count_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.serves[k.pos()]; });
    k.advance(m_, store_, summary_, obs_, static_cast<std::size_t>(ranks));
  }

  // Hands kind k's jobs still to do to the free ranks driving a device of its kind, rank 0's on its own thread. A
  // whole-program run waits while this host compiles: it times a fresh process's start on the host, which a sequential
  // run times on a quiet host.
  void hand_out(KindStages& k) {
    if (k.whole_programs() && compiling()) return;
    for (std::size_t s = 0; s < slots_.size() && k.waiting(); ++s) {
      if (slots_[s].busy || !slots_[s].serves[k.pos()]) continue;
      const Message msg = k.next(next_id_++, s);
      slots_[s].busy = true;
      if (slots_[s].rank != 0)
        net_.send(slots_[s].rank, wire::encode(msg));
      else
        local_job_answer_ = local_thread_.submit([this, msg] { return job_here(m_, l_, local_, o_, msg); });
    }
  }

  // Whether this host compiles now, or will for a task of the search not begun yet (none once the search is over).
  bool compiling() {
    if (!compile_pool_) return false;
    for (std::size_t pos = first_open_; pos < state_.size(); ++pos)
      if (!state_[pos].begun && !on_host_cores(pos)) return true;
    return !compile_pool_->idle();
  }

  // Takes rank 0's answer to a stage job if it has come (search answers come through local_result_); returns
  // whether it had.
  bool local_stage_answer() {
    if (!local_job_answer_.valid() || local_job_answer_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return false;
    Message r;
    try {
      r = local_job_answer_.get();
    } catch (const std::exception& e) {  // rank 0's job: the one running on slot 0
      for (const KindStages& k : stages_)
        if (const auto id = k.job_on(0)) r = {"error", std::to_string(*id), e.what()};
    }
    PIMG_CHECK(take_stage_answer(r), "distributed runner: rank 0's answer to no stage job");
    return true;
  }

  // Gives `r` to the stage job it answers (false where it answers none): stored, or, where the rank failed it, the
  // job given to another rank and the failing one taking no more work of that kind.
  bool take_stage_answer(const Message& r) {
    const std::uint64_t id = std::stoull(r.at(1));
    for (KindStages& k : stages_) {
      const auto s = k.slot_of(id);
      if (!s) continue;
      slots_[*s].busy = false;
      if (const auto error = k.take(m_, r, slots_[*s].rank, slots_[*s].host, store_, summary_, obs_))
        drop(*s, k.pos(), *error);
      advance(k);
      return true;
    }
    return false;
  }

  // A rank could not evaluate on its device (it cannot open it, or its evaluator failed): it takes no
  // more work of that kind, and the configuration goes to another rank.
  void failed(std::uint64_t id, const std::string& why) {
    const Job job = take(id);
    state_[job.pos].retry.push_back(job.point);
    drop(job.slot, job.pos, why);
  }

  // Slot s failed work on the kind of task at's device: it takes no more work of that kind; the run ends when no
  // rank is left to take it.
  void drop(std::size_t s, std::size_t at, const std::string& why) {
    Slot& slot = slots_[s];
    const std::size_t device = task(at).device;
    obs_.on_message(fmt::format("rank {} ({}): {}; it takes no more work on {}", slot.rank, slot.host, why,
                                m_.devices[device].info.id()));
    for (std::size_t pos = 0; pos < state_.size(); ++pos)
      if (l_.members[task(pos).device] == l_.members[device]) slot.serves[pos] = false;
    for (const auto& x : slots_)
      if (x.serves[at]) return;
    throw std::runtime_error(fmt::format("no rank can evaluate on {}: {}", m_.devices[device].info.id(), why));
  }

  Job take(std::uint64_t id) {
    auto it = jobs_.find(id);
    PIMG_CHECK(it != jobs_.end(), "distributed runner: a result for an unknown job");
    Job job = std::move(it->second);
    jobs_.erase(it);
    slots_[job.slot].busy = false;
    --state_[job.pos].outstanding;
    return job;
  }

  void stop_all() {
    if (local_job_) local_result_.wait();  // the threads use this object
    if (setup_) setup_->ceilings.wait();
    if (local_job_answer_.valid()) local_job_answer_.wait();
    for (int r = 1; r < net_.size(); ++r) net_.send(r, wire::encode({"stop"}));
  }

  Tuner::Impl& m_;
  const Layout& l_;
  Store& store_;
  RunObserver& obs_;
  Transport& net_;
  DistributedOptions o_;
  Sessions local_;
  // This host's compile threads, shared by the tasks begun (one pool for the host, not a pool per task: tasks begun
  // ahead would add theirs beyond the host's cores, and the OpenCL compilers of one process serialise a crowd).
  std::unique_ptr<CompilePool> compile_pool_;  // before state_: outlives the pipelines
  std::future<void> pool_ended_;                // the pool ending once every search is done
  std::vector<TaskState> state_;
  std::vector<Slot> slots_;
  std::map<std::uint64_t, Job> jobs_;
  std::uint64_t next_id_ = 0;
  std::size_t first_open_ = 0;
  struct Setup { std::size_t pos = 0, device = 0; std::future<std::vector<std::pair<std::size_t, Ceiling>>> ceilings; };
  std::optional<Setup> setup_;  // rank 0's device being opened
  std::vector<KindStages> stages_;  // one per kind rank 0 drives, in the order of their first tasks
  std::set<std::size_t> tried_;  // rank 0's devices whose opening was started
  LocalThread local_thread_;     // last: its thread ends first, while what its jobs use is still there
  std::optional<std::uint64_t> local_job_;
  std::future<EvalResult> local_result_;
  std::future<Message> local_job_answer_;  // rank 0's confirmation or cold job
  TuneSummary summary_;
};

}  // namespace

TuneSummary Tuner::run_distributed(Store* store, RunObserver& obs, Transport& net, const DistributedOptions& opt) {
  const Layout layout = layout_of(*impl_);
  if (net.rank() != 0) {
    serve(*impl_, layout, net, opt);
    return {};
  }
  PIMG_CHECK(store, "rank 0 of a distributed run needs the store");
  return Coordinator(*impl_, layout, *store, obs, net, opt).run();
}

}  // namespace pimg
