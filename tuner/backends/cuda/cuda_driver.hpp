// The CUDA driver as the backend's pieces use it (cuda_device.cpp, cuda_backend.cpp): loaded and initialised once
// (driver, api, loaded), calls checked (check), device attributes and counts, and a device's DeviceInfo (describe).
#pragma once
#include <string>

#include "cuda_api.hpp"
#include "pimg/backend.hpp"

namespace pimg::cuda_detail {

using cuda::DriverApi;

// The loaded driver after a successful cuInit, or the reason there is none.
struct Driver {
  const DriverApi* api = nullptr;
  std::string error;
};

const Driver& driver();
// The loaded driver's table; throws the reason where there is none.
const DriverApi& api();
// For destructors: the table of a driver known to be loaded (every CUDA object was made through it).
const DriverApi& loaded() noexcept;
// Throws, naming the call and the error, unless `r` is CUDA_SUCCESS.
void check(CUresult r, const char* call);
int attribute(CUdevice dev, CUdevice_attribute a);
int device_count();
// The DeviceInfo of device `ordinal`: its name, limits, driver and PCI address.
DeviceInfo describe(int ordinal);

}  // namespace pimg::cuda_detail
