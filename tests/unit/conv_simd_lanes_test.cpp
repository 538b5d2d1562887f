// The portable finish of simd=1 (kernels/conv/conv_packed.h, the OpenCL and host form of the CUDA byte
// permutes): two biased 16-bit lanes of signed sums, summed with wrap-around as the kernels do, give
// conv_rule.h's byte for every sum the family allows (here a divisor of 4, so the lane shift too), in
// every byte position of the output word; and the family's bounds for it (simd_shift).
#include <gtest/gtest.h>

#include <cstdint>

#include "conv/conv_family.hpp"

#define SIMD 1
#define SEPARABLE 0
#define PACKED 0
#define PIMG_SIMD 1
#define PIMG_DIVISOR 4
#define PIMG_SIMD_SHIFT 2
#include "conv/conv_packed.h"
extern "C" {
#include "conv/conv_rule.h"
}

namespace {

// The sum word of lanes lo, hi as the kernels build it: the bias, then the signed sums added mod 2^32.
std::uint32_t lanes(int lo, int hi) {
  return PIMG_SIMD_BIAS + static_cast<std::uint32_t>(lo) + (static_cast<std::uint32_t>(hi) << 16);
}

TEST(ConvSimdLanes, PortableFinishIsTheRuleForEveryAllowedSum) {
  // 255 x (negative weights) <= 2^15 - 256 and 255 x (positive weights) + 2 <= 2^15 - 1 (simd_shift)
  const int lo = -(0x8000 - 256), hi = 0x7fff - PIMG_DIVISOR / 2;
  const int others[] = {-300, 0, 3, 1021, hi};
  for (int pos = 0; pos < 4; ++pos)
    for (int acc = lo; acc <= hi; ++acc) {
      int sums[4];
      for (int b = 0; b < 4; ++b) sums[b] = b == pos ? acc : others[(b + (acc & 7)) % 5];
      // word 2q holds output bytes 0 and 2, word 2q + 1 bytes 1 and 3
      const std::uint32_t out = pimg_simd_word(lanes(sums[0], sums[2]), lanes(sums[1], sums[3]));
      for (int b = 0; b < 4; ++b)
        ASSERT_EQ(static_cast<int>((out >> (8 * b)) & 0xffu), pimg_conv_finish(sums[b], PIMG_DIVISOR))
            << "sum " << sums[b] << " in byte " << b;
    }
}

TEST(ConvSimdLanes, FamilyAllowsOnlySumsThatFitTheLanes) {
  using pimg::conv::simd_shift;
  EXPECT_EQ(simd_shift({0, -1, 0, -1, 5, -1, 0, -1, 0}, 1), 0);  // sharpen3
  EXPECT_EQ(simd_shift({-1, 2, -1, 2, 9, 2, -1, 2, -1}, 4), 2);
  EXPECT_EQ(simd_shift({1, 1, 1, 1, 1, 1, 1, 1, 1}, 9), -1);  // not a power of two
  EXPECT_EQ(simd_shift({1, 1, 1, 1, 1, 1, 1, 1, 1}, 512), -1);  // past 2^8
  EXPECT_EQ(simd_shift({128}, 1), 0);    // 128 x 255 = 32640 <= 32767
  EXPECT_EQ(simd_shift({129}, 1), -1);   // 32895
  EXPECT_EQ(simd_shift({128}, 2), 1);    // plus the half: 32641 <= 32767
  EXPECT_EQ(simd_shift({128}, 256), -1);  // plus the half: 32640 + 128 = 32768
  EXPECT_EQ(simd_shift({127}, 256), 8);
  EXPECT_EQ(simd_shift({-127, 1}, 1), 0);  // 127 x 255 = 32385 <= 32512
  EXPECT_EQ(simd_shift({-128, 1}, 1), -1);  // 32640 > 32512: the lane minus 256 could borrow
  pimg::conv::ConvFamily f;
  EXPECT_EQ(f.make_workload(f.make_problem(16, 16, 1, {{"filter", "sharpen3"}})).defines.at("PIMG_SIMD"), "1");
  EXPECT_EQ(f.make_workload(f.make_problem(16, 16, 1, {{"filter", "sharpen3"}})).defines.at("PIMG_SIMD_SHIFT"), "0");
  EXPECT_EQ(f.make_workload(f.make_problem(16, 16, 3, {{"filter", "gaussian5"}})).defines.at("PIMG_SIMD"), "0");
}

}  // namespace
