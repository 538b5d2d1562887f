// Host buffers and host device information.
#include "host_memory.hpp"

#include <fmt/format.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
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
  d.limits = {{"compute_units", d.compute_units},
              {"max_threads", d.compute_units},
              {"global_mem_size", static_cast<double>(d.global_mem_bytes)}};
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

}  // namespace pimg
