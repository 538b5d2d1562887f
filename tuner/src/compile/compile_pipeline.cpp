// The compile pipeline (compile_pipeline.hpp).
#include "compile/compile_pipeline.hpp"

#include <time.h>

#include <chrono>

#include "pimg/errors.hpp"

namespace pimg {

CompilePipeline::CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                                 std::vector<std::optional<LaunchPlan>> plans, int threads, std::vector<PointId> order)
    : backend_(backend), device_(std::move(device)), source_(std::move(source)), plans_(std::move(plans)),
      order_(std::move(order)), done_(plans_.size(), 0), costs_(plans_.size()) {
  if (order_.empty())
    for (std::size_t i = 0; i < plans_.size(); ++i) order_.push_back(static_cast<PointId>(i));
  for (std::size_t i = 0; i < plans_.size(); ++i) done_[i] = plans_[i] ? 0 : 1;
  for (const PointId i : order_) PIMG_CHECK(i < plans_.size(), "a compile order past the plans");
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), plans_.size());
  for (std::size_t t = 0; t < n; ++t) pool_.emplace_back([this] { work(); });
}

CompilePipeline::~CompilePipeline() {
  stop_ = true;
  for (auto& t : pool_) t.join();
}

namespace {

double thread_cpu_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

void CompilePipeline::work() {
  for (std::size_t k = next_++; k < order_.size() && !stop_; k = next_++) {
    const std::size_t i = order_[k];
    if (!plans_[i]) continue;
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = thread_cpu_ms();
    std::size_t n = 0;
    try {
      n = backend_.precompile(device_, source_, {*plans_[i]}, 1);
    } catch (...) {  // a failure is left for compile() to report with its log
    }
    compiled_ += n;
    const Cost c{std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                 thread_cpu_ms() - cpu0};
    {
      std::lock_guard lock(mu_);
      costs_[i] = c;
      done_[i] = 1;
    }
    cv_.notify_all();
  }
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
