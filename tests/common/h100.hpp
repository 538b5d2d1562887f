// Shared by the CUDA plan and NVRTC tests (no GPU needed): what the CUDA backend reports of an H100 (compute
// capability 9.0), as far as a test's plans read it; each test names the limits and sizes its variants read.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "pimg/backend.hpp"

namespace pimg::testcommon {

inline DeviceInfo h100_device(const std::string& name, std::map<std::string, double> limits, int compute_units = 0,
                              std::uint64_t local_mem_bytes = 0) {
  DeviceInfo d;
  d.backend = "cuda";
  d.name = name;
  d.compute_units = compute_units;
  d.local_mem_bytes = local_mem_bytes;
  d.max_work_group_size = 1024;
  d.limits = std::move(limits);
  return d;
}

}  // namespace pimg::testcommon
