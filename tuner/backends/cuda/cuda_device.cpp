// The CUDA device: NVRTC compiles through the cubin caches (cubin_cache.hpp), buffers padded to 16 bytes and
// 1-byte texture objects, pinned or pageable transfers, the timed region (CUDA events, a spin kernel that holds
// the queued launches) and launches of kernels and native calls.
// CUDA errors never escape launch() or compile().
#include "cuda_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cubin_cache.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/cache.hpp"
#include "pimg/config.hpp"
#include "pimg/registry.hpp"

namespace pimg::cuda_detail {
namespace {

class CudaDevice final : public Device {
 public:
  CudaDevice(DeviceInfo info, int ordinal) : info_(std::move(info)), ctx_(std::make_shared<Context>(ordinal)) {
    check(api().cuEventCreate(&start_, CU_EVENT_DEFAULT), "cuEventCreate");
    check(api().cuEventCreate(&stop_, CU_EVENT_DEFAULT), "cuEventCreate");
    const CUdevice dev = ctx_->device();
    npp_ctx_.hStream = nullptr;
    npp_ctx_.nCudaDeviceId = ordinal;
    npp_ctx_.nMultiProcessorCount = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    npp_ctx_.nMaxThreadsPerMultiProcessor = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    npp_ctx_.nMaxThreadsPerBlock = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    npp_ctx_.nSharedMemPerBlock =
        static_cast<std::size_t>(attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK));
    npp_ctx_.nCudaDevAttrComputeCapabilityMajor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    npp_ctx_.nCudaDevAttrComputeCapabilityMinor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    npp_ctx_.nStreamFlags = 0;  // the legacy default stream
    npp_ctx_.nReserved0 = 0;
  }

  ~CudaDevice() override {
    ctx_->bind();
    if (spin_flags_) spin_flags_[0] = 1;
    loaded().cuCtxSynchronize();
    if (flush_) loaded().cuMemFree(flush_);
    if (spin_flags_) loaded().cuMemFreeHost(const_cast<int*>(spin_flags_));
    if (start_) loaded().cuEventDestroy(start_);
    if (stop_) loaded().cuEventDestroy(stop_);
  }

  const DeviceInfo& info() const override { return info_; }

  CompileResult compile(const KernelSource& source, const LaunchPlan& plan) override {
    const auto t0 = std::chrono::steady_clock::now();
    CompileResult r;
    try {
      ctx_->make_current();
      pinned_ = cuda::plan_wants_pinned(plan);
      if (source.native)
        r.program = library_program(source.native->name, plan);
      else
        compile_into(r, source, plan);
    } catch (const std::exception& e) {
      r.program.reset();
      r.cached = false;
      r.log += (r.log.empty() ? "" : "\n") + std::string(e.what());
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }

  std::shared_ptr<DeviceBuffer> alloc(std::size_t bytes) override {
    ctx_->make_current();
    auto b = std::make_shared<CuBuffer>(ctx_, bytes);
    // Padded to a multiple of 16 bytes (at least 16), so 16-byte loads covering the last bytes stay
    // inside the allocation; size() is the requested size.
    check(api().cuMemAlloc(&b->ptr, std::max<std::size_t>(16, (bytes + 15) / 16 * 16)), "cuMemAlloc");
    return b;
  }

  std::shared_ptr<DeviceBuffer> alloc_image(int width, int height) override {
    if (width <= 0 || height <= 0) throw std::runtime_error(fmt::format("image of {}x{} texels", width, height));
    ctx_->make_current();
    auto b = std::make_shared<CuBuffer>(ctx_, static_cast<std::size_t>(width) * height);
    CUDA_ARRAY_DESCRIPTOR desc{};
    desc.Width = static_cast<std::size_t>(width);
    desc.Height = static_cast<std::size_t>(height);
    desc.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    desc.NumChannels = 1;
    check(api().cuArrayCreate(&b->array, &desc), "cuArrayCreate");
    b->width = width;
    b->height = height;
    CUDA_RESOURCE_DESC res{};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = b->array;
    CUDA_TEXTURE_DESC tex{};
    tex.addressMode[0] = tex.addressMode[1] = tex.addressMode[2] = CU_TR_ADDRESS_MODE_CLAMP;
    tex.filterMode = CU_TR_FILTER_MODE_POINT;
    tex.flags = CU_TRSF_READ_AS_INTEGER;  // texels as unsigned char, not normalised floats
    check(api().cuTexObjectCreate(&b->texture, &res, &tex, nullptr), "cuTexObjectCreate");
    return b;
  }

  void upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) override {
    auto& b = static_cast<CuBuffer&>(dst);
    if (src.size() > b.size())
      throw std::runtime_error(fmt::format("upload of {} bytes into a buffer of {}", src.size(), b.size()));
    if (b.is_image() && src.size() != b.size())
      throw std::runtime_error(fmt::format("upload of {} bytes into an image of {}", src.size(), b.size()));
    if (src.empty()) return;
    ctx_->make_current();
    const std::uint8_t* host = src.data();
    if (pinned_) {
      std::uint8_t* stage = staging_.get(src.size());
      std::memcpy(stage, src.data(), src.size());
      host = stage;
    }
    // The transfer's own time (last_transfer_ms): from here, without the copy into the staging buffer, which
    // a program that keeps its data in page-locked memory does not make.
    const auto t0 = std::chrono::steady_clock::now();
    if (b.is_image()) {
      CUDA_MEMCPY2D copy{};
      copy.srcMemoryType = CU_MEMORYTYPE_HOST;
      copy.srcHost = host;
      copy.srcPitch = static_cast<std::size_t>(b.width);
      copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
      copy.dstArray = b.array;
      copy.WidthInBytes = static_cast<std::size_t>(b.width);
      copy.Height = static_cast<std::size_t>(b.height);
      check(api().cuMemcpy2D(&copy), "cuMemcpy2D");
    } else {
      check(api().cuMemcpyHtoD(b.ptr, host, src.size()), "cuMemcpyHtoD");
    }
    // From pageable memory the copy may return before the last DMA lands; upload times mean "on the device".
    check(api().cuCtxSynchronize(), "cuCtxSynchronize");
    last_transfer_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }

  void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) override {
    const auto& b = static_cast<const CuBuffer&>(src);
    if (dst.size() > b.size())
      throw std::runtime_error(fmt::format("download of {} bytes from a buffer of {}", dst.size(), b.size()));
    if (b.is_image() && dst.size() != b.size())
      throw std::runtime_error(fmt::format("download of {} bytes from an image of {}", dst.size(), b.size()));
    if (dst.empty()) return;
    ctx_->make_current();
    std::uint8_t* host = pinned_ ? staging_.get(dst.size()) : dst.data();
    const auto t0 = std::chrono::steady_clock::now();  // the transfer alone, as in upload()
    if (b.is_image()) {
      CUDA_MEMCPY2D copy{};
      copy.srcMemoryType = CU_MEMORYTYPE_ARRAY;
      copy.srcArray = b.array;
      copy.dstMemoryType = CU_MEMORYTYPE_HOST;
      copy.dstHost = host;
      copy.dstPitch = static_cast<std::size_t>(b.width);
      copy.WidthInBytes = static_cast<std::size_t>(b.width);
      copy.Height = static_cast<std::size_t>(b.height);
      check(api().cuMemcpy2D(&copy), "cuMemcpy2D");
    } else {
      check(api().cuMemcpyDtoH(host, b.ptr, dst.size()), "cuMemcpyDtoH");
    }
    last_transfer_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (pinned_) std::memcpy(dst.data(), host, dst.size());
  }
  double last_transfer_ms() const override { return last_transfer_ms_; }

  void fill(DeviceBuffer& dst, std::uint8_t value) override {
    auto& b = static_cast<CuBuffer&>(dst);
    if (b.size() == 0) return;
    if (b.is_image()) {
      const std::vector<std::uint8_t> bytes(b.size(), value);
      upload(b, bytes);
      return;
    }
    ctx_->make_current();
    check(api().cuMemsetD8(b.ptr, value, b.size()), "cuMemsetD8");
    check(api().cuCtxSynchronize(), "cuCtxSynchronize");
  }

  // The region (docs/measurement.md): when cold, the L2 is emptied by reading a buffer of twice its size
  // (pimg_l2_sweep), so that the lines left there are clean; with the launch hidden, pimg_spin is queued first and
  // holds every launch of the run back until end_timing() releases it, so the events measure the device's work
  // without the host's launch gaps.
  void begin_timing(const TimingMethod& method, bool region) override {
    ctx_->make_current();
    region_programs_ = std::move(next_programs_);
    next_programs_.clear();
    if (method.cold) {
      if (!sweep_) make_sweep();
      sweep_l2();
    }
    if (!region) {
      last_timing_ = timing_method(method, false);
      return;
    }
    spinning_ = method.hide_launch && !syncs_inside();
    last_timing_ = fmt::format("cuda-events {} {}{}", spinning_ ? "spin" : "call", method.cold ? kCold : "hot",
                               method.hide_launch && !spinning_ ? " (the call synchronises: launch not hidden)" : "");
    if (spinning_) {
      if (!spin_) make_spin();
      spin_flags_[0] = 0;
      spin_flags_[1] = 0;
      std::atomic_thread_fence(std::memory_order_seq_cst);
      std::uint64_t timeout_ns = kSpinTimeoutNs;
      CUdeviceptr release = spin_flags_dev_, timed_out = spin_flags_dev_ + sizeof(int);
      void* params[] = {&release, &timeout_ns, &timed_out};
      check(api().cuLaunchKernel(spin_->function, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr),
            "cuLaunchKernel (pimg_spin)");
    }
    check(api().cuEventRecord(start_, nullptr), "cuEventRecord");
    in_region_ = true;
  }

  std::optional<double> end_timing() override {
    if (!in_region_) return std::nullopt;
    in_region_ = false;
    ctx_->make_current();
    const CUresult recorded = api().cuEventRecord(stop_, nullptr);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (spinning_) spin_flags_[0] = 1;
    check(recorded, "cuEventRecord");
    check(api().cuEventSynchronize(stop_), "kernel execution (cuEventSynchronize)");
    if (spinning_ && spin_flags_[1]) {
      // A call that waits for the device inside itself (a library's synchronisation) cannot be queued
      // behind the spin: its programs are timed by call time from now on.
      for (const Program* p : region_programs_) syncing_.insert(p);
    }
    float ms = 0;
    check(api().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

  std::string timing_method(const TimingMethod& method, bool region) const override {
    const std::string cache = method.cold ? kCold : "hot";
    if (!region) return "cuda-events per-launch " + cache + " (host steps)";
    return fmt::format("cuda-events {} {}", method.hide_launch ? "spin" : "call", cache);
  }

  std::string last_timing() const override { return last_timing_; }

  void prepare_launch(Program& program, const LaunchPlan& plan,
                      const std::map<std::string, DeviceBuffer*>& buffers) override {
    ctx_->make_current();
    next_programs_.push_back(&program);
    if (auto* l = dynamic_cast<LibraryProgram*>(&program)) {
      const cuda::DevicePointers pointers = pointers_of(buffers);
      l->call->prepare(cuda::LibraryEnv{npp_ctx_}, plan, pointers);
    }
    // Symbols are filled here, before the spin kernel is queued: a synchronous copy behind the
    // spin would wait for it until its timeout.
    if (auto* k = dynamic_cast<CuProgram*>(&program); k && !plan.symbols.empty()) {
      fill_symbols(*k, plan, buffers);
      symbols_filled_.push_back(k);
    }
  }

  void download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst) override {
    const auto& b = static_cast<const CuBuffer&>(src);
    if (b.is_image() || offset + dst.size() > b.size())
      throw std::runtime_error(fmt::format("download of bytes {}..{} of a buffer of {}", offset,
                                           offset + dst.size(), b.size()));
    if (dst.empty()) return;
    ctx_->make_current();
    check(api().cuMemcpyDtoH(dst.data(), b.ptr + offset, dst.size()), "cuMemcpyDtoH");
  }

  LaunchResult copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) override {
    LaunchResult r;
    try {
      auto& d = static_cast<CuBuffer&>(dst);
      const auto& s = static_cast<const CuBuffer&>(src);
      if (d.is_image() || s.is_image() || d.size() != s.size())
        throw std::runtime_error("copy_buffer needs two buffers of one size");
      ctx_->make_current();
      r.kernel_ms = timed([&] { check(api().cuMemcpyDtoDAsync(d.ptr, s.ptr, s.size(), nullptr), "cuMemcpyDtoDAsync"); });
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
      ctx_->make_current();
      if (auto* p = dynamic_cast<CuProgram*>(&program))
        r.kernel_ms = run_kernel(*p, plan, buffers);
      else if (auto* l = dynamic_cast<LibraryProgram*>(&program))
        r.kernel_ms = run_library(*l, plan, buffers);
      else
        throw std::runtime_error("the program was not made by the CUDA backend");
      r.ok = true;
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    return r;
  }

 private:
  struct Built {
    std::shared_ptr<CuProgram> program;
    std::string log;
  };

  // Loads a cubin and finds the entry; null when the driver rejects the image (a stale cache entry).
  std::shared_ptr<CuProgram> load(const std::vector<unsigned char>& cubin, const std::string& entry,
                                  const std::string& path, std::string& log) {
    auto program = std::make_shared<CuProgram>(ctx_);
    if (CUresult res = api().cuModuleLoadData(&program->module, cubin.data()); res != CUDA_SUCCESS) {
      program->module = nullptr;
      log += fmt::format("{}cuModuleLoadData: {}", log.empty() ? "" : "\n", cuda::error_name(api(), res));
      return nullptr;
    }
    if (CUresult res = api().cuModuleGetFunction(&program->function, program->module, entry.c_str());
        res != CUDA_SUCCESS) {
      log += fmt::format("{}no kernel '{}' in {} (cuModuleGetFunction: {})", log.empty() ? "" : "\n", entry, path,
                         cuda::error_name(api(), res));
      return nullptr;
    }
    return program;
  }

  void compile_into(CompileResult& r, const KernelSource& source, const LaunchPlan& plan) {
    if (source.native)
      throw std::runtime_error(fmt::format("the native call '{}' is not a kernel", source.native->name));
    const std::vector<std::string> options = cuda::nvrtc_options(plan, compute_capability(info_), &source.text);
    const std::string key = cubin_key(info_, source, options);
    const std::string memory_key = key + "/" + plan.entry;
    if (auto it = programs_.find(memory_key); it != programs_.end()) {
      r.program = it->second.program;
      r.log = it->second.log;
      r.cached = true;
      return;
    }
    std::shared_ptr<CuProgram> program;
    if (auto cubin = cache_read("cuda", key)) {
      std::string ignored;
      program = load(*cubin, plan.entry, source.path, ignored);
      r.cached = program != nullptr;
    } else if (auto rejected = cache_read("cuda", key + kRejected)) {  // NVRTC's log of a compile it refused
      r.log.assign(rejected->begin(), rejected->end());
      r.cached = true;
      return;
    }
    if (!program) {
      cuda::NvrtcResult built = cuda::nvrtc_compile(source, options);
      r.log = built.log;
      if (!built.ok) {
        remember_rejected(key, built);
        return;
      }
      cache_write("cuda", key, built.cubin);
      program = load(built.cubin, plan.entry, source.path, r.log);
      if (!program) return;
    }
    programs_[memory_key] = {program, r.log};
    r.program = std::move(program);
  }

  std::shared_ptr<Program> library_program(const std::string& name, const LaunchPlan& plan) {
    const auto& table = cuda::library_calls();
    auto it = table.find(name);
    if (it == table.end()) throw std::runtime_error(fmt::format("the CUDA backend has no native call '{}'", name));
    return std::make_shared<LibraryProgram>(ctx_, it->second(plan));
  }

  double run_library(LibraryProgram& program, const LaunchPlan& plan,
                     const std::map<std::string, DeviceBuffer*>& buffers) {
    const cuda::DevicePointers pointers = pointers_of(buffers);
    const cuda::LibraryEnv env{npp_ctx_};
    return timed([&] { program.call->run(env, plan, pointers); });
  }

  static cuda::DevicePointers pointers_of(const std::map<std::string, DeviceBuffer*>& buffers) {
    cuda::DevicePointers pointers;
    for (const auto& [name, buffer] : buffers)
      if (buffer && !static_cast<const CuBuffer*>(buffer)->is_image())
        pointers[name] = static_cast<const CuBuffer*>(buffer)->ptr;
    return pointers;
  }

  CuBuffer& find_buffer(const std::map<std::string, DeviceBuffer*>& buffers, const std::string& name) const {
    auto it = buffers.find(name);
    if (it == buffers.end() || !it->second) throw std::runtime_error(fmt::format("no buffer '{}'", name));
    return static_cast<CuBuffer&>(*it->second);
  }

  // Runs `work` between two events on the default stream; returns the elapsed milliseconds.
  template <class Work>
  double timed(Work&& work) {
    if (in_region_) {  // begin_timing() recorded the start; end_timing() takes the time
      work();
      return 0;
    }
    check(api().cuEventRecord(start_, nullptr), "cuEventRecord");
    work();
    check(api().cuEventRecord(stop_, nullptr), "cuEventRecord");
    check(api().cuEventSynchronize(stop_), "kernel execution (cuEventSynchronize)");
    float ms = 0;
    check(api().cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
    return ms;
  }

  // The plan's device symbols, copied from their buffers before the launch (outside its time, and
  // before the spin kernel of the timed region: prepare_launch).
  void fill_symbols(CuProgram& program, const LaunchPlan& plan, const std::map<std::string, DeviceBuffer*>& buffers) {
    for (const auto& [symbol, buffer] : plan.symbols) {
      CuBuffer& b = find_buffer(buffers, buffer);
      CUdeviceptr ptr = 0;
      std::size_t bytes = 0;
      check(api().cuModuleGetGlobal(&ptr, &bytes, program.module, symbol.c_str()),
            fmt::format("cuModuleGetGlobal('{}')", symbol).c_str());
      if (bytes < b.size())
        throw std::runtime_error(fmt::format("symbol '{}' holds {} bytes; its argument has {}", symbol, bytes, b.size()));
      check(api().cuMemcpyDtoD(ptr, b.ptr, b.size()), "cuMemcpyDtoD");
    }
  }

  double run_kernel(CuProgram& program, const LaunchPlan& plan, const std::map<std::string, DeviceBuffer*>& buffers) {
    if (plan.dims < 1 || plan.dims > 3) throw std::runtime_error(fmt::format("{} launch dimensions", plan.dims));
    // Every argument in an 8-byte slot: device pointers and texture objects are 64-bit, ints 32-bit.
    std::vector<std::uint64_t> slots(plan.args.size(), 0);
    std::vector<void*> params(plan.args.size());
    for (std::size_t i = 0; i < plan.args.size(); ++i) {
      const KernelArg& a = plan.args[i];
      const std::string what = fmt::format("argument {}", i);
      switch (a.kind) {
        case ArgKind::Buffer:
        case ArgKind::Image2D: {
          CuBuffer& b = find_buffer(buffers, a.buffer);
          const bool want_image = a.kind == ArgKind::Image2D;
          if (b.is_image() != want_image)
            throw std::runtime_error(fmt::format("{} '{}': the kernel takes {} but the device memory is {}", what,
                                                 a.buffer, want_image ? "a texture" : "a buffer",
                                                 b.is_image() ? "an image" : "a buffer"));
          if (want_image && (b.width != a.image_width || b.height != a.image_height))
            throw std::runtime_error(fmt::format("{} '{}': image is {}x{}, the plan says {}x{}", what, a.buffer,
                                                 b.width, b.height, a.image_width, a.image_height));
          const std::uint64_t v = want_image ? static_cast<std::uint64_t>(b.texture) : static_cast<std::uint64_t>(b.ptr);
          std::memcpy(&slots[i], &v, sizeof v);
          break;
        }
        case ArgKind::Int: {
          if (a.i < std::numeric_limits<std::int32_t>::min() || a.i > std::numeric_limits<std::int32_t>::max())
            throw std::runtime_error(fmt::format("{}: {} does not fit a 32-bit int", what, a.i));
          const auto v = static_cast<std::int32_t>(a.i);
          std::memcpy(&slots[i], &v, sizeof v);
          break;
        }
        case ArgKind::Float: {
          const auto v = static_cast<float>(a.f);
          std::memcpy(&slots[i], &v, sizeof v);
          break;
        }
        case ArgKind::Bytes:
          params[i] = const_cast<std::uint8_t*>(a.bytes.data());  // the driver reads the parameter's own size
          continue;
      }
      params[i] = &slots[i];
    }
    // plan.global counts threads (OpenCL's global size); the grid is global / block, rounded up.
    std::array<unsigned, 3> block{1, 1, 1}, grid{1, 1, 1};
    for (int d = 0; d < plan.dims; ++d) {
      const std::size_t local = plan.local[d] ? plan.local[d] : (d == 0 ? std::min<std::size_t>(plan.global[0], 256) : 1);
      const std::size_t groups = (plan.global[d] + local - 1) / local;
      if (local == 0 || groups == 0 || groups > std::numeric_limits<unsigned>::max())
        throw std::runtime_error(fmt::format("dimension {}: global {} with block {} is not a launchable grid", d,
                                             plan.global[d], local));
      block[d] = static_cast<unsigned>(local);
      grid[d] = static_cast<unsigned>(groups);
    }
    const double threads = static_cast<double>(block[0]) * block[1] * block[2];
    if (threads > static_cast<double>(info_.max_work_group_size))
      throw std::runtime_error(fmt::format("block {}x{}x{} exceeds {} threads per block", block[0], block[1],
                                           block[2], info_.max_work_group_size));
    if (auto f = std::find(symbols_filled_.begin(), symbols_filled_.end(), &program); f != symbols_filled_.end())
      symbols_filled_.erase(f);
    else
      fill_symbols(program, plan, buffers);
    // Past 48 KiB of shared memory per block (static and dynamic together) a kernel must opt in to the dynamic
    // part; the device's limit (227 KiB on the H100 and H200) then decides, and cuFuncSetAttribute says why not.
    if (plan.shared_bytes > program.dynamic_shared_allowed) {
      check(api().cuFuncSetAttribute(program.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     static_cast<int>(plan.shared_bytes)),
            fmt::format("cuFuncSetAttribute (dynamic shared memory of {} bytes)", plan.shared_bytes).c_str());
      program.dynamic_shared_allowed = plan.shared_bytes;
    }
    return timed([&] {
      check(api().cuLaunchKernel(program.function, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                 static_cast<unsigned>(plan.shared_bytes), nullptr, params.data(), nullptr),
            "cuLaunchKernel");
    });
  }

  bool syncs_inside() const {  // of the programs of the run being opened
    return std::any_of(region_programs_.begin(), region_programs_.end(), [&](const Program* p) { return syncing_.count(p); });
  }

  // A kernel of the timed region (kernels/timing/spin.cu).
  std::shared_ptr<CuProgram> timing_kernel(const char* entry) {
    const KernelSource* source = kernel_source("timing/spin.cu");
    if (!source) throw std::runtime_error("the timing kernels timing/spin.cu are not embedded");
    LaunchPlan plan;
    plan.entry = entry;
    plan.dims = 1;
    CompileResult r;
    compile_into(r, *source, plan);
    if (!r.program) throw std::runtime_error(fmt::format("compiling {}: {}", entry, r.log));
    return std::static_pointer_cast<CuProgram>(r.program);
  }

  void make_spin() {
    spin_ = timing_kernel("pimg_spin");
    void* host = nullptr;
    check(api().cuMemHostAlloc(&host, 2 * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE),
          "cuMemHostAlloc (spin flags)");
    spin_flags_ = static_cast<volatile int*>(host);
    check(api().cuMemHostGetDevicePointer(&spin_flags_dev_, host, 0), "cuMemHostGetDevicePointer");
  }

  // The L2 flush: a buffer of twice the L2 (at least 8 MiB), filled once with one 32-bit value and read by
  // pimg_l2_sweep before every cold run. Its words' xor is 0, so the sweep's `never` of 1 keeps its sink unwritten.
  void make_sweep() {
    std::shared_ptr<CuProgram> program = timing_kernel("pimg_l2_sweep");
    if (!flush_) {
      const std::size_t l2 = static_cast<std::size_t>(attribute(ctx_->device(), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
      const std::size_t bytes = std::max<std::size_t>(2 * l2, std::size_t{8} << 20) / 16 * 16;
      check(api().cuMemAlloc(&flush_, bytes + 16), "cuMemAlloc (L2 flush buffer)");
      flush_bytes_ = bytes;
      check(api().cuMemsetD32Async(flush_, 0x5a5a5a5au, (bytes + 16) / 4, nullptr), "cuMemsetD32Async (L2 flush buffer)");
    }
    sweep_ = std::move(program);
    sweep_l2();  // the fill's own dirty lines are written back here, not in the first cold run
    check(api().cuCtxSynchronize(), "cuCtxSynchronize (L2 sweep)");
  }

  void sweep_l2() {
    CUdeviceptr words = flush_, sink = flush_ + flush_bytes_;
    unsigned long long n = flush_bytes_ / 16;
    unsigned never = 1;
    void* params[] = {&words, &n, &never, &sink};
    const unsigned blocks = static_cast<unsigned>(std::max(1, npp_ctx_.nMultiProcessorCount) * 4);
    check(api().cuLaunchKernel(sweep_->function, blocks, 1, 1, 512, 1, 1, 0, nullptr, params, nullptr),
          "cuLaunchKernel (pimg_l2_sweep)");
  }

  // Longer than any host needs to queue a run's launches; a call that waits for the device inside
  // itself shows as a timeout (and is then timed without the spin).
  static constexpr std::uint64_t kSpinTimeoutNs = 500'000'000;
  // Cold runs: the L2 emptied by a read sweep (its lines left clean), as docs/measurement.md says.
  static constexpr const char* kCold = "cold-l2-read";

  DeviceInfo info_;
  std::shared_ptr<const Context> ctx_;  // declared first among the CUDA objects: released last
  CUevent start_ = nullptr, stop_ = nullptr;
  CUdeviceptr flush_ = 0;
  std::size_t flush_bytes_ = 0;
  std::shared_ptr<CuProgram> sweep_;
  std::shared_ptr<CuProgram> spin_;
  volatile int* spin_flags_ = nullptr;  // [0] release, [1] timed out; host memory the device reads
  CUdeviceptr spin_flags_dev_ = 0;
  bool in_region_ = false, spinning_ = false;
  std::string last_timing_;  // the method the last run was timed by
  std::vector<const Program*> next_programs_, region_programs_;
  std::vector<const CuProgram*> symbols_filled_;  // by prepare_launch, for the next launch of each
  std::set<const Program*> syncing_;  // programs seen waiting for the device inside their call
  cuda::NppStreamContext npp_ctx_{};
  PinnedStaging staging_;
  double last_transfer_ms_ = -1;             // of the last upload or download
  bool pinned_ = false;                      // transfers through staging_, as the last compiled plan asked
  std::map<std::string, Built> programs_;    // memory cache: compile key + entry -> program
};

}  // namespace

std::unique_ptr<Device> open_cuda_device(DeviceInfo info, int ordinal) {
  return std::make_unique<CudaDevice>(std::move(info), ordinal);
}

}  // namespace pimg::cuda_detail
