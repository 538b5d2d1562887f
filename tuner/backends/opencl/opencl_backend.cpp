// OpenCL backend over the C API: devices found across ICD platforms (cl_devices.cpp), program builds cached in
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
#include "cl_devices.hpp"
#include "pimg/cache.hpp"
#include "pimg/config.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

using cl_detail::all_devices;
using cl_detail::check;
using cl_detail::ClDeviceRef;
using cl_detail::ClError;
using cl_detail::ClPtr;
using cl_detail::describe;
using cl_detail::platforms;
using cl_detail::trim_nul;

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
    // transfer only reads the bytes of an upload.
    transfer(static_cast<ClBuffer&>(dst), const_cast<std::uint8_t*>(src.data()), src.size(), true);
  }

  void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) override {
    transfer(static_cast<const ClBuffer&>(src), dst.data(), dst.size(), false);
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
  // Upload (`write`: bytes into b) or download (bytes out of b) of `size` bytes, blocking: a buffer takes up to its
  // size, an image exactly its size.
  void transfer(const ClBuffer& b, std::uint8_t* bytes, std::size_t size, bool write) {
    auto wrong_size = [&](const char* kind) {
      return std::runtime_error(write ? fmt::format("upload of {} bytes into {} of {}", size, kind, b.size())
                                      : fmt::format("download of {} bytes from {} of {}", size, kind, b.size()));
    };
    if (size > b.size()) throw wrong_size("a buffer");
    if (size == 0) return;
    if (b.is_image()) {
      if (size != b.size()) throw wrong_size("an image");
      const std::size_t origin[3] = {0, 0, 0};
      const std::size_t region[3] = {static_cast<std::size_t>(b.width), static_cast<std::size_t>(b.height), 1};
      if (write)
        check(clEnqueueWriteImage(queue_.get(), b.mem.get(), CL_TRUE, origin, region, 0, 0, bytes, 0, nullptr, nullptr),
              "clEnqueueWriteImage");
      else
        check(clEnqueueReadImage(queue_.get(), b.mem.get(), CL_TRUE, origin, region, 0, 0, bytes, 0, nullptr, nullptr),
              "clEnqueueReadImage");
    } else if (write) {
      check(clEnqueueWriteBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, size, bytes, 0, nullptr, nullptr),
            "clEnqueueWriteBuffer");
    } else {
      check(clEnqueueReadBuffer(queue_.get(), b.mem.get(), CL_TRUE, 0, size, bytes, 0, nullptr, nullptr),
            "clEnqueueReadBuffer");
    }
  }

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

  // A grid-stride read of 16-byte vectors, each work-group writing its sum (kernels/copy/read.cl; the ceiling
  // sweeps its geometry), and the same read with each work item writing its own sum (no barrier), grid-stride or a
  // contiguous run per item (what a CPU device runs best), at least 64 vectors an item.
  std::optional<CopyKernel> read_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/read.cl");
    const std::size_t vectors = bytes / 16;
    if (!source || vectors == 0 || vectors > static_cast<std::size_t>(std::numeric_limits<cl_int>::max()))
      return std::nullopt;
    CopyKernel k{*source, {}, {}};
    k.plan.entry = "read_vec";
    k.plan.dims = 1;
    const std::size_t group = 256;
    k.plan.global = {std::min<std::size_t>((vectors + group - 1) / group * group, std::size_t{1} << 20), 1, 1};
    k.plan.local = {group, 1, 1};
    k.plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(vectors))};
    for (std::size_t items : {std::size_t{1} << 10, std::size_t{1} << 12, std::size_t{1} << 14, std::size_t{1} << 16})
      for (std::size_t local : {64u, 256u}) {
        const std::size_t global = std::min(items, std::max<std::size_t>(vectors / 64, 1) + local - 1) / local * local;
        if (global == 0 || (items > (std::size_t{1} << 10) && global < items)) continue;  // the same plan again
        for (const char* entry : {"read_each", "read_chunk"}) {
          LaunchPlan p = k.plan;
          p.entry = entry;
          p.local = {local, 1, 1};
          p.global = {global, 1, 1};
          k.more.push_back(p);
        }
      }
    return k;
  }
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend() { return std::make_unique<OpenClBackend>(); }

}  // namespace pimg