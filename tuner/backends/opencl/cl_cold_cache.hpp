// Cold runs on an OpenCL device (docs/measurement.md, "Timing methods"). On a CPU device whose memory is the
// host's (PoCL), every cache line of the device's live buffers and images is evicted from the host's caches
// before each cold run: the buffers are mapped (no copy on such a device), their lines flushed
// (pimg/cache_flush.hpp) and unmapped, a cost in proportion to the bytes a run can touch. Elsewhere (GPUs) a
// buffer of twice CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, at least 8 MiB, filled once, is read instead by
// kernels/timing/cache_sweep.cl, so that the lines left in the cache are clean (a fill before every run left them
// dirty, and the timed kernel paid for writing them back).
#pragma once
#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "pimg/backend.hpp"

namespace pimg {

class ClColdCache {
 public:
  // How the cache is emptied: `automatic` evicts by address on a CPU device whose memory is the host's (where the
  // host can flush lines) and sweeps elsewhere; `sweep` sweeps on any device (tests run it on PoCL).
  enum class How { automatic, sweep };
  ClColdCache(cl_context context, cl_command_queue queue, cl_device_id device, How how = How::automatic);
  ~ClColdCache();
  ClColdCache(const ClColdCache&) = delete;
  ClColdCache& operator=(const ClColdCache&) = delete;

  // A buffer (width 0) or an 8-bit image of width x height texels the device allocated; `owner` holds `mem`.
  void track(const std::shared_ptr<DeviceBuffer>& owner, cl_mem mem, std::size_t bytes, int width, int height);
  void before_cold_run();
  // "cold-evict" where lines are evicted by address, else "cold-cache-read" (the sweep).
  const char* method() const { return evict_ ? "cold-evict" : "cold-cache-read"; }

 private:
  struct Tracked {
    std::weak_ptr<DeviceBuffer> owner;
    cl_mem mem;
    std::size_t bytes;
    int width, height;
  };
  void evict(const Tracked& t);
  void make_sweep();
  void sweep();

  cl_context context_;
  cl_command_queue queue_;
  cl_device_id device_;
  bool evict_ = false;
  std::vector<Tracked> live_;
  cl_mem words_ = nullptr;  // the swept buffer: words_bytes_, then the sink word
  std::size_t words_bytes_ = 0;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  std::size_t global_ = 0;
};

}  // namespace pimg
