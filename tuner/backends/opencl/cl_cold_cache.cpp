// Cold runs on an OpenCL device (cl_cold_cache.hpp).
#include "cl_cold_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "pimg/cache_flush.hpp"

namespace pimg {

namespace {

void cold_cache_check(cl_int err, const char* call) {
  if (err != CL_SUCCESS) throw std::runtime_error(fmt::format("{} (cache flush): OpenCL error {}", call, err));
}

// A CPU device whose buffers live in the host's memory: its caches are the host's.
bool host_memory_device(cl_device_id device) {
  cl_device_type type = 0;
  cl_bool unified = CL_FALSE;
  if (clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr) != CL_SUCCESS) return false;
  if (clGetDeviceInfo(device, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, nullptr) != CL_SUCCESS)
    return false;
  return (type & CL_DEVICE_TYPE_CPU) != 0 && unified == CL_TRUE;
}

}  // namespace

ClColdCache::ClColdCache(cl_context context, cl_command_queue queue, cl_device_id device)
    : context_(context), queue_(queue), device_(device), evict_(can_flush_cache_lines() && host_memory_device(device)) {}

ClColdCache::~ClColdCache() {
  if (fill_ != nullptr) clReleaseMemObject(fill_);
}

void ClColdCache::track(const std::shared_ptr<DeviceBuffer>& owner, cl_mem mem, std::size_t bytes, int width,
                        int height) {
  if (!evict_) return;
  std::erase_if(live_, [](const Tracked& t) { return t.owner.expired(); });
  live_.push_back({owner, mem, bytes, width, height});
}

void ClColdCache::before_cold_run() {
  if (!evict_) return fill();
  for (const Tracked& t : live_)
    if (const auto owner = t.owner.lock(); owner && t.bytes > 0) evict(t);
}

void ClColdCache::evict(const Tracked& t) {
  cl_int err = CL_SUCCESS;
  void* p = nullptr;
  std::size_t span = t.bytes;
  if (t.width > 0) {
    const std::size_t origin[3] = {0, 0, 0};
    const std::size_t region[3] = {static_cast<std::size_t>(t.width), static_cast<std::size_t>(t.height), 1};
    std::size_t row_pitch = 0, slice_pitch = 0;
    p = clEnqueueMapImage(queue_, t.mem, CL_TRUE, CL_MAP_READ, origin, region, &row_pitch, &slice_pitch, 0, nullptr,
                          nullptr, &err);
    cold_cache_check(err, "clEnqueueMapImage");
    const std::size_t texel = t.bytes / (region[0] * region[1]);
    span = (region[1] - 1) * row_pitch + region[0] * texel;
  } else {
    p = clEnqueueMapBuffer(queue_, t.mem, CL_TRUE, CL_MAP_READ, 0, t.bytes, 0, nullptr, nullptr, &err);
    cold_cache_check(err, "clEnqueueMapBuffer");
  }
  flush_cache_lines(p, span);
  cold_cache_check(clEnqueueUnmapMemObject(queue_, t.mem, p, 0, nullptr, nullptr), "clEnqueueUnmapMemObject");
  cold_cache_check(clFinish(queue_), "clFinish");
}

void ClColdCache::fill() {
  if (fill_ == nullptr) {
    cl_ulong cache = 0;
    clGetDeviceInfo(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, nullptr);
    fill_bytes_ = std::max<std::size_t>(2 * static_cast<std::size_t>(cache), std::size_t{8} << 20) / 4 * 4;
    cl_int err = CL_SUCCESS;
    fill_ = clCreateBuffer(context_, CL_MEM_READ_WRITE, fill_bytes_, nullptr, &err);
    cold_cache_check(err, "clCreateBuffer");
  }
  const cl_uint value = ++fill_value_;
  cold_cache_check(clEnqueueFillBuffer(queue_, fill_, &value, sizeof value, 0, fill_bytes_, 0, nullptr, nullptr),
                   "clEnqueueFillBuffer");
  cold_cache_check(clFinish(queue_), "clFinish");
}

}  // namespace pimg
