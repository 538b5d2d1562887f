// The CUDA driver loaded through cuda_api.hpp and initialised once, checked calls, and the DeviceInfo of each
// device (cuda_driver.hpp).
#include "cuda_driver.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "nvrtc_compiler.hpp"

namespace pimg::cuda_detail {
namespace {

// The NVIDIA kernel driver's version ("580.65.06"), from /proc/driver/nvidia/version; empty if absent.
std::string nvidia_driver_version() {
  // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the first
  // word of digits and dots.
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line, word;
  if (!std::getline(in, line)) return "";
  std::istringstream words(line);
  while (words >> word)
    if (std::isdigit(static_cast<unsigned char>(word[0])) && word.find('.') != std::string::npos &&
        word.find_first_not_of("0123456789.") == std::string::npos)
      return word;
  return "";
}

}  // namespace

const Driver& driver() {
  static const Driver d = [] {
    Driver out;
    out.api = cuda::driver_api(out.error);
    if (!out.api) return out;
    if (CUresult r = out.api->cuInit(0); r != CUDA_SUCCESS) {
      out.error = "cuInit failed: " + cuda::error_name(*out.api, r);
      out.api = nullptr;
    }
    return out;
  }();
  return d;
}

const DriverApi& api() {
  const Driver& d = driver();
  if (!d.api) throw std::runtime_error(d.error);
  return *d.api;
}

// For destructors: the table of a driver known to be loaded (every CUDA object was made through it).
const DriverApi& loaded() noexcept { return *driver().api; }

void check(CUresult r, const char* call) {
  if (r != CUDA_SUCCESS) throw std::runtime_error(fmt::format("{}: {}", call, cuda::error_name(api(), r)));
}

int attribute(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  check(api().cuDeviceGetAttribute(&v, a, dev), "cuDeviceGetAttribute");
  return v;
}

int device_count() {
  int n = 0;
  check(api().cuDeviceGetCount(&n), "cuDeviceGetCount");
  return n;
}

DeviceInfo describe(int ordinal) {
  CUdevice dev = 0;
  check(api().cuDeviceGet(&dev, ordinal), "cuDeviceGet");
  char name[256] = {};
  check(api().cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
  std::size_t total = 0;
  check(api().cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem");
  int version = 0;
  check(api().cuDriverGetVersion(&version), "cuDriverGetVersion");
  const int major = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  const int minor = attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  const int threads = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  const int shared = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);

  DeviceInfo info;
  info.backend = "cuda";
  info.index = ordinal;
  info.name = name;
  info.vendor = "NVIDIA";
  info.driver = fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
  if (const std::string kernel = nvidia_driver_version(); !kernel.empty())
    info.driver = fmt::format("{} (CUDA {})", kernel, info.driver);
  info.platform = fmt::format("CUDA sm_{}{}", major, minor);
  info.compute_units = attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.global_mem_bytes = total;
  info.local_mem_bytes = static_cast<std::uint64_t>(shared);
  info.max_work_group_size = threads;

  info.caps.check_source = "check/check.cu";
  info.caps.profiler = "ncu";
  auto& l = info.limits;
  l["max_work_group_size"] = threads;
  l["max_threads_per_block"] = threads;
  l["shared_mem_per_block"] = shared;
  // What a kernel may opt in to beyond the 48 KiB (dynamic shared memory; LaunchPlan::shared_bytes).
  l["shared_mem_per_block_optin"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  l["local_mem_size"] = shared;  // OpenCL's name, so constraints written for OpenCL carry over
  l["compute_units"] = info.compute_units;
  l["compute_capability"] = major * 10 + minor;
  l["max_registers_per_block"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  l["warp_size"] = attribute(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  l["l2_cache_size"] = attribute(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  l["global_mem_size"] = static_cast<double>(total);
  l["max_constant_buffer_size"] = attribute(dev, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
  l["max_work_item_size_0"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l["max_work_item_size_1"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l["max_work_item_size_2"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  l["max_grid_size_1"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l["image_support"] = 1;
  l["image2d_max_width"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH);
  l["image2d_max_height"] = attribute(dev, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT);
  // The PCI address, by which the nvml observer finds this device in NVML (whatever CUDA_VISIBLE_DEVICES says).
  l["pci_domain_id"] = attribute(dev, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
  l["pci_bus_id"] = attribute(dev, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
  l["pci_device_id"] = attribute(dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
  return info;
}

}  // namespace pimg::cuda_detail
