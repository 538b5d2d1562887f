// The disk cache of cubins that compile() (cuda_device.cpp) and precompile() (cuda_backend.cpp) share: the key
// of a cubin, NVRTC's refusals kept beside it, and the keys being compiled ahead in this process.
#pragma once
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "nvrtc_compiler.hpp"
#include "pimg/backend.hpp"

namespace pimg::cuda_detail {

int compute_capability(const DeviceInfo& info);

// The disk-cache key of a cubin: source, NVRTC options, device, driver and NVRTC version.
std::string cubin_key(const DeviceInfo& info, const KernelSource& source, const std::vector<std::string>& options);

// Beside a key's cubin in the disk cache: NVRTC's log where it refused to compile those source and options
// (NVRTC_ERROR_COMPILATION only), so that compile() reports the pipeline's refusal without compiling again.
inline constexpr const char* kRejected = ".rejected";
void remember_rejected(const std::string& key, const cuda::NvrtcResult& built);

// The cubin keys being compiled ahead in this process. A plan whose key another thread is compiling (two
// configurations that differ only in defines the source never reads) waits for that compile instead of
// compiling the same program again.
class InFlight {
 public:
  // True when the caller is to compile `key` (and release() it after); false once another's compile of it ended.
  bool claim(const std::string& key) {
    std::unique_lock lock(mu_);
    if (keys_.insert(key).second) return true;
    cv_.wait(lock, [&] { return keys_.count(key) == 0; });
    return false;
  }
  void release(const std::string& key) {
    {
      std::lock_guard lock(mu_);
      keys_.erase(key);
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> keys_;
};
InFlight& in_flight();

}  // namespace pimg::cuda_detail
