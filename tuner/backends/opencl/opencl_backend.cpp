// OpenCL backend over the C API: device discovery across ICD platforms, program builds cached in
// memory (per opened device) and on disk (program binaries, pimg/cache.hpp sub "opencl"), buffers
// and 1-byte images, and launches timed by profiling events. CL errors never escape launch().
#define CL_TARGET_OPENCL_VERSION 120
#include "opencl_backend.hpp"

#include <CL/cl.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <thread>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "cl_cold_cache.hpp"
#include "pimg/cache.hpp"
#include "pimg/config.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

std::string cl_error_name(cl_int e) {
  const char* name = "unknown OpenCL error";
  switch (e) {
    case CL_DEVICE_NOT_FOUND: name = "CL_DEVICE_NOT_FOUND"; break;
    case CL_DEVICE_NOT_AVAILABLE: name = "CL_DEVICE_NOT_AVAILABLE"; break;
    case CL_COMPILER_NOT_AVAILABLE: name = "CL_COMPILER_NOT_AVAILABLE"; break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: name = "CL_MEM_OBJECT_ALLOCATION_FAILURE"; break;
    case CL_OUT_OF_RESOURCES: name = "CL_OUT_OF_RESOURCES"; break;
    case CL_OUT_OF_HOST_MEMORY: name = "CL_OUT_OF_HOST_MEMORY"; break;
    case CL_PROFILING_INFO_NOT_AVAILABLE: name = "CL_PROFILING_INFO_NOT_AVAILABLE"; break;
    case CL_MEM_COPY_OVERLAP: name = "CL_MEM_COPY_OVERLAP"; break;
    case CL_IMAGE_FORMAT_MISMATCH: name = "CL_IMAGE_FORMAT_MISMATCH"; break;
    case CL_IMAGE_FORMAT_NOT_SUPPORTED: name = "CL_IMAGE_FORMAT_NOT_SUPPORTED"; break;
    case CL_BUILD_PROGRAM_FAILURE: name = "CL_BUILD_PROGRAM_FAILURE"; break;
    case CL_MAP_FAILURE: name = "CL_MAP_FAILURE"; break;
    case CL_MISALIGNED_SUB_BUFFER_OFFSET: name = "CL_MISALIGNED_SUB_BUFFER_OFFSET"; break;
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST: name = "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"; break;
    case CL_COMPILE_PROGRAM_FAILURE: name = "CL_COMPILE_PROGRAM_FAILURE"; break;
    case CL_LINKER_NOT_AVAILABLE: name = "CL_LINKER_NOT_AVAILABLE"; break;
    case CL_LINK_PROGRAM_FAILURE: name = "CL_LINK_PROGRAM_FAILURE"; break;
    case CL_DEVICE_PARTITION_FAILED: name = "CL_DEVICE_PARTITION_FAILED"; break;
    case CL_KERNEL_ARG_INFO_NOT_AVAILABLE: name = "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"; break;
    case CL_INVALID_VALUE: name = "CL_INVALID_VALUE"; break;
    case CL_INVALID_DEVICE_TYPE: name = "CL_INVALID_DEVICE_TYPE"; break;
    case CL_INVALID_PLATFORM: name = "CL_INVALID_PLATFORM"; break;
    case CL_INVALID_DEVICE: name = "CL_INVALID_DEVICE"; break;
    case CL_INVALID_CONTEXT: name = "CL_INVALID_CONTEXT"; break;
    case CL_INVALID_QUEUE_PROPERTIES: name = "CL_INVALID_QUEUE_PROPERTIES"; break;
    case CL_INVALID_COMMAND_QUEUE: name = "CL_INVALID_COMMAND_QUEUE"; break;
    case CL_INVALID_HOST_PTR: name = "CL_INVALID_HOST_PTR"; break;
    case CL_INVALID_MEM_OBJECT: name = "CL_INVALID_MEM_OBJECT"; break;
    case CL_INVALID_IMAGE_FORMAT_DESCRIPTOR: name = "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"; break;
    case CL_INVALID_IMAGE_SIZE: name = "CL_INVALID_IMAGE_SIZE"; break;
    case CL_INVALID_SAMPLER: name = "CL_INVALID_SAMPLER"; break;
    case CL_INVALID_BINARY: name = "CL_INVALID_BINARY"; break;
    case CL_INVALID_BUILD_OPTIONS: name = "CL_INVALID_BUILD_OPTIONS"; break;
    case CL_INVALID_PROGRAM: name = "CL_INVALID_PROGRAM"; break;
    case CL_INVALID_PROGRAM_EXECUTABLE: name = "CL_INVALID_PROGRAM_EXECUTABLE"; break;
    case CL_INVALID_KERNEL_NAME: name = "CL_INVALID_KERNEL_NAME"; break;
    case CL_INVALID_KERNEL_DEFINITION: name = "CL_INVALID_KERNEL_DEFINITION"; break;
    case CL_INVALID_KERNEL: name = "CL_INVALID_KERNEL"; break;
    case CL_INVALID_ARG_INDEX: name = "CL_INVALID_ARG_INDEX"; break;
    case CL_INVALID_ARG_VALUE: name = "CL_INVALID_ARG_VALUE"; break;
    case CL_INVALID_ARG_SIZE: name = "CL_INVALID_ARG_SIZE"; break;
    case CL_INVALID_KERNEL_ARGS: name = "CL_INVALID_KERNEL_ARGS"; break;
    case CL_INVALID_WORK_DIMENSION: name = "CL_INVALID_WORK_DIMENSION"; break;
    case CL_INVALID_WORK_GROUP_SIZE: name = "CL_INVALID_WORK_GROUP_SIZE"; break;
    case CL_INVALID_WORK_ITEM_SIZE: name = "CL_INVALID_WORK_ITEM_SIZE"; break;
    case CL_INVALID_GLOBAL_OFFSET: name = "CL_INVALID_GLOBAL_OFFSET"; break;
    case CL_INVALID_EVENT_WAIT_LIST: name = "CL_INVALID_EVENT_WAIT_LIST"; break;
    case CL_INVALID_EVENT: name = "CL_INVALID_EVENT"; break;
    case CL_INVALID_OPERATION: name = "CL_INVALID_OPERATION"; break;
    case CL_INVALID_GL_OBJECT: name = "CL_INVALID_GL_OBJECT"; break;
    case CL_INVALID_BUFFER_SIZE: name = "CL_INVALID_BUFFER_SIZE"; break;
    case CL_INVALID_MIP_LEVEL: name = "CL_INVALID_MIP_LEVEL"; break;
    case CL_INVALID_GLOBAL_WORK_SIZE: name = "CL_INVALID_GLOBAL_WORK_SIZE"; break;
    case CL_INVALID_PROPERTY: name = "CL_INVALID_PROPERTY"; break;
    case CL_INVALID_IMAGE_DESCRIPTOR: name = "CL_INVALID_IMAGE_DESCRIPTOR"; break;
    case CL_INVALID_COMPILER_OPTIONS: name = "CL_INVALID_COMPILER_OPTIONS"; break;
    case CL_INVALID_LINKER_OPTIONS: name = "CL_INVALID_LINKER_OPTIONS"; break;
    case CL_INVALID_DEVICE_PARTITION_COUNT: name = "CL_INVALID_DEVICE_PARTITION_COUNT"; break;
    case -1001: name = "CL_PLATFORM_NOT_FOUND_KHR"; break;
    default: break;
  }
  return fmt::format("{} ({})", name, e);
}

// A failed CL call, named: "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)".
class ClError : public std::runtime_error {
 public:
  ClError(const char* call, cl_int code)
      : std::runtime_error(fmt::format("{}: {}", call, cl_error_name(code))), code_(code) {}
  cl_int code() const { return code_; }

 private:
  cl_int code_;
};

void check(cl_int err, const char* call) {
  if (err != CL_SUCCESS) throw ClError(call, err);
}

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

std::string trim_nul(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  std::size_t n = 0;
  check(clGetPlatformInfo(p, what, 0, nullptr, &n), "clGetPlatformInfo");
  std::string s(n, '\0');
  check(clGetPlatformInfo(p, what, n, s.data(), nullptr), "clGetPlatformInfo");
  return trim_nul(std::move(s));
}

std::string device_string(cl_device_id d, cl_device_info what) {
  std::size_t n = 0;
  check(clGetDeviceInfo(d, what, 0, nullptr, &n), "clGetDeviceInfo");
  std::string s(n, '\0');
  check(clGetDeviceInfo(d, what, n, s.data(), nullptr), "clGetDeviceInfo");
  return trim_nul(std::move(s));
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
  return v;
}

struct ClDeviceRef {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
};

std::vector<cl_platform_id> platforms() {
  cl_uint n = 0;
  check(clGetPlatformIDs(0, nullptr, &n), "clGetPlatformIDs");
  std::vector<cl_platform_id> ids(n);
  if (n) check(clGetPlatformIDs(n, ids.data(), nullptr), "clGetPlatformIDs");
  return ids;
}

// Every device of every platform, in platform order: the position is the device index.
std::vector<ClDeviceRef> all_devices() {
  std::vector<ClDeviceRef> out;
  for (cl_platform_id p : platforms()) {
    cl_uint n = 0;
    cl_int err = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &n);
    if (err == CL_DEVICE_NOT_FOUND || n == 0) continue;
    check(err, "clGetDeviceIDs");
    std::vector<cl_device_id> ids(n);
    check(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr), "clGetDeviceIDs");
    for (cl_device_id d : ids) out.push_back({p, d});
  }
  return out;
}

// The device's PCI address as the limits pci_domain_id, pci_bus_id and pci_device_id (the CUDA backend's names),
// where the driver tells it: cl_khr_pci_bus_info, else NVIDIA's cl_nv_device_attribute_query (bus, and device and
// function packed in the slot; the domain where the driver answers, else 0). Observers that find a device by its
// address (NVML's power, clocks and throttling) then observe it whichever API runs it.
void add_pci_address(cl_device_id d, std::map<std::string, double>& l) {
  const std::string ext = device_string(d, CL_DEVICE_EXTENSIONS);
  if (ext.find("cl_khr_pci_bus_info") != std::string::npos) {
    cl_uint info[4] = {};  // cl_device_pci_bus_info_khr: domain, bus, device, function
    if (clGetDeviceInfo(d, 0x410F /* CL_DEVICE_PCI_BUS_INFO_KHR */, sizeof info, info, nullptr) == CL_SUCCESS) {
      l["pci_domain_id"] = info[0];
      l["pci_bus_id"] = info[1];
      l["pci_device_id"] = info[2];
      return;
    }
  }
  if (ext.find("cl_nv_device_attribute_query") != std::string::npos) {
    cl_uint bus = 0, slot = 0, domain = 0;
    if (clGetDeviceInfo(d, 0x4008 /* CL_DEVICE_PCI_BUS_ID_NV */, sizeof bus, &bus, nullptr) != CL_SUCCESS ||
        clGetDeviceInfo(d, 0x4009 /* CL_DEVICE_PCI_SLOT_ID_NV */, sizeof slot, &slot, nullptr) != CL_SUCCESS)
      return;
    if (clGetDeviceInfo(d, 0x400A /* CL_DEVICE_PCI_DOMAIN_ID_NV */, sizeof domain, &domain, nullptr) != CL_SUCCESS)
      domain = 0;
    l["pci_domain_id"] = domain;
    l["pci_bus_id"] = bus & 0xff;
    l["pci_device_id"] = (slot >> 3) & 0x1f;
  }
}

DeviceInfo describe(const ClDeviceRef& ref, int index) {
  const cl_device_id d = ref.device;
  DeviceInfo info;
  info.backend = "opencl";
  info.index = index;
  info.name = device_string(d, CL_DEVICE_NAME);
  info.vendor = device_string(d, CL_DEVICE_VENDOR);
  info.driver = device_string(d, CL_DRIVER_VERSION);
  info.platform =
      platform_string(ref.platform, CL_PLATFORM_NAME) + " " + platform_string(ref.platform, CL_PLATFORM_VERSION);
  info.compute_units = static_cast<int>(device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.global_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  info.local_mem_bytes = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
  info.max_work_group_size = static_cast<std::int64_t>(device_value<std::size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE));

  const auto dims = device_value<cl_uint>(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
  std::vector<std::size_t> item_sizes(dims);
  check(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(std::size_t), item_sizes.data(), nullptr),
        "clGetDeviceInfo");
  item_sizes.resize(3, 1);

  auto& l = info.limits;
  l["max_work_group_size"] = static_cast<double>(info.max_work_group_size);
  l["local_mem_size"] = static_cast<double>(info.local_mem_bytes);
  l["compute_units"] = info.compute_units;
  l["global_mem_size"] = static_cast<double>(info.global_mem_bytes);
  l["device_type_cpu"] = (device_value<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_CPU) ? 1 : 0;
  info.caps.host_cores = l["device_type_cpu"] > 0;
  info.caps.check_source = "check/check.cl";
  // PoCL's CPU devices generate a kernel's work-group function at its first launch of a work-group size (about
  // 0.1-0.3 s each for the conv kernels) and hold one compiler lock per process: two threads build no faster than
  // one (measured with PoCL 3.1, docs/measurement.md).
  info.caps.compiles_at_first_launch =
      info.caps.host_cores && platform_string(ref.platform, CL_PLATFORM_NAME).find("Portable Computing Language") !=
                                  std::string::npos;
  l["max_constant_buffer_size"] = static_cast<double>(device_value<cl_ulong>(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE));
  l["max_work_item_size_0"] = static_cast<double>(item_sizes[0]);
  l["max_work_item_size_1"] = static_cast<double>(item_sizes[1]);
  l["max_work_item_size_2"] = static_cast<double>(item_sizes[2]);
  l["image_support"] = device_value<cl_bool>(d, CL_DEVICE_IMAGE_SUPPORT) ? 1 : 0;
  l["image2d_max_width"] = static_cast<double>(device_value<std::size_t>(d, CL_DEVICE_IMAGE2D_MAX_WIDTH));
  l["image2d_max_height"] = static_cast<double>(device_value<std::size_t>(d, CL_DEVICE_IMAGE2D_MAX_HEIGHT));
  add_pci_address(d, l);
  return info;
}

class ClProgram final : public Program {
 public:
  ClPtr<cl_program> program;  // declared first: released after the kernel
  ClPtr<cl_kernel> kernel;
};

class ClBuffer final : public DeviceBuffer {
 public:
  ClBuffer(ClPtr<cl_mem> m, std::size_t bytes, int w = 0, int h = 0)
      : mem(std::move(m)), width(w), height(h), bytes_(bytes) {}
  std::size_t size() const override { return bytes_; }
  bool is_image() const { return width > 0; }

  ClPtr<cl_mem> mem;
  int width, height;  // image texels; 0 for plain buffers

 private:
  std::size_t bytes_;
};

// One options string for the compiler: "-D NAME=VALUE ..." then the plan's own options. No -cl-std:
// without it every device compiles OpenCL C 1.2 (its highest 1.x), which is what the kernels use.
std::string build_options(const LaunchPlan& plan) {
  std::string out;
  for (const auto& [name, value] : plan.defines) out += fmt::format("{}-D {}={}", out.empty() ? "" : " ", name, value);
  for (const auto& o : plan.options) out += (out.empty() ? "" : " ") + o;
  return out;
}

class ClDevice final : public Device {
 public:
  ClDevice(DeviceInfo info, const ClDeviceRef& ref) : info_(std::move(info)), device_(ref.device) {
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(ref.platform), 0};
    cl_int err = CL_SUCCESS;
    context_.reset(clCreateContext(props, 1, &device_, nullptr, nullptr, &err));
    check(err, "clCreateContext");
    queue_.reset(clCreateCommandQueue(context_.get(), device_, CL_QUEUE_PROFILING_ENABLE, &err));
    check(err, "clCreateCommandQueue");
    cold_ = std::make_unique<ClColdCache>(context_.get(), queue_.get(), device_);
  }

  ~ClDevice() override { clFinish(queue_.get()); }

  const DeviceInfo& info() const override { return info_; }

  CompileResult compile(const KernelSource& source, const LaunchPlan& plan) override {
    const auto t0 = std::chrono::steady_clock::now();
    CompileResult r;
    try {
      compile_into(r, source, plan);
    } catch (const std::exception& e) {
      r.program.reset();
      r.log += (r.log.empty() ? "" : "\n") + std::string(e.what());
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  std::shared_ptr<DeviceBuffer> alloc(std::size_t bytes) override {
    cl_int err = CL_SUCCESS;
    // OpenCL has no empty buffers: a zero-byte request gets one byte and reports size 0.
    ClPtr<cl_mem> mem(clCreateBuffer(context_.get(), CL_MEM_READ_WRITE, bytes ? bytes : 1, nullptr, &err));
    check(err, "clCreateBuffer");
    const cl_mem handle = mem.get();
    auto b = std::make_shared<ClBuffer>(std::move(mem), bytes);
    cold_->track(b, handle, bytes, 0, 0);
    return b;
  }

  std::shared_ptr<DeviceBuffer> alloc_image(int width, int height) override {
    if (width <= 0 || height <= 0) throw std::runtime_error(fmt::format("image of {}x{} texels", width, height));
    const cl_image_format format{CL_R, CL_UNSIGNED_INT8};
    cl_image_desc desc{};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = static_cast<std::size_t>(width);
    desc.image_height = static_cast<std::size_t>(height);
    cl_int err = CL_SUCCESS;
    ClPtr<cl_mem> mem(clCreateImage(context_.get(), CL_MEM_READ_ONLY, &format, &desc, nullptr, &err));
    check(err, "clCreateImage");
    const cl_mem handle = mem.get();
    const std::size_t bytes = static_cast<std::size_t>(width) * height;
    auto b = std::make_shared<ClBuffer>(std::move(mem), bytes, width, height);
    cold_->track(b, handle, bytes, width, height);
    return b;
  }

  void upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) override {
    auto& b = static_cast<ClBuffer&>(dst);
    if (src.size() > b.size())
      throw std::runtime_error(fmt::format("upload of {} bytes into a buffer of {}", src.size(), b.size()));
    if (src.empty()) return;
    if (b.is_image()) {
      if (src.size() != b.size())
        throw std::runtime_error(fmt::format("upload of {} bytes into an image of {}", src.size(), b.size()));
      const std::size_t origin[3] = {0, 0, 0};
      const std::size_t region[3] = {static_cast<std::size_t>(b.width), static_cast<std::size_t>(b.height), 1};
      check(clEnqueueWriteImage(queue_.get(), b.mem.get(), CL_TRUE, origin, region, 0, 0, src.data(), 0, nullptr,
                                nullptr),
            "clEnqueueWriteImage");
    } else {
      check(clEnqueueWriteBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, src.size(), src.data(), 0, nullptr, nullptr),
            "clEnqueueWriteBuffer");
    }
  }

  void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) override {
    const auto& b = static_cast<const ClBuffer&>(src);
    if (dst.size() > b.size())
      throw std::runtime_error(fmt::format("download of {} bytes from a buffer of {}", dst.size(), b.size()));
    if (dst.empty()) return;
    if (b.is_image()) {
      if (dst.size() != b.size())
        throw std::runtime_error(fmt::format("download of {} bytes from an image of {}", dst.size(), b.size()));
      const std::size_t origin[3] = {0, 0, 0};
      const std::size_t region[3] = {static_cast<std::size_t>(b.width), static_cast<std::size_t>(b.height), 1};
      check(clEnqueueReadImage(queue_.get(), b.mem.get(), CL_TRUE, origin, region, 0, 0, dst.data(), 0, nullptr,
                               nullptr),
            "clEnqueueReadImage");
    } else {
      check(clEnqueueReadBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, dst.size(), dst.data(), 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
    }
  }

  void fill(DeviceBuffer& dst, std::uint8_t value) override {
    auto& b = static_cast<ClBuffer&>(dst);
    if (b.size() == 0) return;
    if (b.is_image()) {
      const std::vector<std::uint8_t> bytes(b.size(), value);
      upload(b, bytes);
      return;
    }
    check(clEnqueueFillBuffer(queue_.get(), b.mem.get(), &value, 1, 0, b.size(), 0, nullptr, nullptr),
          "clEnqueueFillBuffer");
    check(clFinish(queue_.get()), "clFinish");
  }

  // Kernel time from profiling events (queued to started-to-ended on the device: the host's launch
  // latency is outside it); cold runs first evict or overwrite what the caches hold (cl_cold_cache.hpp).
  void begin_timing(const TimingMethod& method, bool) override {
    if (method.cold) cold_->before_cold_run();
  }

  std::string timing_method(const TimingMethod& method, bool region) const override {
    return std::string("opencl-profiling ") + (method.cold ? cold_->method() : "hot") + (region ? "" : " (host steps)");
  }

  void download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst) override {
    const auto& b = static_cast<const ClBuffer&>(src);
    if (b.is_image() || offset > b.size() || dst.size() > b.size() - offset)
      throw std::runtime_error(fmt::format("download of bytes {}..{} of a buffer of {}", offset, offset + dst.size(),
                                           b.size()));
    if (dst.empty()) return;
    check(clEnqueueReadBuffer(queue_.get(), b.mem.get(), CL_TRUE, offset, dst.size(), dst.data(), 0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }

  LaunchResult copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) override {
    LaunchResult r;
    try {
      auto& d = static_cast<ClBuffer&>(dst);
      const auto& s = static_cast<const ClBuffer&>(src);
      if (d.is_image() || s.is_image() || d.size() != s.size())
        throw std::runtime_error("copy_buffer needs two buffers of one size");
      cl_event raw = nullptr;
      check(clEnqueueCopyBuffer(queue_.get(), s.mem.get(), d.mem.get(), 0, 0, s.size(), 0, nullptr, &raw),
            "clEnqueueCopyBuffer");
      ClPtr<cl_event> event(raw);
      r.kernel_ms = elapsed(raw);
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  }

  LaunchResult launch(Program& program, const LaunchPlan& plan,
                      const std::map<std::string, DeviceBuffer*>& buffers) override {
    LaunchResult r;
    try {
      r.kernel_ms = run(dynamic_cast<ClProgram&>(program).kernel.get(), plan, buffers);
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  }

 private:
  struct Built {
    std::shared_ptr<ClProgram> program;
    std::string log;
  };

  std::string build_log(cl_program p) const {
    std::size_t n = 0;
    if (clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS) return {};
    std::string s(n, '\0');
    if (clGetProgramBuildInfo(p, device_, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr) != CL_SUCCESS) return {};
    return trim_nul(std::move(s));
  }

  // Builds a program object from source or binary; null (with the log filled) when the build fails.
  ClPtr<cl_program> build(ClPtr<cl_program> p, const std::string& options, std::string& log) const {
    const cl_int err = clBuildProgram(p.get(), 1, &device_, options.c_str(), nullptr, nullptr);
    log = build_log(p.get());
    if (err == CL_SUCCESS) return p;
    log += std::string(log.empty() ? "" : "\n") + ClError("clBuildProgram", err).what();
    return nullptr;
  }

  ClPtr<cl_program> build_from_binary(const std::vector<unsigned char>& bin, const std::string& options,
                                      std::string& log) const {
    const std::size_t len = bin.size();
    const unsigned char* data = bin.data();
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    ClPtr<cl_program> p(clCreateProgramWithBinary(context_.get(), 1, &device_, &len, &data, &status, &err));
    if (err != CL_SUCCESS || status != CL_SUCCESS) return nullptr;
    return build(std::move(p), options, log);
  }

  std::vector<unsigned char> program_binary(cl_program p) const {
    std::size_t len = 0;
    check(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, nullptr), "clGetProgramInfo");
    std::vector<unsigned char> bin(len);
    unsigned char* data = bin.data();
    if (len) check(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr), "clGetProgramInfo");
    return bin;
  }

  void compile_into(CompileResult& r, const KernelSource& source, const LaunchPlan& plan) {
    const std::string options = build_options(plan);
    const std::string key =
        hash128(source.hash + "\n" + options + "\n" + info_.name + "\n" + info_.driver + "\n" + info_.platform);
    const std::string memory_key = key + "/" + plan.entry;
    if (auto it = programs_.find(memory_key); it != programs_.end()) {
      r.program = it->second.program;
      r.log = it->second.log;
      r.cached = true;
      return;
    }

    ClPtr<cl_program> prog;
    if (auto bin = cache_read("opencl", key)) {
      prog = build_from_binary(*bin, options, r.log);
      r.cached = prog != nullptr;
    }
    if (!prog) {
      const char* text = source.text.c_str();
      const std::size_t len = source.text.size();
      cl_int err = CL_SUCCESS;
      ClPtr<cl_program> fresh(clCreateProgramWithSource(context_.get(), 1, &text, &len, &err));
      check(err, "clCreateProgramWithSource");
      prog = build(std::move(fresh), options, r.log);
      if (!prog) return;
      cache_write("opencl", key, program_binary(prog.get()));
    }

    cl_int err = CL_SUCCESS;
    ClPtr<cl_kernel> kernel(clCreateKernel(prog.get(), plan.entry.c_str(), &err));
    if (err != CL_SUCCESS) {
      r.cached = false;
      r.log += fmt::format("{}no kernel '{}' in {} ({})", r.log.empty() ? "" : "\n", plan.entry, source.path,
                           ClError("clCreateKernel", err).what());
      return;
    }
    auto program = std::make_shared<ClProgram>();
    program->program = std::move(prog);
    program->kernel = std::move(kernel);
    programs_[memory_key] = {program, r.log};
    r.program = std::move(program);
  }

  ClBuffer& find_buffer(const std::map<std::string, DeviceBuffer*>& buffers, const std::string& name) const {
    auto it = buffers.find(name);
    if (it == buffers.end() || !it->second) throw std::runtime_error(fmt::format("no buffer '{}'", name));
    return static_cast<ClBuffer&>(*it->second);
  }

  void set_arg(cl_kernel k, cl_uint index, const KernelArg& a, const std::map<std::string, DeviceBuffer*>& buffers) {
    const std::string what = fmt::format("argument {}", index);
    cl_int err = CL_SUCCESS;
    switch (a.kind) {
      case ArgKind::Buffer:
      case ArgKind::Image2D: {
        ClBuffer& b = find_buffer(buffers, a.buffer);
        const bool want_image = a.kind == ArgKind::Image2D;
        if (b.is_image() != want_image)
          throw std::runtime_error(fmt::format("{} '{}': the kernel takes {} but the device memory is {}", what,
                                               a.buffer, want_image ? "an image" : "a buffer",
                                               b.is_image() ? "an image" : "a buffer"));
        if (want_image && (b.width != a.image_width || b.height != a.image_height))
          throw std::runtime_error(fmt::format("{} '{}': image is {}x{}, the plan says {}x{}", what, a.buffer, b.width,
                                               b.height, a.image_width, a.image_height));
        cl_mem m = b.mem.get();
        err = clSetKernelArg(k, index, sizeof m, &m);
        break;
      }
      case ArgKind::Int: {
        if (a.i < std::numeric_limits<cl_int>::min() || a.i > std::numeric_limits<cl_int>::max())
          throw std::runtime_error(fmt::format("{}: {} does not fit a 32-bit int", what, a.i));
        const auto v = static_cast<cl_int>(a.i);
        err = clSetKernelArg(k, index, sizeof v, &v);
        break;
      }
      case ArgKind::Float: {
        const auto v = static_cast<cl_float>(a.f);
        err = clSetKernelArg(k, index, sizeof v, &v);
        break;
      }
      case ArgKind::Bytes:
        err = clSetKernelArg(k, index, a.bytes.size(), a.bytes.data());
        break;
    }
    if (err != CL_SUCCESS) throw std::runtime_error(what + ": " + ClError("clSetKernelArg", err).what());
  }

  // Sets the arguments, runs the NDRange to completion, returns the profiled kernel time in ms.
  double run(cl_kernel k, const LaunchPlan& plan, const std::map<std::string, DeviceBuffer*>& buffers) {
    if (plan.dims < 1 || plan.dims > 3) throw std::runtime_error(fmt::format("{} launch dimensions", plan.dims));
    if (!plan.symbols.empty()) throw std::runtime_error("OpenCL programs have no device symbols to fill");
    for (std::size_t i = 0; i < plan.args.size(); ++i) set_arg(k, static_cast<cl_uint>(i), plan.args[i], buffers);
    const auto dims = static_cast<cl_uint>(plan.dims);
    bool any_local = false;
    for (cl_uint d = 0; d < dims; ++d) any_local = any_local || plan.local[d] != 0;
    cl_event raw = nullptr;
    check(clEnqueueNDRangeKernel(queue_.get(), k, dims, nullptr, plan.global.data(),
                                 any_local ? plan.local.data() : nullptr, 0, nullptr, &raw),
          "clEnqueueNDRangeKernel");
    ClPtr<cl_event> event(raw);
    return elapsed(raw);
  }

  // Waits for a profiled command and returns its device time in ms; throws when it failed.
  double elapsed(cl_event raw) {
    check(clWaitForEvents(1, &raw), "clWaitForEvents");
    cl_int status = CL_COMPLETE;
    check(clGetEventInfo(raw, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr), "clGetEventInfo");
    if (status < 0) throw ClError("kernel execution", status);
    cl_ulong start = 0, end = 0;
    check(clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
          "clGetEventProfilingInfo");
    check(clGetEventProfilingInfo(raw, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "clGetEventProfilingInfo");
    return static_cast<double>(end - start) * 1e-6;
  }

  DeviceInfo info_;
  cl_device_id device_;
  ClPtr<cl_context> context_;  // members release in reverse: programs, queue, then context
  ClPtr<cl_command_queue> queue_;
  std::map<std::string, Built> programs_;  // memory cache: compile key + entry -> program
  std::unique_ptr<ClColdCache> cold_;  // before context_ and queue_ are released (declared after them)
};

class OpenClBackend final : public Backend {
 public:
  std::string name() const override { return "opencl"; }

  BackendStatus status() const override {
    try {
      if (platforms().empty()) return {false, "no OpenCL platform (clGetPlatformIDs found none)"};
      if (all_devices().empty()) return {false, "OpenCL platforms found, but no device on any of them"};
      return {true, ""};
    } catch (const std::exception& e) {
      return {false, fmt::format("no OpenCL platform ({})", e.what())};
    }
  }

  std::vector<DeviceInfo> devices() const override {
    std::vector<DeviceInfo> out;
    try {
      const auto refs = all_devices();
      for (std::size_t i = 0; i < refs.size(); ++i) out.push_back(describe(refs[i], static_cast<int>(i)));
    } catch (const std::exception&) {
      return {};  // unavailable: status() gives the reason
    }
    return out;
  }

  std::unique_ptr<Device> open(const DeviceInfo& info) const override {
    const auto refs = all_devices();
    if (info.index < 0 || static_cast<std::size_t>(info.index) >= refs.size())
      throw std::runtime_error(fmt::format("no OpenCL device {} ({} found)", info.index, refs.size()));
    const ClDeviceRef& ref = refs[static_cast<std::size_t>(info.index)];
    DeviceInfo current = describe(ref, info.index);
    if (!info.name.empty() && current.name != info.name)
      throw std::runtime_error(
          fmt::format("OpenCL device {} is now '{}', not '{}'", info.index, current.name, info.name));
    return std::make_unique<ClDevice>(std::move(current), ref);
  }

  // The OpenCL compiler into the disk cache of program binaries compile() reads (the same key), without the
  // device that measures: each thread opens its own context on the device once and builds there, one plan
  // after another (the runner's compile pipeline, docs/design.md).
  bool precompiles() const override { return true; }
  std::size_t precompile(const DeviceInfo& info, const KernelSource& source, const std::vector<LaunchPlan>& plans,
                         int threads) const override {
    if (source.native) return 0;
    std::atomic<std::size_t> next{0}, compiled{0};
    // A thread of the runner's pipeline compiles one plan per call: its context is kept for the thread's next
    // calls (released when the pipeline's thread ends); a call with several plans opens one per thread.
    const bool one = plans.size() == 1 && threads <= 1;
    auto work = [&] {
      thread_local std::map<std::string, std::unique_ptr<Device>> pipeline_contexts;
      std::unique_ptr<Device> own;
      std::unique_ptr<Device>& device = one ? pipeline_contexts[info.id() + "\n" + info.name] : own;
      try {
        if (!device) device = open(info);
      } catch (const std::exception&) {
        return;  // compile() reports what is wrong with the device
      }
      for (std::size_t i = next++; i < plans.size(); i = next++) {
        const CompileResult r = device->compile(source, plans[i]);
        if (r.program && !r.cached) ++compiled;
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(std::max(threads, 1), static_cast<int>(plans.size())); ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return compiled;
  }

  // One 16-byte vector per work item; a trailing bytes % 16 remainder is not copied.
  std::optional<CopyKernel> copy_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/copy.cl");
    if (!source || bytes < 16) return std::nullopt;
    CopyKernel k{*source, {}, {}};
    k.plan.entry = "copy_vec";
    k.plan.dims = 1;
    k.plan.global = {bytes / 16, 1, 1};
    k.plan.args = {KernelArg::buf("in"), KernelArg::buf("out")};
    return k;
  }
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<OpenClBackend>(); }

}  // namespace pimg
