// CUDA backend over the driver API (primary context per device) with NVRTC: its status, devices and their
// opening (the device itself in cuda_device.cpp, the driver in cuda_driver.cpp), cubins compiled ahead into the
// disk cache compile() reads (pimg/cache.hpp sub "cuda", cubin_cache.hpp), the native calls of cuda_library.hpp
// (NPP, CUB) by name, and the copy kernels of the bandwidth ceiling.
#include "cuda_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <thread>

#include "cubin_cache.hpp"
#include "cuda_device.hpp"
#include "cuda_driver.hpp"
#include "cuda_library.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/cache.hpp"
#include "pimg/config.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace cuda_detail {
namespace {

// The 1-D plans of a copy or read kernel over `vectors` 16-byte vectors: `entry`_vec, a grid-stride loop of blocks
// of 256 (at most 2^20 threads; the ceiling sweeps its geometry), and `entry`_x1.._x8, one to eight vectors per
// thread with no loop, at the usual block sizes.
Backend::CopyKernel vector_plans(const KernelSource& source, const std::string& entry, std::size_t vectors,
                                 std::int64_t size_arg) {
  Backend::CopyKernel k{source, {}, {}};
  k.plan.entry = entry + "_vec";
  k.plan.dims = 1;
  const std::size_t block = 256;
  k.plan.global = {std::min<std::size_t>((vectors + block - 1) / block * block, std::size_t{1} << 20), 1, 1};
  k.plan.local = {block, 1, 1};
  k.plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(size_arg)};
  for (int items : {1, 2, 4, 8})
    for (std::size_t b : {128u, 256u, 512u, 1024u}) {
      LaunchPlan p = k.plan;
      p.entry = fmt::format("{}_x{}", entry, items);
      p.local = {b, 1, 1};
      p.global = {(vectors + b * items - 1) / (b * items) * b, 1, 1};
      k.more.push_back(p);
    }
  return k;
}

// The plans of the bulk-copy engine's entries `entry`_bulk_4k, _8k, _16k (sm_90; an older GPU's program has no such
// entry and the ceiling skips it): a block of 32 threads, chunks of 4, 8 or 16 KiB dealt a grid apart, 256 to 2048
// blocks (a few per SM to several).
void add_bulk_plans(Backend::CopyKernel& k, const std::string& entry, std::size_t vectors) {
  for (const auto& [suffix, chunk] : {std::pair{"_bulk_4k", 4096u}, std::pair{"_bulk_8k", 8192u}, std::pair{"_bulk_16k", 16384u}})
    for (std::size_t blocks : {256u, 512u, 1024u, 2048u}) {
      const std::size_t chunks = (vectors * 16 + chunk - 1) / chunk;
      if (blocks > chunks && blocks != 256u) continue;
      LaunchPlan p = k.plan;
      p.entry = entry + suffix;
      p.local = {32, 1, 1};
      p.global = {std::min(blocks, std::max<std::size_t>(chunks, 1)) * 32, 1, 1};
      k.more.push_back(p);
    }
}

class CudaBackend final : public Backend {
 public:
  std::string name() const override { return "cuda"; }

  BackendStatus status() const override {
    const Driver& d = driver();
    if (!d.api) return {false, d.error};
    try {
      if (device_count() == 0) return {false, "no CUDA device (cuDeviceGetCount found none)"};
    } catch (const std::exception& e) {
      return {false, e.what()};
    }
    if (std::string nvrtc = cuda::nvrtc_status(); !nvrtc.empty()) return {false, nvrtc};
    return {true, ""};
  }

  std::vector<DeviceInfo> devices() const override {
    std::vector<DeviceInfo> out;
    if (!status().available) return out;
    try {
      const int n = device_count();
      for (int i = 0; i < n; ++i) out.push_back(describe(i));
    } catch (const std::exception&) {
      return {};
    }
    return out;
  }

  std::unique_ptr<Device> open(const DeviceInfo& info) const override {
    if (BackendStatus st = status(); !st.available) throw std::runtime_error("CUDA unavailable: " + st.reason);
    const int n = device_count();
    if (info.index < 0 || info.index >= n)
      throw std::runtime_error(fmt::format("no CUDA device {} ({} found)", info.index, n));
    DeviceInfo current = describe(info.index);
    if (!info.name.empty() && current.name != info.name)
      throw std::runtime_error(fmt::format("CUDA device {} is now '{}', not '{}'", info.index, current.name, info.name));
    return open_cuda_device(std::move(current), info.index);
  }

  // NVRTC on `threads` threads into the cubin cache compile() reads (same key), one compile per
  // distinct option set not cached yet.
  bool precompiles() const override { return true; }
  std::size_t precompile(const DeviceInfo& info, const KernelSource& source, const std::vector<LaunchPlan>& plans,
                         int threads) const override {
    if (source.native || !cuda::nvrtc_status().empty()) return 0;
    std::vector<std::pair<std::string, std::vector<std::string>>> todo;  // key, options
    std::set<std::string> seen;
    for (const LaunchPlan& plan : plans) {
      std::vector<std::string> options = cuda::nvrtc_options(plan, compute_capability(info), &source.text);
      std::string key = cubin_key(info, source, options);
      if (seen.insert(key).second && !cache_exists("cuda", key) && !cache_exists("cuda", key + kRejected))
        todo.emplace_back(std::move(key), std::move(options));
    }
    std::atomic<std::size_t> next{0}, compiled{0};
    auto work = [&] {
      for (std::size_t i = next++; i < todo.size(); i = next++) {
        const std::string& key = todo[i].first;
        // Another thread compiling the same program (the compile pipeline calls this from many): wait for it.
        if (!in_flight().claim(key)) continue;
        if (cache_exists("cuda", key) || cache_exists("cuda", key + kRejected)) {
          in_flight().release(key);
          continue;
        }
        cuda::NvrtcResult built = cuda::nvrtc_compile(source, todo[i].second);
        if (!built.ok) {  // compile() reports it with the log kept here, or compiles it again
          remember_rejected(key, built);
        } else {
          cache_write("cuda", key, built.cubin);
          ++compiled;
        }
        in_flight().release(key);
      }
    };
    std::vector<std::thread> pool;
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), todo.size());
    for (std::size_t t = 1; t < n; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return compiled;
  }

  std::vector<std::string> native_calls() const override {
    std::vector<std::string> out;
    for (const auto& [name, _] : cuda::library_calls()) out.push_back(name);
    return out;
  }

  // A grid-stride copy of 16-byte vectors plus the bytes % 16 tail, so every byte is copied, and further
  // geometries of the same copy (kernels/copy/copy.cu); the ceiling is the fastest of them and the API's copy.
  std::optional<CopyKernel> copy_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/copy.cu");
    if (!source || bytes < 16 || bytes > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      return std::nullopt;
    const std::size_t vectors = bytes / 16;
    CopyKernel k = vector_plans(*source, "copy", vectors, static_cast<std::int64_t>(bytes));
    add_bulk_plans(k, "copy", vectors);
    // Whole rows of 4, 8 or 16 KiB in a 2-D grid like the image kernels', forward and mirrored.
    if (bytes % 16 == 0)
      for (std::size_t row : {256u, 512u, 1024u}) {
        if (vectors % row != 0) continue;
        const std::size_t rows = vectors / row;
        for (const char* entry : {"copy_rows", "copy_rows_rev"})
          for (std::size_t bx : {64u, 128u, 256u})
            for (std::size_t by : {1u, 2u}) {
              if ((rows + by - 1) / by > 65535) continue;  // gridDim.y's limit
              LaunchPlan p;
              p.entry = entry;
              p.dims = 2;
              p.local = {bx, by, 1};
              p.global = {(row + bx - 1) / bx * bx, (rows + by - 1) / by * by, 1};
              p.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(row)),
                        KernelArg::integer(static_cast<std::int64_t>(rows))};
              k.more.push_back(p);
            }
      }
    return k;
  }

  // A grid-stride read of 16-byte vectors (the ceiling sweeps its geometry), one to eight vectors per thread at the
  // usual block sizes and the bulk-copy engine's read into shared memory (kernels/copy/read.cu), each block writing
  // its sum.
  std::optional<CopyKernel> read_kernel(std::size_t bytes) const override {
    const KernelSource* source = kernel_source("copy/read.cu");
    const std::size_t vectors = bytes / 16;
    if (!source || vectors == 0 || vectors > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      return std::nullopt;
    CopyKernel k = vector_plans(*source, "read", vectors, static_cast<std::int64_t>(vectors));
    add_bulk_plans(k, "read", vectors);
    return k;
  }
};

}  // namespace
}  // namespace cuda_detail

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda_detail::CudaBackend>(); }

}  // namespace pimg
