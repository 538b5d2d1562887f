// Host buffers and host device information.
#include "host_memory.hpp"

#include "pimg/asan.hpp"
#include "pimg/cache_flush.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

namespace pimg {

DeviceInfo host_device_info(const std::string& backend) {
  DeviceInfo d;
  d.backend = backend;
  d.index = 0;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) d.name = line.substr(pos + 2);
    } else if (line.rfind("vendor_id", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) d.vendor = line.substr(pos + 2);
    }
    if (!d.name.empty() && !d.vendor.empty()) break;
  }
  if (d.name.empty()) d.name = "host CPU";
  utsname u{};
  if (uname(&u) == 0) d.driver = fmt::format("{} {}", u.sysname, u.release);
  d.compute_units = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  d.global_mem_bytes = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  d.max_work_group_size = d.compute_units;
  d.caps.host_cores = true;
  d.limits = {{"compute_units", d.compute_units},
              {"max_threads", d.compute_units},
              {"global_mem_size", static_cast<double>(d.global_mem_bytes)},
              {"last_level_cache_size", static_cast<double>(last_level_cache_bytes())}};
  return d;
}

double call_host_kernel(HostKernelFn fn, const LaunchPlan& plan, const std::map<std::string, DeviceBuffer*>& buffers) {
  std::vector<void*> ptrs;
  std::vector<std::int64_t> ints;
  std::vector<double> reals;
  for (const auto& a : plan.args) {
    switch (a.kind) {
      case ArgKind::Buffer: {
        auto it = buffers.find(a.buffer);
        if (it == buffers.end()) throw std::runtime_error(fmt::format("no buffer '{}'", a.buffer));
        ptrs.push_back(static_cast<HostBuffer_*>(it->second)->data.data());
        break;
      }
      case ArgKind::Image2D: throw std::runtime_error("host kernels take no image arguments");
      case ArgKind::Int: ints.push_back(a.i); break;
      case ArgKind::Float: reals.push_back(a.f); break;
      case ArgKind::Bytes: throw std::runtime_error("host kernels take no raw scalar arguments");
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  fn(ptrs.data(), ints.data(), reals.data());
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

namespace {
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kSlotStagger = 17 * 64;
[[maybe_unused]] std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }
}  // namespace

#if PIMG_ASAN
// Under AddressSanitizer the buffer comes from the (aligned) heap at the same offset, so that a host function
// writing past its end is reported there; nothing is timed in that build.
HostBuffer_::HostBuffer_(std::size_t bytes, int slot) : slot_(slot) {
  const std::size_t offset = static_cast<std::size_t>(slot) * kSlotStagger % 4096;
  mapped_ = offset + std::max<std::size_t>(bytes, 1);
  mapping_ = ::operator new(mapped_, std::align_val_t{kHugePage});
  std::memset(mapping_, 0, mapped_);
  data = std::span<std::uint8_t>(static_cast<std::uint8_t*>(mapping_) + offset, bytes);
}

HostBuffer_::~HostBuffer_() { ::operator delete(mapping_, std::align_val_t{kHugePage}); }
#else
HostBuffer_::HostBuffer_(std::size_t bytes, int slot) : slot_(slot) {
  const std::size_t offset = static_cast<std::size_t>(slot) * kSlotStagger % 4096;
  const std::size_t span = round_up(offset + std::max<std::size_t>(bytes, 1), kHugePage);
  mapped_ = span + kHugePage;  // room to align the start to 2 MiB
  mapping_ = ::mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::bad_alloc();
  }
  auto* start = reinterpret_cast<std::uint8_t*>(round_up(reinterpret_cast<std::uintptr_t>(mapping_), kHugePage));
  // Advice only: without transparent huge pages (or with them off) the buffer is ordinary pages, still aligned.
  (void)::madvise(start, span, MADV_HUGEPAGE);
  data = std::span<std::uint8_t>(start + offset, bytes);
}

HostBuffer_::~HostBuffer_() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapped_);
}
#endif

std::shared_ptr<DeviceBuffer> host_alloc(std::size_t bytes) { return std::make_shared<HostBuffer_>(bytes); }

void host_upload(DeviceBuffer& dst, std::span<const std::uint8_t> src) {
  auto& b = static_cast<HostBuffer_&>(dst);
  if (src.size() > b.data.size()) throw std::runtime_error("upload larger than the buffer");
  std::memcpy(b.data.data(), src.data(), src.size());
}

void host_download(const DeviceBuffer& src, std::span<std::uint8_t> dst) {
  const auto& b = static_cast<const HostBuffer_&>(src);
  if (dst.size() > b.data.size()) throw std::runtime_error("download larger than the buffer");
  std::memcpy(dst.data(), b.data.data(), dst.size());
}

void host_fill(DeviceBuffer& dst, std::uint8_t value) {
  auto& b = static_cast<HostBuffer_&>(dst);
  std::memset(b.data.data(), value, b.data.size());
}

void host_download_range(const DeviceBuffer& src, std::size_t offset, std::span<std::uint8_t> dst) {
  const auto& b = static_cast<const HostBuffer_&>(src);
  if (offset > b.data.size() || dst.size() > b.data.size() - offset)
    throw std::runtime_error(fmt::format("download of bytes {}..{} of a buffer of {}", offset, offset + dst.size(),
                                         b.data.size()));
  if (!dst.empty()) std::memcpy(dst.data(), b.data.data() + offset, dst.size());
}

LaunchResult host_copy(DeviceBuffer& dst, const DeviceBuffer& src) {
  auto& d = static_cast<HostBuffer_&>(dst);
  const auto& s = static_cast<const HostBuffer_&>(src);
  if (d.data.size() != s.data.size()) return {false, "copy_buffer needs two buffers of one size", 0, {}};
  const auto t0 = std::chrono::steady_clock::now();
  std::memcpy(d.data.data(), s.data.data(), s.data.size());
  return {true, "", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(), {}};
}

namespace {

// PIMG_LLC_BYTES: a size in bytes, or with a K, M or G suffix; 0 (not given or unreadable: said once on stderr).
std::size_t llc_from_environment() {
  const char* text = std::getenv("PIMG_LLC_BYTES");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long n = std::strtoull(text, &end, 10);
  int shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  if (*end == 'M' || *end == 'm') shift = 20;
  if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (errno != 0 || end == text || *end != '\0' || n == 0 || n > (kMaxFlushBytes >> shift)) {
    fmt::print(stderr, "pimg-tune: PIMG_LLC_BYTES={} is not a size from 1 to 256M (bytes, or with K, M or G); "
               "the detected size is used\n", text);
    return 0;
  }
  return static_cast<std::size_t>(n) << shift;
}

std::size_t detect_last_level_cache_bytes() {
  if (const std::size_t n = llc_from_environment(); n > 0) return n;
  // sysfs first: it gives one cache instance (32 MiB of an EPYC's L3), where sysconf may sum them all.
  for (int index = 4; index >= 0; --index) {
    std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", index));
    std::string text;
    if (in >> text && !text.empty()) {
      std::size_t n = std::strtoull(text.c_str(), nullptr, 10);
      if (text.back() == 'K') n <<= 10;
      if (text.back() == 'M') n <<= 20;
      if (n > 0) return std::min(n, kMaxFlushBytes);
    }
  }
  for (int name : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long v = ::sysconf(name);
    if (v > 0) return std::min(static_cast<std::size_t>(v), kMaxFlushBytes);
  }
  return std::size_t{32} << 20;
}

}  // namespace

std::size_t last_level_cache_bytes() {
  static const std::size_t bytes = detect_last_level_cache_bytes();
  return bytes;
}

void HostTiming::track(const std::shared_ptr<HostBuffer_>& buffer) {
  std::erase_if(live_, [](const std::weak_ptr<HostBuffer_>& b) { return b.expired(); });
  live_.push_back(buffer);
}

int HostTiming::free_slot() {
  std::vector<int> taken;
  for (const auto& weak : live_)
    if (const auto b = weak.lock()) taken.push_back(b->slot());
  int slot = 0;
  while (std::find(taken.begin(), taken.end(), slot) != taken.end()) ++slot;
  return slot;
}

void HostTiming::begin(const TimingMethod& method) {
  if (!method.cold) return;
  if (!can_flush_cache_lines()) return sweep();
  for (const auto& weak : live_)
    if (const auto b = weak.lock()) flush_cache_lines(b->data.data(), b->data.size());
}

void HostTiming::sweep() {
  if (flush_.empty()) flush_.resize(2 * last_level_cache_bytes());
  std::memset(flush_.data(), ++value_, flush_.size());
  // Read it back too, so the lines are the cache's most recent and nothing of the run's buffers stays.
  volatile std::uint64_t sum = 0;
  std::uint64_t acc = 0;
  for (std::size_t i = 0; i < flush_.size(); i += 64) acc += flush_[i];
  sum = acc;
  (void)sum;
}

std::string HostTiming::name(const TimingMethod& method, bool region) {
  const char* cold = can_flush_cache_lines() ? "cold-evict" : "cold-llc";
  return std::string("host-clock ") + (method.cold ? cold : "hot") + (region ? "" : " (host steps)");
}

std::shared_ptr<DeviceBuffer> HostClockDevice::alloc(std::size_t bytes) {
  auto b = std::make_shared<HostBuffer_>(bytes, timing_.free_slot());
  timing_.track(b);
  return b;
}

std::shared_ptr<DeviceBuffer> HostClockDevice::alloc_image(int, int) {
  throw std::runtime_error(fmt::format("the {} backend has no images", info_.backend));
}

}  // namespace pimg
