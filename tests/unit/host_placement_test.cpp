// Where host buffers lie (docs/measurement.md): each buffer starts at its slot's offset into a 2 MiB-aligned
// mapping, the live buffers of a device never share their low 12 address bits, a freed slot is the next one
// given, and a new buffer reads as zeros like the vector it replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <set>
#include <vector>

#include "host_backend.hpp"
#include "host_memory.hpp"
#include "pimg/registry.hpp"

namespace {

std::uintptr_t address(const std::shared_ptr<pimg::DeviceBuffer>& b) {
  return reinterpret_cast<std::uintptr_t>(static_cast<pimg::HostBuffer_&>(*b).data.data());
}

}  // namespace

TEST(HostPlacement, SlotsGiveEachLiveBufferItsOwnLowBitsAtTheSameOffsetEveryTime) {
  pimg::Registry functions;
  const auto backend = pimg::make_host_backend(functions);
  const auto devices = backend->devices();
  ASSERT_FALSE(devices.empty());
  const auto device = backend->open(devices.front());

  std::vector<std::shared_ptr<pimg::DeviceBuffer>> live;
  std::set<std::uintptr_t> low_bits;
  for (std::size_t bytes : {std::size_t{65536}, std::size_t{65536}, std::size_t{1}, std::size_t{3 << 20}}) {
    live.push_back(device->alloc(bytes));
    const std::uintptr_t at = address(live.back());
    const int slot = static_cast<pimg::HostBuffer_&>(*live.back()).slot();
    EXPECT_EQ(slot, static_cast<int>(live.size()) - 1);
    EXPECT_EQ(at % (std::uintptr_t{2} << 20), static_cast<std::uintptr_t>(slot) * 1088 % 4096) << "slot " << slot;
    EXPECT_EQ(live.back()->size(), bytes);
    low_bits.insert(at % 4096);
    const auto& data = static_cast<pimg::HostBuffer_&>(*live.back()).data;
    EXPECT_TRUE(std::all_of(data.begin(), data.end(), [](std::uint8_t v) { return v == 0; }));
  }
  EXPECT_EQ(low_bits.size(), live.size());

  // A configuration's output freed and allocated again (the next configuration) gets the same offset.
  const std::uintptr_t second = address(live[1]) % 4096;
  live[1].reset();
  const auto again = device->alloc(1000);
  EXPECT_EQ(static_cast<pimg::HostBuffer_&>(*again).slot(), 1);
  EXPECT_EQ(address(again) % 4096, second);

  // Every byte is usable: the fill and download of the device's API see the whole buffer.
  device->fill(*again, 0x5A);
  std::vector<std::uint8_t> back(1000);
  device->download(*again, back);
  EXPECT_TRUE(std::all_of(back.begin(), back.end(), [](std::uint8_t v) { return v == 0x5A; }));
}
