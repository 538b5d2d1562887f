// The compile pipeline (compile_pipeline.hpp).
#include "compile_pipeline.hpp"

#include <chrono>

namespace pimg {

CompilePipeline::CompilePipeline(const Backend& backend, DeviceInfo device, KernelSource source,
                                 std::vector<std::optional<LaunchPlan>> plans, int threads)
    : backend_(backend), device_(std::move(device)), source_(std::move(source)), plans_(std::move(plans)),
      done_(plans_.size(), 0) {
  for (std::size_t i = 0; i < plans_.size(); ++i) done_[i] = plans_[i] ? 0 : 1;
  const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), plans_.size());
  for (std::size_t t = 0; t < n; ++t) pool_.emplace_back([this] { work(); });
}

CompilePipeline::~CompilePipeline() {
  stop_ = true;
  for (auto& t : pool_) t.join();
}

void CompilePipeline::work() {
  for (std::size_t i = next_++; i < plans_.size() && !stop_; i = next_++) {
    if (!plans_[i]) continue;
    try {
      compiled_ += backend_.precompile(device_, source_, {*plans_[i]}, 1);
    } catch (...) {  // a failure is left for compile() to report with its log
    }
    {
      std::lock_guard lock(mu_);
      done_[i] = 1;
    }
    cv_.notify_all();
  }
}

double CompilePipeline::wait(std::size_t index) {
  if (index >= plans_.size()) return 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return done_[index] != 0; });
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace pimg
