// Validation on the device and the data kept there between configurations (see residency.hpp).
#include "pimg/residency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "pimg/registry.hpp"

namespace pimg {
namespace {

constexpr std::size_t kGroup = 256;  // the check kernels' group size (PIMG_GROUP in kernels/check/)
constexpr int kSlot = 8;             // uints per result slot

KernelArg u64(std::uint64_t v) {
  std::vector<std::uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return KernelArg::raw(std::move(b));
}

KernelArg f64(double v) {
  std::vector<std::uint8_t> b(8);
  std::memcpy(b.data(), &v, 8);
  return KernelArg::raw(std::move(b));
}

int mode_of(const DeviceCompare& how) {
  switch (how.kind) {
    case DeviceCompare::Kind::bytes: return 0;
    case DeviceCompare::Kind::f32: return how.relative ? 1 : 2;
    case DeviceCompare::Kind::f64: return how.relative ? 3 : 4;
  }
  return 0;
}

}  // namespace

const KernelSource* check_source(const DeviceInfo& device) {
  return device.caps.check_source.empty() ? nullptr : kernel_source(device.caps.check_source);
}

std::optional<DeviceCompare> device_compare(const Family& family, const Problem& p, const std::string& rule) {
  if (const auto* d = dynamic_cast<const DeviceComparable*>(&family)) return d->device_compare(p, rule);
  return DeviceCompare{};
}

std::unique_ptr<DeviceChecker> DeviceChecker::make(Device& device, std::string* why) {
  auto say = [&](std::string s) {
    if (why) *why = std::move(s);
    return nullptr;
  };
  const KernelSource* source = check_source(device.info());
  if (!source) return say("the backend has no check kernels");
  if (device.info().max_work_group_size > 0 && device.info().max_work_group_size < static_cast<std::int64_t>(kGroup))
    return say(fmt::format("the device runs groups of at most {} work items", device.info().max_work_group_size));
  std::unique_ptr<DeviceChecker> c(new DeviceChecker(device));
  c->source_ = source;
  c->max_groups_ = std::max<std::size_t>(1024, static_cast<std::size_t>(std::max(device.info().compute_units, 1)) * 8);
  for (const char* entry : {"pimg_check", "pimg_check_poison", "pimg_checksum"}) {
    LaunchPlan plan;
    plan.entry = entry;
    plan.dims = 1;
    CompileResult r = device.compile(*source, plan);
    if (!r.program) return say(fmt::format("the check kernel {} does not build: {}", entry, r.log));
    c->programs_[entry] = std::move(r.program);
  }
  return c;
}

std::shared_ptr<Program> DeviceChecker::program(const std::string& entry) { return programs_.at(entry); }

void DeviceChecker::launch(const std::string& entry, std::size_t items, std::vector<KernelArg> args,
                           const std::map<std::string, DeviceBuffer*>& buffers) {
  LaunchPlan plan;
  plan.entry = entry;
  plan.dims = 1;
  const std::size_t groups = std::clamp<std::size_t>((items + kGroup - 1) / kGroup, 1, max_groups_);
  plan.global = {groups * kGroup, 1, 1};
  plan.local = {kGroup, 1, 1};
  plan.args = std::move(args);
  const LaunchResult r = device_.launch(*program(entry), plan, buffers);
  if (!r.ok) throw std::runtime_error(fmt::format("check kernel {}: {}", entry, r.error));
}

DeviceCheck DeviceChecker::check(DeviceBuffer& out, DeviceBuffer& reference, std::size_t bytes, std::size_t canary,
                                 const DeviceCompare& how, std::uint8_t poison,
                                 const std::vector<std::pair<DeviceBuffer*, std::size_t>>& others) {
  const std::size_t slots = 1 + others.size();
  if (!results_ || results_->size() < slots * kSlot * 4) results_ = device_.alloc(slots * kSlot * 4);
  std::vector<std::uint32_t> init(slots * kSlot, 0);
  for (std::size_t s = 0; s < slots; ++s) init[s * kSlot + 1] = init[s * kSlot + 4] = 0xFFFFFFFFu;
  device_.upload(*results_, {reinterpret_cast<const std::uint8_t*>(init.data()), init.size() * 4});
  std::map<std::string, DeviceBuffer*> buffers{{"out", &out}, {"ref", &reference}, {"res", results_.get()}};
  const std::size_t lane = how.kind == DeviceCompare::Kind::bytes ? 16 : how.kind == DeviceCompare::Kind::f32 ? 4 : 8;
  launch("pimg_check", std::max((bytes + lane - 1) / lane, canary),
         {KernelArg::buf("out"), KernelArg::buf("ref"), u64(bytes), u64(canary), KernelArg::integer(poison),
          KernelArg::integer(mode_of(how)), f64(how.tolerance), KernelArg::buf("res")},
         buffers);
  for (std::size_t k = 0; k < others.size(); ++k) {
    buffers["buf"] = others[k].first;
    launch("pimg_check_poison", canary,
           {KernelArg::buf("buf"), u64(others[k].second), u64(canary), KernelArg::integer(poison),
            KernelArg::buf("res"), KernelArg::integer(static_cast<std::int64_t>(k + 1))},
           buffers);
  }
  std::vector<std::uint32_t> got(slots * kSlot);
  device_.download(*results_, {reinterpret_cast<std::uint8_t*>(got.data()), got.size() * 4});
  DeviceCheck c;
  c.mismatches = got[0];
  c.first = got[1];
  float worst = 0;
  std::memcpy(&worst, &got[2], 4);
  c.worst = worst;
  for (std::size_t s = 0; s < slots; ++s) c.canaries.push_back({got[s * kSlot + 3], got[s * kSlot + 4]});
  return c;
}

std::uint32_t DeviceChecker::checksum(DeviceBuffer& buffer, std::size_t bytes) {
  if (!results_ || results_->size() < kSlot * 4) results_ = device_.alloc(kSlot * 4);
  const std::vector<std::uint32_t> init(kSlot, 0);
  device_.upload(*results_, {reinterpret_cast<const std::uint8_t*>(init.data()), init.size() * 4});
  launch("pimg_checksum", (bytes + 3) / 4, {KernelArg::buf("buf"), u64(bytes), KernelArg::buf("res"), KernelArg::integer(0)},
         {{"buf", &buffer}, {"res", results_.get()}});
  std::vector<std::uint32_t> got(kSlot);
  device_.download(*results_, {reinterpret_cast<std::uint8_t*>(got.data()), got.size() * 4});
  return got[5];
}

DeviceResidency::DeviceResidency(Device& device, Use use) : device_(device) {
  const DeviceInfo& info = device.info();
  const bool host_cpu = info.caps.host_cores;
  active_ = check_source(info) != nullptr && (use == Use::always || !host_cpu);
  if (!active_) why_ = host_cpu ? "the device is the host's CPU" : "the backend has no check kernels";
}

DeviceChecker* DeviceResidency::checker() {
  if (!active_) return nullptr;
  if (!checker_tried_) {
    checker_tried_ = true;
    checker_ = DeviceChecker::make(device_, &why_);
  }
  return checker_.get();
}

std::shared_ptr<DeviceBuffer> DeviceResidency::get(const std::string& key, const std::vector<std::uint8_t>& host,
                                                   bool verify, double& uploaded_ms) {
  uploaded_ms = 0;
  Entry& e = entries_[key];
  bool fresh = e.buffer && e.host == host.data() && e.bytes == host.size();
  if (fresh && verify && checker()) fresh = checker()->checksum(*e.buffer, e.bytes) == e.sum;
  if (fresh) return e.buffer;
  e = Entry{};  // release the old copy first: two of a large input may not fit
  auto buffer = device_.alloc(std::max<std::size_t>(host.size(), 1));
  uploaded_ms = timed_upload(device_, *buffer, host);
  e = {host.data(), host.size(), buffer, verify && checker() ? checker()->checksum(*buffer, host.size()) : 0};
  return buffer;
}

std::shared_ptr<DeviceBuffer> DeviceResidency::input(const std::string& key, const std::vector<std::uint8_t>& host,
                                                     double& uploaded_ms) {
  return get("input " + key, host, true, uploaded_ms);
}

std::shared_ptr<DeviceBuffer> DeviceResidency::reference(const std::string& key, const std::vector<std::uint8_t>& host,
                                                         double& uploaded_ms) {
  return get("reference " + key, host, false, uploaded_ms);
}

const std::optional<std::string>& DeviceResidency::exact_detail(const std::string& key,
                                                                const std::function<Validation()>& compute) {
  auto it = details_.find(key);
  if (it == details_.end()) {
    const Validation v = compute();
    it = details_.emplace(key, v.ok ? std::optional<std::string>(v.detail) : std::nullopt).first;
  }
  return it->second;
}

}  // namespace pimg
