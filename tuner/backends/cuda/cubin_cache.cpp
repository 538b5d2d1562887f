// The cubin disk cache's keys, NVRTC's refusals beside them, and the compiles in flight (cubin_cache.hpp).
#include "cubin_cache.hpp"

#include "pimg/cache.hpp"
#include "pimg/config.hpp"

namespace pimg::cuda_detail {

int compute_capability(const DeviceInfo& info) { return static_cast<int>(info.limits.at("compute_capability")); }

// The disk-cache key of a cubin: source, NVRTC options, device, driver and NVRTC version.
std::string cubin_key(const DeviceInfo& info, const KernelSource& source, const std::vector<std::string>& options) {
  std::string joined;
  for (const auto& o : options) joined += o + "\n";
  return hash128(source.hash + "\n" + joined + info.name + "\n" + std::to_string(compute_capability(info)) + "\n" +
                 info.driver + "\n" + cuda::nvrtc_version());
}

void remember_rejected(const std::string& key, const cuda::NvrtcResult& built) {
  if (built.rejected) cache_write("cuda", key + kRejected, {built.log.begin(), built.log.end()});
}

InFlight& in_flight() {
  static InFlight f;
  return f;
}

}  // namespace pimg::cuda_detail
