// The compile pipeline (compile_pipeline.hpp).
#include "compile/compile_pipeline.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "pimg/errors.hpp"

namespace pimg {

CompilePool::CompilePool(int threads) {
  for (int t = 0; t < std::max(threads, 1); ++t) pool_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_.notify_all();
  for (auto& t : pool_) t.join();
}

void CompilePool::add(CompilePipeline* p) {
  {
    std::lock_guard lock(mu_);
    pipes_.push_back(p);
  }
  work_.notify_all();
}

void CompilePool::remove(CompilePipeline* p) {
  std::unique_lock lock(mu_);
  pipes_.erase(std::find(pipes_.begin(), pipes_.end(), p));
  ended_.wait(lock, [&] { return in_flight_[p] == 0; });
  in_flight_.erase(p);
}

bool CompilePool::idle() {
  std::lock_guard lock(mu_);
  for (const CompilePipeline* p : pipes_)
    if (p->next_ < p->order_.size()) return false;
  return std::all_of(in_flight_.begin(), in_flight_.end(), [](const auto& f) { return f.second == 0; });
}

void CompilePool::work() {
  // This thread's compiler elsewhere (a compile worker process), made at the first plan of a pipeline that compiles
  // there, kept for the next such plans and ended with the thread (before the pool's destructor returns).
  std::unique_ptr<PlanCompiler> compiler;
  std::string compiler_key;
  for (;;) {
    CompilePipeline* p = nullptr;
    std::size_t k = 0;
    std::string key;
    {
      std::unique_lock lock(mu_);
      auto next = [&] {
        for (CompilePipeline* q : pipes_)
          if (q->next_ < q->order_.size()) return q;
        return static_cast<CompilePipeline*>(nullptr);
      };
      work_.wait(lock, [&] { return stop_ || next(); });
      if (stop_) return;
      p = next();
      k = p->next_++;
      ++in_flight_[p];
      // The pool outlives its pipelines, so a thread waiting here ends its wait before the pool stops.
      key = p->program(k);
      if (!key.empty()) {
        built_.wait(lock, [&] { return building_.count(key) == 0; });
        building_.insert(key);
      }
    }
    PlanCompiler* elsewhere = nullptr;
    if (!p->elsewhere_.key.empty()) {
      if (!compiler || compiler_key != p->elsewhere_.key) {
        compiler = p->elsewhere_.make();
        compiler_key = p->elsewhere_.key;
      }
      if (!compiler->unavailable()) elsewhere = compiler.get();
    }
    p->compile(k, elsewhere);
    {
      std::lock_guard lock(mu_);
      --in_flight_[p];
      if (!key.empty()) building_.erase(key);
    }
    built_.notify_all();
    ended_.notify_all();
  }
}

CompilePipeline::CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                                 std::vector<std::optional<LaunchPlan>> plans, CompilePool& pool, std::vector<PointId> order,
                                 CompileElsewhere elsewhere)
    : backend_(backend), device_(std::move(device)), source_(std::move(source)), plans_(std::move(plans)),
      elsewhere_(std::move(elsewhere)), order_(std::move(order)), done_(plans_.size(), 0), costs_(plans_.size()), pool_(&pool) {
  start();
}

CompilePipeline::CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                                 std::vector<std::optional<LaunchPlan>> plans, int threads, std::vector<PointId> order,
                                 CompileElsewhere elsewhere)
    : backend_(backend), device_(std::move(device)), source_(std::move(source)), plans_(std::move(plans)),
      elsewhere_(std::move(elsewhere)), order_(std::move(order)), done_(plans_.size(), 0), costs_(plans_.size()),
      own_(std::make_unique<CompilePool>(static_cast<int>(std::min<std::size_t>(std::max(threads, 1), plans_.size())))),
      pool_(own_.get()) {
  start();
}

void CompilePipeline::start() {
  if (order_.empty())
    for (std::size_t i = 0; i < plans_.size(); ++i) order_.push_back(static_cast<PointId>(i));
  for (std::size_t i = 0; i < plans_.size(); ++i) done_[i] = plans_[i] ? 0 : 1;
  for (const PointId i : order_) PIMG_CHECK(i < plans_.size(), "a compile order past the plans");
  pool_->add(this);
}

CompilePipeline::~CompilePipeline() { pool_->remove(this); }

namespace {

double thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

void CompilePipeline::compile(std::size_t k, PlanCompiler* elsewhere) {
  const std::size_t i = order_[k];
  if (!plans_[i]) return;
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = thread_cpu_ms();
  std::size_t n = 0;
  std::optional<double> elsewhere_cpu_ms;
  if (elsewhere) {
    // A plan whose compiler died or hung is left for compile() to report, as a failed precompile here is; only one
    // that cannot compile at all (a worker that cannot be started) sends its plans back to this thread.
    if (const auto done = elsewhere->compile(device_, source_, *plans_[i])) {
      n = done->compiled;
      elsewhere_cpu_ms = done->cpu_ms;
    }
  }
  if (!elsewhere || elsewhere->unavailable()) {
    try {
      n = backend_.precompile(device_, source_, {*plans_[i]}, 1);
    } catch (...) {  // a failure is left for compile() to report with its log
    }
  }
  compiled_ += n;
  const Cost c{std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
               elsewhere_cpu_ms.value_or(thread_cpu_ms() - cpu0)};
  {
    std::lock_guard lock(mu_);
    costs_[i] = c;
    done_[i] = 1;
  }
  cv_.notify_all();
}

std::string CompilePipeline::program(std::size_t k) const {
  const std::optional<LaunchPlan>& plan = plans_[order_[k]];
  if (!plan) return "";
  std::string key = backend_.name() + '\n' + device_.id() + '\n' + device_.name + '\n' + source_.hash + '\n' + plan->entry;
  for (const auto& [name, value] : plan->defines) key += "\n-D" + name + '=' + value;
  for (const auto& o : plan->options) key += '\n' + o;
  return key;
}

CompilePipeline::Cost CompilePipeline::cost(std::size_t index) const {
  std::lock_guard lock(mu_);
  return index < costs_.size() ? costs_[index] : Cost{};
}

CompilePipeline::Totals CompilePipeline::totals() const {
  std::lock_guard lock(mu_);
  Totals t;
  for (const Cost& c : costs_) {
    t.compile_ms += c.wall_ms;
    t.cpu_ms += c.cpu_ms;
  }
  t.elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started_).count();
  return t;
}

bool CompilePipeline::ready(std::size_t index) const {
  if (index >= plans_.size()) return true;
  std::lock_guard lock(mu_);
  return done_[index] != 0;
}

double CompilePipeline::wait(std::size_t index) {
  if (index >= plans_.size()) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return done_[index] != 0; });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace pimg
