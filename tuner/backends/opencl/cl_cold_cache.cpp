// Cold runs on an OpenCL device (cl_cold_cache.hpp).
#include "cl_cold_cache.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "pimg/cache_flush.hpp"
#include "pimg/registry.hpp"

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

ClColdCache::ClColdCache(cl_context context, cl_command_queue queue, cl_device_id device, How how)
    : context_(context),
      queue_(queue),
      device_(device),
      evict_(how == How::automatic && can_flush_cache_lines() && host_memory_device(device)) {}

ClColdCache::~ClColdCache() {
  if (kernel_ != nullptr) clReleaseKernel(kernel_);
  if (program_ != nullptr) clReleaseProgram(program_);
  if (words_ != nullptr) clReleaseMemObject(words_);
}

void ClColdCache::track(const std::shared_ptr<DeviceBuffer>& owner, cl_mem mem, std::size_t bytes, int width,
                        int height) {
  if (!evict_) return;
  std::erase_if(live_, [](const Tracked& t) { return t.owner.expired(); });
  live_.push_back({owner, mem, bytes, width, height});
}

void ClColdCache::before_cold_run() {
  if (!evict_) return sweep();
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

// The buffer (filled once with one byte value: its words' xor is 0, so `never` = 1 keeps the sink unwritten),
// the sweep kernel, and a first sweep that writes the fill's own dirty lines back before any cold run.
void ClColdCache::make_sweep() {
  const KernelSource* source = kernel_source("timing/cache_sweep.cl");
  if (source == nullptr) throw std::runtime_error("the cache sweep kernel timing/cache_sweep.cl is not embedded");
  cl_int err = CL_SUCCESS;
  if (words_ == nullptr) {  // each step once: a call after a failure goes on where it failed
    cl_ulong cache = 0;
    cl_uint units = 1;
    clGetDeviceInfo(device_, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, nullptr);
    clGetDeviceInfo(device_, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr);
    const std::size_t bytes = std::max<std::size_t>(2 * static_cast<std::size_t>(cache), std::size_t{8} << 20) / 16 * 16;
    words_ = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes + 16, nullptr, &err);
    cold_cache_check(err, "clCreateBuffer");
    words_bytes_ = bytes;
    global_ = static_cast<std::size_t>(std::max<cl_uint>(units, 1)) * 2048;
    const cl_uchar value = 0x5a;
    cold_cache_check(clEnqueueFillBuffer(queue_, words_, &value, 1, 0, bytes + 16, 0, nullptr, nullptr),
                     "clEnqueueFillBuffer");
  }
  if (program_ == nullptr) {
    const char* text = source->text.c_str();
    const std::size_t length = source->text.size();
    cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &err);
    cold_cache_check(err, "clCreateProgramWithSource");
    if (clBuildProgram(program, 1, &device_, "", nullptr, nullptr) != CL_SUCCESS) {
      std::size_t size = 0;
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      clReleaseProgram(program);
      throw std::runtime_error("building the cache sweep kernel: " + log);
    }
    program_ = program;
  }
  cl_kernel kernel = clCreateKernel(program_, "pimg_cache_sweep", &err);
  cold_cache_check(err, "clCreateKernel");
  const cl_ulong n = words_bytes_ / 16;
  const cl_uint never = 1;
  if (clSetKernelArg(kernel, 0, sizeof words_, &words_) != CL_SUCCESS ||
      clSetKernelArg(kernel, 1, sizeof n, &n) != CL_SUCCESS || clSetKernelArg(kernel, 2, sizeof never, &never) != CL_SUCCESS) {
    clReleaseKernel(kernel);
    throw std::runtime_error("clSetKernelArg (cache flush): the sweep kernel's arguments were refused");
  }
  kernel_ = kernel;
  cold_cache_check(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global_, nullptr, 0, nullptr, nullptr),
                   "clEnqueueNDRangeKernel");
}

void ClColdCache::sweep() {
  if (kernel_ == nullptr) make_sweep();
  cold_cache_check(clEnqueueNDRangeKernel(queue_, kernel_, 1, nullptr, &global_, nullptr, 0, nullptr, nullptr),
                   "clEnqueueNDRangeKernel");
  cold_cache_check(clFinish(queue_), "clFinish");
}

}  // namespace pimg
