// What stays on a device between configurations (docs/measurement.md, "Validation on the device"): the
// inputs and references of each problem, uploaded once per (problem, device), and the check kernels that
// validate every run there (Device::check_source). The session that owns a device (the worker, the
// in-process session) owns one DeviceResidency beside it and hands it to every PreparedPlan it makes; a
// PreparedPlan made without one uploads its own copies, as a standalone harness does.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/device_compare.hpp"
#include "pimg/family.hpp"
#include "pimg/result.hpp"

namespace pimg {

// The check kernels of a device (DeviceCaps::check_source: pimg_check, pimg_check_poison, pimg_checksum); null
// where its backend has none (the CPU backends, whose outputs are compared on the host).
const KernelSource* check_source(const DeviceInfo& device);

// The device form of `family`'s comparison (DeviceComparable where it implements it, else exact bytes).
std::optional<DeviceCompare> device_compare(const Family& family, const Problem& p, const std::string& rule);

// What the check kernels found after one run. Offsets are the first mismatching element's index (bytes, or
// lanes of the floating-point modes) and the first bad canary byte's offset after its buffer's own bytes.
struct DeviceCheck {
  std::uint32_t mismatches = 0, first = 0;
  double worst = 0;  // the largest error of the floating-point modes (as a float)
  struct Canary {
    std::uint32_t bad = 0, first = 0;
  };
  std::vector<Canary> canaries;  // one per checked buffer, in the order given
};

// The check kernels of one device (kernels/check/), compiled once.
class DeviceChecker {
 public:
  // Null where the device's backend has no check kernels (check_source), they do not build (an OpenCL
  // device without fp64), or the device cannot run groups of 256.
  static std::unique_ptr<DeviceChecker> make(Device& device, std::string* why = nullptr);

  // The output (its `bytes` followed by `canary` bytes of poison) against the reference, and the canaries
  // [own, own + canary) of further buffers; one small upload, the launches, one small download.
  DeviceCheck check(DeviceBuffer& out, DeviceBuffer& reference, std::size_t bytes, std::size_t canary,
                    const DeviceCompare& how, std::uint8_t poison,
                    const std::vector<std::pair<DeviceBuffer*, std::size_t>>& others);
  // A 32-bit sum of the buffer's first `bytes` bytes, each 4-byte word mixed with its index by a bijection
  // (one changed word always changes it).
  std::uint32_t checksum(DeviceBuffer& buffer, std::size_t bytes);

  // Outputs above this many elements (bytes, or lanes) are compared on the host (32-bit indices).
  static constexpr std::size_t kMaxElements = 0xFFFFFFF0u;

 private:
  explicit DeviceChecker(Device& device) : device_(device) {}
  std::shared_ptr<Program> program(const std::string& entry);
  void launch(const std::string& entry, std::size_t items, std::vector<KernelArg> args,
              const std::map<std::string, DeviceBuffer*>& buffers);
  Device& device_;
  const KernelSource* source_ = nullptr;
  std::map<std::string, std::shared_ptr<Program>> programs_;
  std::shared_ptr<DeviceBuffer> results_;
  std::size_t max_groups_ = 1024;
};

class DeviceResidency {
 public:
  // `automatic`: on devices other than the host's CPU (a CPU OpenCL device such as PoCL computes on the cores
  // that would compare on the host, where checking costs more than downloading: measured in
  // bench/results/2026-11-24-pocl-tuning-time/); `always`: wherever the backend has check kernels (tests).
  enum class Use { automatic, always };
  explicit DeviceResidency(Device& device, Use use = Use::automatic);

  // Whether inputs stay on the device and runs are validated there; false: every plan uploads its own inputs
  // and compares on the host, as on the CPU backends.
  bool active() const { return active_; }

  // The device copy of input `host` of a problem (`key` names the problem and the buffer): uploaded the first
  // time, and again when the host buffer is another one or the device copy no longer holds its checksum (a
  // kernel wrote into its input). `uploaded_ms` is set to the upload's time when one happened, else 0.
  std::shared_ptr<DeviceBuffer> input(const std::string& key, const std::vector<std::uint8_t>& host,
                                      double& uploaded_ms);
  // The device copy of a reference output (kept as uploaded: only the check kernels read it).
  std::shared_ptr<DeviceBuffer> reference(const std::string& key, const std::vector<std::uint8_t>& host,
                                          double& uploaded_ms);
  // The check kernels; null where the device has none (`why` says why, once).
  DeviceChecker* checker();
  const std::string& no_checker_reason() const { return why_; }

  // What compare() says of an output equal to the reference (exact families), computed once per key on the
  // host; nullopt when compare() rejects the reference itself (device checks are then not used).
  const std::optional<std::string>& exact_detail(const std::string& key, const std::function<Validation()>& compute);

  // Upload and download times measured once per key (metrics of every configuration that shares the data).
  std::map<std::string, std::vector<Metric>> transfer_metrics;

 private:
  struct Entry {
    const std::uint8_t* host = nullptr;
    std::size_t bytes = 0;
    std::shared_ptr<DeviceBuffer> buffer;
    std::uint32_t sum = 0;
  };
  std::shared_ptr<DeviceBuffer> get(const std::string& key, const std::vector<std::uint8_t>& host, bool verify,
                                    double& uploaded_ms);
  Device& device_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, std::optional<std::string>> details_;
  std::unique_ptr<DeviceChecker> checker_;
  bool checker_tried_ = false;
  bool active_ = false;
  std::string why_;
};

}  // namespace pimg
