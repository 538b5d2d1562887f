// Variant `pthread_rows` (host): seed 003's pthreads version, the output rows split in equal blocks over
// `threads` POSIX threads, each running the serial baseline's row loop. pool=0 creates the threads with
// pthread_create and joins them in every run, as the seed does; pool=1 keeps a persistent pool of
// threads that wait for each run, so the difference between the two is the cost of thread creation.
#include <pthread.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "conv/register.hpp"
#include "conv/serial_rows.hpp"
#include "conv/variant_base.hpp"

namespace pimg::conv {
namespace {

constexpr int kMaxThreads = 256;

struct Block {
  const ConvSpec* spec;
  const std::uint8_t* in;
  std::uint8_t* out;
  long first, last;
};

void run_block(const Block& b) { row_loop(*b.spec, b.in, b.out, b.first, b.last); }

void* block_thread(void* arg) {
  run_block(*static_cast<const Block*>(arg));
  return nullptr;
}

// Threads that live across runs: run() hands each its block and waits until all are done.
class Pool {
 public:
  explicit Pool(int n) : n_(n) {
    for (int i = 1; i < n; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  ~Pool() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void run(const std::vector<Block>& blocks) {
    {
      std::lock_guard lock(mu_);
      blocks_ = &blocks;
      pending_ = n_ - 1;
      ++generation_;
    }
    wake_.notify_all();
    run_block(blocks[0]);
    std::unique_lock lock(mu_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

 private:
  void loop(int id) {
    std::uint64_t seen = 0;
    for (;;) {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (stop_) return;
      const Block& b = (*blocks_)[static_cast<std::size_t>(id)];
      lock.unlock();
      run_block(b);
      lock.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }

  int n_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  const std::vector<Block>* blocks_ = nullptr;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

Pool& pool_of(int threads) {
  static std::mutex mu;
  static std::map<int, std::unique_ptr<Pool>> pools;
  std::lock_guard lock(mu);
  auto& p = pools[threads];
  if (!p) p = std::make_unique<Pool>(threads);
  return *p;
}

// serial's arguments, then threads and pool.
void conv_pthread_rows(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = row_loop_spec(buffers, ints);
  const int threads = static_cast<int>(ints[8]);
  const bool pool = ints[9] != 0;
  const long rows = row_loop_rows(s);
  std::vector<Block> blocks;
  for (int t = 0; t < threads; ++t)
    blocks.push_back({&s, static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]),
                      rows * t / threads, rows * (t + 1) / threads});
  if (pool) {
    pool_of(threads).run(blocks);
    return;
  }
  std::vector<pthread_t> ids(static_cast<std::size_t>(threads));
  for (int t = 1; t < threads; ++t)
    if (pthread_create(&ids[t], nullptr, block_thread, &blocks[t]) != 0) {
      for (int j = 1; j < t; ++j) pthread_join(ids[j], nullptr);
      throw std::runtime_error(fmt::format("pthread_create failed for thread {} of {}", t, threads));
    }
  run_block(blocks[0]);
  for (int t = 1; t < threads; ++t) pthread_join(ids[t], nullptr);
}

// Not PlanContext::int_knob: the knobs are read and refused here as they were before the context, with this
// variant's own messages (its refusals are pinned).
LaunchPlan pthread_rows_plan(const PlanContext& x) {
  const Config& c = x.config;
  const ConvSpec s = spec_of(x.problem);
  const std::int64_t threads = c.has("threads") ? c.integer("threads") : 2;
  const std::int64_t pool = c.has("pool") ? c.integer("pool") : 0;
  if (threads < 1 || threads > kMaxThreads)
    throw PlanError(fmt::format("threads must be 1..{}, got {}", kMaxThreads, threads));
  if (pool != 0 && pool != 1) throw PlanError(fmt::format("pool must be 0 or 1, got {}", pool));
  LaunchPlan plan;
  plan.entry = "conv_pthread_rows";
  plan.args = row_loop_args(s);
  plan.args.push_back(KernelArg::integer(threads));
  plan.args.push_back(KernelArg::integer(pool));
  return plan;
}

}  // namespace

void register_pthread_rows(Registry& reg) {
  reg.add_host_function("conv_pthread_rows", &conv_pthread_rows);
  reg.add_variant(make_variant(
      {"pthread_rows", "conv", "host", NativeCall{"conv_pthread_rows", ""},
       "POSIX threads over blocks of output rows, each the serial row loop (seed 003's pthreads version): threads "
       "created per run, or a persistent pool",
       {{"threads", false, {}, std::int64_t{2}, "POSIX threads", {}, 1, kMaxThreads},
        {"pool", false, {}, std::int64_t{0},
         "0: pthread_create and pthread_join in every run (the seed); 1: a persistent pool woken per run", {0, 1}}},
       pthread_rows_plan}));
}

}  // namespace pimg::conv
