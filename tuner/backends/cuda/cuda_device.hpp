// The CUDA device (cuda_device.cpp, opened by cuda_backend.cpp) and the objects it makes and hands out: the primary
// context each holds, buffers and images, NVRTC programs, native calls, and the pinned staging of transfers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "cuda_driver.hpp"
#include "cuda_library.hpp"
#include "pimg/backend.hpp"

namespace pimg::cuda_detail {

// The primary context of one device, retained while anything made on it lives (buffers and programs
// hold it), and made current on the calling thread before every use.
class Context {
 public:
  explicit Context(int ordinal) {
    check(api().cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    check(api().cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    make_current();
  }
  ~Context() {
    bind();
    loaded().cuCtxSynchronize();
    loaded().cuDevicePrimaryCtxRelease(device_);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  void make_current() const { check(api().cuCtxSetCurrent(context_), "cuCtxSetCurrent"); }
  void bind() const noexcept { loaded().cuCtxSetCurrent(context_); }  // for destructors
  CUdevice device() const { return device_; }

 private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
};

class CuBuffer final : public DeviceBuffer {
 public:
  CuBuffer(std::shared_ptr<const Context> ctx, std::size_t bytes) : ctx_(std::move(ctx)), bytes_(bytes) {}
  ~CuBuffer() override {
    ctx_->bind();
    if (texture) loaded().cuTexObjectDestroy(texture);
    if (array) loaded().cuArrayDestroy(array);
    if (ptr) loaded().cuMemFree(ptr);
  }
  CuBuffer(const CuBuffer&) = delete;
  CuBuffer& operator=(const CuBuffer&) = delete;
  std::size_t size() const override { return bytes_; }
  bool is_image() const { return array != nullptr; }

  CUdeviceptr ptr = 0;          // plain buffers
  CUarray array = nullptr;      // images: the texels
  CUtexObject texture = 0;      // and the texture object kernels read
  int width = 0, height = 0;    // image texels

 private:
  std::shared_ptr<const Context> ctx_;
  std::size_t bytes_;
};

// A module compiled by NVRTC and the one function a plan launches.
class CuProgram final : public Program {
 public:
  explicit CuProgram(std::shared_ptr<const Context> ctx) : ctx_(std::move(ctx)) {}
  ~CuProgram() override {
    ctx_->bind();
    if (module) loaded().cuModuleUnload(module);
  }
  CuProgram(const CuProgram&) = delete;
  CuProgram& operator=(const CuProgram&) = delete;

  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::size_t dynamic_shared_allowed = 0;  // bytes of dynamic shared memory the function was opted in to

 private:
  std::shared_ptr<const Context> ctx_;
};

// A native call (cuda_library.hpp) made for one configuration.
class LibraryProgram final : public Program {
 public:
  LibraryProgram(std::shared_ptr<const Context> ctx, std::unique_ptr<cuda::LibraryCall> c)
      : call(std::move(c)), ctx_(std::move(ctx)) {}
  ~LibraryProgram() override {
    ctx_->bind();
    call.reset();
  }
  LibraryProgram(const LibraryProgram&) = delete;
  LibraryProgram& operator=(const LibraryProgram&) = delete;

  std::unique_ptr<cuda::LibraryCall> call;

 private:
  std::shared_ptr<const Context> ctx_;
};

// Page-locked host memory that uploads and downloads pass through when the plan asks for pinned
// transfers; grown on demand, freed with the device.
class PinnedStaging {
 public:
  ~PinnedStaging() {
    if (ptr_) loaded().cuMemFreeHost(ptr_);
  }
  std::uint8_t* get(std::size_t bytes) {
    if (bytes > size_) {
      if (ptr_) api().cuMemFreeHost(ptr_);
      ptr_ = nullptr;
      size_ = 0;
      check(api().cuMemHostAlloc(&ptr_, bytes, 0), "cuMemHostAlloc");
      size_ = bytes;
    }
    return static_cast<std::uint8_t*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
  std::size_t size_ = 0;
};
// Opens device `ordinal` (its current DeviceInfo `info`) for compiles, buffers and launches.
std::unique_ptr<Device> open_cuda_device(DeviceInfo info, int ordinal);

}  // namespace pimg::cuda_detail
