// Evicting lines by address (pimg/cache_flush.hpp) writes dirty lines back: the bytes read afterwards are the
// bytes written before, for any start and length, aligned or not.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "pimg/cache_flush.hpp"

TEST(CacheFlush, KeepsEveryByteOfAnyRange) {
  std::vector<std::uint8_t> data(3 * 4096 + 77);
  for (std::size_t start : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64}, std::size_t{100}}) {
    for (std::size_t length : {std::size_t{0}, std::size_t{1}, std::size_t{64}, std::size_t{65}, std::size_t{4099}}) {
      std::iota(data.begin(), data.end(), static_cast<std::uint8_t>(start + length));  // dirty lines to write back
      const std::vector<std::uint8_t> before = data;
      pimg::flush_cache_lines(data.data() + start, length);
      ASSERT_EQ(data, before) << "start " << start << ", length " << length;
    }
  }
}

TEST(CacheFlush, IsAvailableOnTheArchitecturesThisBuildTargets) {
#if defined(__x86_64__) || defined(__aarch64__)
  EXPECT_TRUE(pimg::can_flush_cache_lines());
#else
  EXPECT_FALSE(pimg::can_flush_cache_lines());
#endif
  pimg::flush_cache_lines(nullptr, 100);  // nothing to flush: no fault
}
