// OpenCL device discovery and the C API's plumbing the backend's pieces share (opencl_backend.cpp): errors as
// exceptions (ClError, check), owning handles (ClPtr), the devices of every ICD platform and their DeviceInfo.
#pragma once
#include <CL/cl.h>
#include <fmt/format.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "pimg/backend.hpp"

namespace pimg::cl_detail {

// A CL error code's name: "CL_BUILD_PROGRAM_FAILURE (-11)".
std::string cl_error_name(cl_int e);

// A failed CL call, named: "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)".
class ClError : public std::runtime_error {
 public:
  ClError(const char* call, cl_int code)
      : std::runtime_error(fmt::format("{}: {}", call, cl_error_name(code))), code_(code) {}
  cl_int code() const { return code_; }

 private:
  cl_int code_;
};

// Throws ClError unless `err` is CL_SUCCESS.
void check(cl_int err, const char* call);

// Releases CL objects; used as the deleter of ClPtr, so every handle is freed exactly once.
struct ClRelease {
  void operator()(cl_context h) const { clReleaseContext(h); }
  void operator()(cl_command_queue h) const { clReleaseCommandQueue(h); }
  void operator()(cl_program h) const { clReleaseProgram(h); }
  void operator()(cl_kernel h) const { clReleaseKernel(h); }
  void operator()(cl_mem h) const { clReleaseMemObject(h); }
  void operator()(cl_event h) const { clReleaseEvent(h); }
};
template <class T>
using ClPtr = std::unique_ptr<std::remove_pointer_t<T>, ClRelease>;

// A CL string without its terminating NULs and trailing spaces.
std::string trim_nul(std::string s);

struct ClDeviceRef {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

std::vector<cl_platform_id> platforms();
// Every device of every platform, in platform order: the position is the device index.
std::vector<ClDeviceRef> all_devices();
// The device's DeviceInfo, with `index` its position in all_devices().
DeviceInfo describe(const ClDeviceRef& ref, int index);

}  // namespace pimg::cl_detail
