// Pieces of the distributed runner (distributed_runner.cpp): the devices a rank has opened, and the thread rank 0
// does its own work on.
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "run/tuner_impl.hpp"

namespace pimg {

// The devices a rank has opened, each once.
class Sessions {
 public:
  explicit Sessions(const Tuner::Impl& m) : m_(m) {}
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

}  // namespace pimg
