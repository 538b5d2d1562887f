// OpenCL device discovery (cl_devices.hpp): CL error names, the platform and device queries, and each
// device's DeviceInfo, its limits and PCI address included.
#define CL_TARGET_OPENCL_VERSION 120
#include "cl_devices.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>

namespace pimg::cl_detail {


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

void check(cl_int err, const char* call) {
  if (err != CL_SUCCESS) throw ClError(call, err);
}

std::string trim_nul(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

namespace {

// A string property through a clGet*Info query (`call` its name): its size first, then its bytes.
template <class Query, class Handle>
std::string info_string(Query query, const char* call, Handle h, cl_uint what) {
  std::size_t n = 0;
  check(query(h, what, 0, nullptr, &n), call);
  std::string s(n, '\0');
  check(query(h, what, n, s.data(), nullptr), call);
  return trim_nul(std::move(s));
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  return info_string(clGetPlatformInfo, "clGetPlatformInfo", p, what);
}

std::string device_string(cl_device_id d, cl_device_info what) {
  return info_string(clGetDeviceInfo, "clGetDeviceInfo", d, what);
}

template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  check(clGetDeviceInfo(d, what, sizeof v, &v, nullptr), "clGetDeviceInfo");
  return v;
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

}  // namespace

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
  const std::string platform = platform_string(ref.platform, CL_PLATFORM_NAME);
  const bool pocl = platform.find("Portable Computing Language") != std::string::npos;
  info.caps.compiles_at_first_launch = info.caps.host_cores && pocl;
  // NVIDIA's OpenCL builds one program at a time within a process: 16 threads, each with its own context, built 9
  // programs a second on the H200 machine's 16 cores, as 4 threads did, and 16 processes 150 a second
  // (bench/results/2026-12-02-h200-cl-compile). PoCL holds its compiler lock per process too. Other platforms'
  // compilers have not been measured here; they compile on the pipeline's threads.
  info.caps.serial_compiler = pocl || platform.find("NVIDIA") != std::string::npos;
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

}  // namespace pimg::cl_detail
