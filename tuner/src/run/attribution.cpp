// Whether a failed evaluation's cause lies outside its configuration: the session's own verdict
// (env_error: a worker killed from outside or stopped), or a compile that failed because the machine
// had no space for the compiler or the cache, no compiler, or lost the device.
#include "run/attribution.hpp"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include <array>
#include <filesystem>

#include "pimg/cache.hpp"

namespace pimg {
namespace {

// Below this much free space in the temporary or cache folder a failed compile is the machine's.
constexpr double kMinFreeBytes = 64.0 * 1048576;

// Words in a build or launch log that name a fault of the machine, not of the kernel.
constexpr std::array kMachineFaults = {
    "No space left on device", "Disk quota exceeded",   "File too large",        "File size limit exceeded",
    "Read-only file system",   "cannot create a temporary directory",            "cannot run '",
    "CUDA_ERROR_NO_DEVICE",    "CUDA_ERROR_DEVICE_UNAVAILABLE", "CUDA_ERROR_ECC_UNCORRECTABLE",
    "CL_DEVICE_NOT_AVAILABLE",
};

std::optional<std::string> low_space(const std::filesystem::path& dir) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return std::nullopt;
  const double free_bytes = static_cast<double>(st.f_bavail) * static_cast<double>(st.f_frsize);
  if (free_bytes >= kMinFreeBytes) return std::nullopt;
  return fmt::format("only {:.1f} MiB free in {}", free_bytes / 1048576.0, dir.string());
}

}  // namespace

std::optional<std::string> environment_cause(const EvalResult& r) {
  if (r.status == Status::env_error) return r.log;
  if (r.status != Status::compile_error && r.status != Status::harness_error && r.status != Status::launch_error)
    return std::nullopt;
  for (const char* words : kMachineFaults)
    if (r.log.find(words) != std::string::npos) return fmt::format("the log says \"{}\"", words);
  if (r.status == Status::launch_error) return std::nullopt;
  std::error_code ec;
  if (auto why = low_space(std::filesystem::temp_directory_path(ec))) return why;
  try {
    if (auto why = low_space(cache_dir("")); why) return why;
  } catch (const std::exception& e) {
    return fmt::format("the compile cache cannot be used: {}", e.what());
  }
  return std::nullopt;
}

EvalResult as_environment_fault(EvalResult r, const std::string& cause) {
  if (r.status != Status::env_error) r.log = fmt::format("environment: {} (it would have been {}); {}", cause, to_string(r.status), r.log);
  r.status = Status::env_error;
  return r;
}

}  // namespace pimg
