// Host memory as device buffers, the CPU's DeviceInfo, and the argument marshalling shared by the
// host and OpenMP backends (both call HostKernelFn functions).
#pragma once
#include <cstdint>
#include <memory>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "pimg/backend.hpp"

namespace pimg {

// A host buffer placed the same way in every process (docs/measurement.md, "Where host buffers lie"): its own
// mapping, aligned to 2 MiB and backed by transparent huge pages where the kernel grants them (one physically
// contiguous page, so which cache sets it uses does not depend on which pages the process drew), its bytes starting
// at `slot` x 1,088 bytes (17 cache lines) modulo 4 KiB into it, so a run's buffers never share their low 12 address
// bits (4K aliasing between a run's loads and stores). Slots are given by the device, lowest free first, so a
// configuration's buffers get the same offsets in every process and every session. Zero-filled, like a vector.
class HostBuffer_ final : public DeviceBuffer {
 public:
  explicit HostBuffer_(std::size_t bytes, int slot = 0);
  ~HostBuffer_() override;
  HostBuffer_(const HostBuffer_&) = delete;
  HostBuffer_& operator=(const HostBuffer_&) = delete;
  std::size_t size() const override { return data.size(); }
  int slot() const { return slot_; }
  std::span<std::uint8_t> data;

 private:
  void* mapping_ = nullptr;
  std::size_t mapped_ = 0;
  int slot_ = 0;
};

// The machine's CPU: model name, logical cores, memory; limits max_threads and compute_units.
DeviceInfo host_device_info(const std::string& backend);

// Calls fn with the plan's arguments resolved against buffers; returns elapsed host milliseconds.
// Throws std::runtime_error for an argument that names no buffer or an image argument.
double call_host_kernel(HostKernelFn fn, const LaunchPlan& plan, const std::map<std::string, DeviceBuffer*>& buffers);

std::shared_ptr<DeviceBuffer> host_alloc(std::size_t bytes);
void host_upload(DeviceBuffer& dst, std::span<const std::uint8_t> src);
void host_download(const DeviceBuffer& src, std::span<std::uint8_t> dst);
void host_fill(DeviceBuffer& dst, std::uint8_t value);
void host_download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst);
LaunchResult host_copy(DeviceBuffer& dst, const DeviceBuffer& src);  // memcpy, timed by the host clock

// The last-level cache's size in bytes, which cold runs flush twice over: PIMG_LLC_BYTES where set (for machines
// that misreport it, such as virtual machines whose sysconf sums every instance), else sysfs's one instance, else
// sysconf; at most kMaxFlushBytes, 32 MiB when nothing says. Read once per process.
inline constexpr std::size_t kMaxFlushBytes = std::size_t{256} << 20;
std::size_t last_level_cache_bytes();

// The host backends' timing (docs/measurement.md): the host clock around each call; when cold, every cache
// line of the device's live buffers is evicted before every run (flush_cache_lines: the cost of the bytes the
// run can touch), or, where lines cannot be evicted by address, a buffer of twice the last-level cache is
// written and read.
class HostTiming {
 public:
  void track(const std::shared_ptr<HostBuffer_>& buffer);  // a buffer the device allocated
  int free_slot();  // the lowest placement slot no live buffer holds
  void begin(const TimingMethod& method);
  static std::string name(const TimingMethod& method, bool region);

 private:
  void sweep();
  std::vector<std::weak_ptr<HostBuffer_>> live_;
  std::vector<std::uint8_t> flush_;
  std::uint8_t value_ = 0;
};

// A device whose buffers are host memory and whose runs are timed by HostTiming: what the host and
// OpenMP devices share (memory, copies, timing); they add compile and launch.
class HostClockDevice : public Device {
 public:
  explicit HostClockDevice(DeviceInfo info) : info_(std::move(info)) {}
  const DeviceInfo& info() const override { return info_; }
  std::shared_ptr<DeviceBuffer> alloc(std::size_t bytes) override;
  std::shared_ptr<DeviceBuffer> alloc_image(int, int) override;
  void upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) override { host_upload(dst, src); }
  void download(const DeviceBuffer& src, std::span<std::uint8_t> dst) override { host_download(src, dst); }
  void fill(DeviceBuffer& dst, std::uint8_t value) override { host_fill(dst, value); }
  void download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst) override {
    host_download_range(src, offset, dst);
  }
  LaunchResult copy_buffer(DeviceBuffer& dst, const DeviceBuffer& src) override { return host_copy(dst, src); }
  void begin_timing(const TimingMethod& method, bool) override { timing_.begin(method); }
  std::string timing_method(const TimingMethod& method, bool region) const override {
    return HostTiming::name(method, region);
  }

 protected:
  DeviceInfo info_;

 private:
  HostTiming timing_;
};

}  // namespace pimg
