// Pieces of the distributed runner (distributed_runner.cpp): the devices a rank has opened, the thread rank 0
// does its own work on, the layout of devices and tasks, and what a rank other than 0 does.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pimg/transport.hpp"
#include "run/tuner_impl.hpp"
#include "workers/wire.hpp"

namespace pimg {

// The devices a rank has opened, each once.
class Sessions {
 public:
  explicit Sessions(const Tuner::Impl& m) : m_(m) {}
  Sessions(const Sessions&) = delete;
  Sessions& operator=(const Sessions&) = delete;
  DeviceSession& get(std::size_t device, bool* opened = nullptr) { return *slot(device, opened); }
  bool is_open(std::size_t device) const {
    auto it = open_.find(device);
    return it != open_.end() && it->second;
  }
  std::unique_ptr<DeviceSession>& slot(std::size_t device, bool* opened = nullptr) {
    auto& s = open_[device];
    if (opened) *opened = !s;
    if (!s) s = open_session(m_, m_.devices[device]);
    return s;
  }

 private:
  const Tuner::Impl& m_;
  std::map<std::size_t, std::unique_ptr<DeviceSession>> open_;
};

// Rank 0's own work (opening its devices, measuring ceilings, evaluating) on one thread that lives as long as the
// run: a worker process dies with the thread that started it (PR_SET_PDEATHSIG), so a worker started, or restarted
// after a crash, on a thread of its own job would die as that thread ends.
class LocalThread {
 public:
  LocalThread() : thread_([this] { work(); }) {}
  ~LocalThread() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  template <class F>
  auto submit(F f) -> std::future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    auto result = task->get_future();
    {
      std::lock_guard lock(mu_);
      queue_.push_back([task] { (*task)(); });
    }
    cv_.notify_one();
    return result;
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the rest is built
};

// The layout every rank computes alike (distributed_ranks.cpp): selected devices the store cannot tell apart
// (backend, name, driver, platform) are one kind, and the ranks of a host share out the devices of each kind.
struct Layout {
  std::vector<std::vector<std::size_t>> members;  // per selected device: the selected devices of its kind
  std::vector<std::size_t> tasks;                 // the tasks run: the first of each (kind, problem, variant)
  std::string fingerprint;                        // what the ranks must agree on
};
Layout layout_of(const Tuner::Impl& m);
// The selected device this rank drives for tasks on device d's kind.
std::optional<std::size_t> my_device(const Layout& l, std::size_t d, const DistributedOptions& o);
// A stage's job on this rank's device of the job's kind: a problem's confirmation (msg: {"confirm", id, job},
// confirm_jobs.hpp; the answer, then what its stage said) or a cold run ({"cold", id, job}, cold_jobs.hpp; the
// run's result).
wire::Message job_here(const Tuner::Impl& m, const Layout& l, Sessions& sessions, const DistributedOptions& o,
                       const wire::Message& msg);
// A rank other than 0: announces what it can serve, then evaluates what it is sent until "stop".
void serve(const Tuner::Impl& m, const Layout& l, Transport& net, const DistributedOptions& o);

}  // namespace pimg
