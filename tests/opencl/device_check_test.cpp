// The check kernels of the OpenCL backend (kernels/check/check.cl) on PoCL: the floating-point modes follow
// the T1 family's host comparison (tolerance, NaN, lanes never written), canaries and checksums.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "cl_fixture.hpp"
#include "pimg/executor.hpp"
#include "pimg/residency.hpp"

namespace pimg::cltest {
namespace {

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}


// `out` (followed by a canary of poison) against `ref` on the device.
template <class T>
DeviceCheck check(const std::vector<T>& out, const std::vector<T>& ref, const DeviceCompare& how,
                  std::uint8_t poison = kPoisonValues[0]) {
  static std::unique_ptr<DeviceChecker> checker = DeviceChecker::make(device());
  if (!checker) throw std::runtime_error("no check kernels on the OpenCL device");
  const auto o = bytes_of(out), r = bytes_of(ref);
  auto dout = device().alloc(o.size() + kCanaryBytes);
  auto dref = device().alloc(r.size());
  device().fill(*dout, poison);
  device().upload(*dout, o);
  device().upload(*dref, r);
  return checker->check(*dout, *dref, o.size(), kCanaryBytes, how, poison, {});
}

DeviceCompare relative_f32(double tol) {
  DeviceCompare d;
  d.kind = DeviceCompare::Kind::f32;
  d.relative = true;
  d.tolerance = tol;
  return d;
}

TEST(DeviceCheckKernels, FloatLanesWithinTheRelativeTolerancePass) {
  const std::vector<float> ref{1.0f, 100.0f, 0.5f, std::nanf(""), -3.0f};
  const std::vector<float> out{1.0f + 5e-6f, 100.0f * (1 + 5e-6f), 0.5f + 5e-6f, std::nanf(""), -3.0f};
  const DeviceCheck c = check(out, ref, relative_f32(1e-5));
  EXPECT_EQ(c.mismatches, 0u);
  EXPECT_GT(c.worst, 4e-6);  // the largest |a - e| / max(1, |e|), as the host's detail says
  EXPECT_LT(c.worst, 6e-6);
  ASSERT_EQ(c.canaries.size(), 1u);
  EXPECT_EQ(c.canaries[0].bad, 0u);
}

TEST(DeviceCheckKernels, FloatLanesBeyondTheToleranceNaNOnOneSideAndNeverWrittenFail) {
  std::vector<float> ref{1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f};
  std::vector<float> out = ref;
  out[2] = 3.0f * (1 + 3e-5f);  // beyond 1e-5 relative
  out[4] = std::nanf("");       // NaN where the reference is a number
  // Lane 5 holds the poison's bytes and the reference a value within the tolerance of it: never written.
  std::uint32_t poison_bits = 0xA5A5A5A5u, near_bits = 0xA5A5A5A4u;
  std::memcpy(&out[5], &poison_bits, 4);
  std::memcpy(&ref[5], &near_bits, 4);
  const DeviceCheck c = check(out, ref, relative_f32(1e-5));
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_EQ(c.first, 2u);
  DeviceCompare absolute = relative_f32(1e-5);
  absolute.relative = false;
  std::vector<float> big{1000.0f}, big_out{1000.0f + 0.001f};  // 1e-6 relative, 1e-3 absolute
  EXPECT_EQ(check(big_out, big, relative_f32(1e-5)).mismatches, 0u);
  EXPECT_EQ(check(big_out, big, absolute).mismatches, 1u);
}

TEST(DeviceCheckKernels, DoubleLanesAndExactBytes) {
  DeviceCompare f64;
  f64.kind = DeviceCompare::Kind::f64;
  f64.tolerance = 1e-12;
  EXPECT_EQ(check(std::vector<double>{1.0 + 1e-13, 2.0}, std::vector<double>{1.0, 2.0}, f64).mismatches, 0u);
  EXPECT_EQ(check(std::vector<double>{1.0 + 1e-11, 2.0}, std::vector<double>{1.0, 2.0}, f64).mismatches, 1u);
  // Bytes: every differing byte counted, the first one's offset; 37 bytes (not whole 16-byte chunks).
  std::vector<std::uint8_t> ref(37), out;
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = static_cast<std::uint8_t>(i * 7);
  out = ref;
  out[20] ^= 1;
  out[36] ^= 4;
  const DeviceCheck c = check(out, ref, DeviceCompare{});
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.first, 20u);
}

TEST(DeviceCheckKernels, CanariesAndChecksums) {
  auto checker = DeviceChecker::make(device());
  ASSERT_TRUE(checker);
  const std::size_t n = 1000;
  auto out = device().alloc(n + kCanaryBytes), ref = device().alloc(n), scratch = device().alloc(64 + kCanaryBytes);
  device().fill(*out, 0x5A);
  device().fill(*ref, 0x5A);
  device().fill(*scratch, 0x5A);
  std::vector<std::uint8_t> hit{0x11};
  // Byte 3 after the scratch buffer's own 64: a write past its end.
  std::vector<std::uint8_t> all(64 + kCanaryBytes, 0x5A);
  all[64 + 3] = 0x11;
  device().upload(*scratch, all);
  DeviceCheck c = checker->check(*out, *ref, n, kCanaryBytes, DeviceCompare{}, 0x5A, {{scratch.get(), 64}});
  EXPECT_EQ(c.mismatches, 0u);
  ASSERT_EQ(c.canaries.size(), 2u);
  EXPECT_EQ(c.canaries[0].bad, 0u);
  EXPECT_EQ(c.canaries[1].bad, 1u);
  EXPECT_EQ(c.canaries[1].first, 3u);
  // The checksum of a buffer changes with any one byte.
  std::vector<std::uint8_t> data(4099);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 13 + 1);
  auto buf = device().alloc(data.size());
  device().upload(*buf, data);
  const std::uint32_t sum = checker->checksum(*buf, data.size());
  EXPECT_EQ(checker->checksum(*buf, data.size()), sum);
  for (std::size_t at : {std::size_t{0}, std::size_t{2048}, data.size() - 1}) {
    std::vector<std::uint8_t> changed = data;
    changed[at] ^= 0x40;
    device().upload(*buf, changed);
    EXPECT_NE(checker->checksum(*buf, data.size()), sum) << "byte " << at;
  }
}

}  // namespace
}  // namespace pimg::cltest
