// The conv family contract: the reference against hand-computed values, the rounding rule,
// borders, layouts, input generation and the comparison's report of a mismatch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "conv/conv_family.hpp"
#include "pimg/errors.hpp"

extern "C" {
#include "conv/conv_rule.h"
}

using namespace pimg;
using pimg::conv::ConvFamily;

TEST(ConvRule, RoundsHalfAwayFromZeroAndSaturates) {
  EXPECT_EQ(pimg_div_round(5, 2), 3);
  EXPECT_EQ(pimg_div_round(-5, 2), -3);
  EXPECT_EQ(pimg_div_round(4, 3), 1);
  EXPECT_EQ(pimg_div_round(128, 256), 1);
  EXPECT_EQ(pimg_div_round(127, 256), 0);
  EXPECT_EQ(pimg_conv_finish(-40, 1), 0);
  EXPECT_EQ(pimg_conv_finish(300, 1), 255);
  EXPECT_EQ(pimg_conv_finish(510, 2), 255);
}

static std::vector<std::uint8_t> run_reference(const Problem& p, const std::vector<std::uint8_t>& in) {
  ConvFamily f;
  Workload w = f.make_workload(p);
  w.inputs[0].bytes = in;
  return f.reference(p, w);
}

TEST(ConvReference, SharpenZeroBorderByHand) {
  ConvFamily f;
  Problem p = f.make_problem(3, 3, 1, {{"filter", "sharpen3"}, {"border", "zero"}});
  std::vector<std::uint8_t> in = {10, 20, 30, 40, 50, 60, 70, 80, 90};
  auto out = run_reference(p, in);
  // centre: 5*50 - 20 - 40 - 60 - 80 = 50; corner (0,0): 5*10 - 20 - 40 = -10 -> 0;
  // (1,0): 5*20 - 10 - 30 - 50 = 10; (2,2): 5*90 - 60 - 80 = 310 -> 255.
  EXPECT_EQ(out[4], 50);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[1], 10);
  EXPECT_EQ(out[8], 255);
}

TEST(ConvReference, ValidBorderShrinksAndReplicateClamps) {
  ConvFamily f;
  Problem valid = f.make_problem(4, 3, 1, {{"filter", "box3"}, {"border", "valid"}});
  std::vector<std::uint8_t> in = {0, 9, 18, 27, 9, 18, 27, 36, 18, 27, 36, 45};
  auto out = run_reference(valid, in);
  ASSERT_EQ(out.size(), 2u);  // (4-2) x (3-2)
  EXPECT_EQ(out[0], 18);      // mean of the 3x3 window at (1,1)
  EXPECT_EQ(out[1], 27);
  Problem rep = f.make_problem(2, 1, 1, {{"filter", "box3"}, {"border", "replicate"}});
  auto r = run_reference(rep, {0, 90});
  // (0,0): rows all replicate the single row: 3*(0+0+90)/9 = 30
  EXPECT_EQ(r[0], 30);
  EXPECT_EQ(r[1], 60);
}

TEST(ConvReference, PlanarAndInterleavedAgreePerChannel) {
  ConvFamily f;
  Problem inter = f.make_problem(9, 7, 3, {{"filter", "gaussian5"}, {"layout", "interleaved"}});
  Problem planar = f.make_problem(9, 7, 3, {{"filter", "gaussian5"}, {"layout", "planar"}});
  Workload wi = f.make_workload(inter);
  // Same pixels in planar order.
  std::vector<std::uint8_t> pin(wi.inputs[0].bytes.size());
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 9; ++x)
      for (int c = 0; c < 3; ++c) pin[(c * 7 + y) * 9 + x] = wi.inputs[0].bytes[(y * 9 + x) * 3 + c];
  auto oi = f.reference(inter, wi);
  auto op = run_reference(planar, pin);
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 9; ++x)
      for (int c = 0; c < 3; ++c) ASSERT_EQ(oi[(y * 9 + x) * 3 + c], op[(c * 7 + y) * 9 + x]);
}

TEST(ConvFamily, SeededInputIsReproducibleAndNotZero) {
  ConvFamily f;
  Problem p = f.make_problem(64, 32, 3, {});
  EXPECT_EQ(p.attr("seed"), "1107");
  Workload a = f.make_workload(p), b = f.make_workload(p);
  EXPECT_EQ(a.inputs[0].bytes, b.inputs[0].bytes);
  EXPECT_GT(std::count_if(a.inputs[0].bytes.begin(), a.inputs[0].bytes.end(), [](auto v) { return v != 0; }), 1000);
  Problem q = f.make_problem(64, 32, 3, {{"seed", "7"}});
  EXPECT_NE(f.make_workload(q).inputs[0].bytes, a.inputs[0].bytes);
}

TEST(ConvFamily, CustomFilterAndLookupTable) {
  ConvFamily f;
  Problem p = f.make_problem(16, 16, 1, {{"filter", "custom"}, {"weights", "1,2,1;2,4,2;1,2,1"}, {"divisor", "16"}});
  EXPECT_EQ(p.attr("weights"), "1,2,1;2,4,2;1,2,1");
  Workload w = f.make_workload(p);
  EXPECT_EQ(w.defines.at("PIMG_NDISTINCT"), "3");
  EXPECT_EQ(w.defines.at("PIMG_TAPS"), "0,1,0,1,2,1,0,1,0");
  const auto& lut = w.input("lut").bytes;
  ASSERT_EQ(lut.size(), 3u * 256 * 4);
  int v = 0;
  std::memcpy(&v, lut.data() + (2 * 256 + 100) * 4, 4);
  EXPECT_EQ(v, 400);  // distinct weight 4 times value 100
}

// The kernel defines of a 16x16 workload with `filter` on `channels` channels.
std::map<std::string, std::string> defines_of(const char* filter, int channels) {
  ConvFamily f;
  return f.make_workload(f.make_problem(16, 16, channels, {{"filter", filter}})).defines;
}

TEST(ConvFamily, SeparableFactorisationIsExactOrAbsent) {
  using pimg::conv::separable_weights;
  const auto g = separable_weights({1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1}, 5);
  ASSERT_TRUE(g.separable());
  EXPECT_EQ(g.col, (std::vector<int>{1, 4, 6, 4, 1}));
  EXPECT_EQ(g.row, (std::vector<int>{1, 4, 6, 4, 1}));
  // Sobel: [1 2 1]^T [-1 0 1], zero first column and a negative lead; a zero first row.
  const auto sobel = separable_weights({-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3);
  ASSERT_TRUE(sobel.separable());
  EXPECT_EQ(sobel.row, (std::vector<int>{1, 0, -1}));
  EXPECT_EQ(sobel.col, (std::vector<int>{-1, -2, -1}));
  const auto shifted = separable_weights({0, 0, 0, 2, 4, 2, 1, 2, 1}, 3);
  ASSERT_TRUE(shifted.separable());
  EXPECT_EQ(shifted.col, (std::vector<int>{0, 2, 1}));
  // sharpen3 and the second matrix have rank 2; all zeros has no factor worth a second pass.
  EXPECT_FALSE(separable_weights({0, -1, 0, -1, 5, -1, 0, -1, 0}, 3).separable());
  EXPECT_FALSE(separable_weights({1, 2, 1, 2, 4, 2, 1, 2, 2}, 3).separable());
  EXPECT_FALSE(separable_weights(std::vector<int>(9, 0), 3).separable());
  const std::map<std::string, std::string> gaussian = defines_of("gaussian5", 3);
  EXPECT_EQ(gaussian.at("PIMG_SEPARABLE"), "1");
  EXPECT_EQ(gaussian.at("PIMG_ROW_WEIGHTS"), "1,4,6,4,1");
  EXPECT_EQ(defines_of("sharpen3", 1).at("PIMG_SEPARABLE"), "0");
}

TEST(ConvFamily, PackedLanesOnlyWhereNoLaneCanCarry) {
  using pimg::conv::packed_shift;
  using pimg::conv::SeparableWeights;
  const SeparableWeights g{{1, 4, 6, 4, 1}, {1, 4, 6, 4, 1}};
  EXPECT_EQ(packed_shift(g, 256), 8);  // 256 * 255 + 128 = 65408 < 2^16, quotients up to 255
  EXPECT_EQ(packed_shift(g, 512), -1);  // 2^9: a lane's quotient would not sit in its low byte after one shift
  EXPECT_EQ(packed_shift(g, 100), -1);  // not a power of two
  EXPECT_EQ(packed_shift(g, 128), -1);  // quotients up to 510: saturation needed
  EXPECT_EQ(packed_shift({{1, 2, 1}, {1, 2, 1}}, 16), 4);
  EXPECT_EQ(packed_shift({{1, 2, 1}, {1, 2, 1}}, 1), -1);  // sums up to 4080 but quotients over 255
  EXPECT_EQ(packed_shift({{1}, {1}}, 1), 0);
  EXPECT_EQ(packed_shift({{1, 0, -1}, {1, 2, 1}}, 1), -1);  // a negative factor
  EXPECT_EQ(packed_shift({{16, 16, 16, 16, 16}, {1, 1, 1, 1, 1}}, 256), -1);  // row pass 80 * 255 fits, whole sum not
  EXPECT_EQ(packed_shift({}, 256), -1);
  const std::map<std::string, std::string> gaussian = defines_of("gaussian5", 3);
  EXPECT_EQ(gaussian.at("PIMG_PACKED"), "1");
  EXPECT_EQ(gaussian.at("PIMG_PACK_SHIFT"), "8");
  EXPECT_EQ(defines_of("sharpen3", 1).at("PIMG_PACKED"), "0");
}

TEST(ConvFamily, BadAttributesNameTheKey) {
  ConvFamily f;
  auto key_of = [&](int w, int h, int c, std::map<std::string, std::string> a) {
    try {
      f.make_problem(w, h, c, a);
    } catch (const AttrError& e) {
      return e.key();
    }
    return std::string("none");
  };
  EXPECT_EQ(key_of(8, 8, 2, {}), "channels");
  EXPECT_EQ(key_of(8, 8, 1, {{"filter", "emboss"}}), "filter");
  EXPECT_EQ(key_of(8, 8, 1, {{"filter", "custom"}, {"weights", "1,2;3,4"}, {"divisor", "1"}}), "weights");
  EXPECT_EQ(key_of(8, 8, 1, {{"filter", "custom"}, {"weights", "1"}, {"divisor", "0"}}), "divisor");
  EXPECT_EQ(key_of(8, 8, 1, {{"filter", "sharpen3"}, {"divisor", "3"}}), "divisor");
  EXPECT_EQ(key_of(0, 8, 1, {}), "sizes");
  EXPECT_EQ(key_of(3, 3, 1, {{"filter", "gaussian5"}, {"border", "valid"}}), "border");
  EXPECT_EQ(key_of(8, 8, 1, {{"seed", "x"}}), "seed");
}

TEST(ConvFamily, CompareLocatesFirstMismatch) {
  ConvFamily f;
  Problem p = f.make_problem(4, 2, 3, {{"layout", "planar"}});
  std::vector<std::uint8_t> a(24, 7), b = a;
  EXPECT_TRUE(f.compare(p, a, b).ok);
  b[4 * 2 + 5] = 9;  // channel 1, pixel (1, 1)
  Validation v = f.compare(p, a, b);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("x=1 y=1 c=1"), std::string::npos) << v.detail;
  EXPECT_FALSE(f.compare(p, a, std::vector<std::uint8_t>(3)).ok);
}

TEST(ConvFamily, TrafficAndWork) {
  ConvFamily f;
  Problem p = f.make_problem(100, 50, 3, {{"filter", "gaussian5"}, {"border", "valid"}});
  EXPECT_DOUBLE_EQ(f.work(p), 96.0 * 46);
  Traffic t = f.traffic(p);
  EXPECT_DOUBLE_EQ(t.bytes, 100.0 * 50 * 3 + 96.0 * 46 * 3);
  EXPECT_DOUBLE_EQ(t.ops, 2.0 * 25 * 96 * 46 * 3);
}

TEST(ConvFamily, TruncateRuleRoundsTowardZero) {
  ConvFamily f;
  Problem p = f.make_problem(2, 1, 1, {{"filter", "custom"}, {"weights", "1"}, {"divisor", "2"}});
  Workload w = f.make_workload(p);
  w.inputs[0].bytes = {5, 7};
  EXPECT_EQ(f.reference(p, w), (std::vector<std::uint8_t>{3, 4}));            // 2.5 -> 3, 3.5 -> 4
  EXPECT_EQ(f.reference(p, w, "truncate"), (std::vector<std::uint8_t>{2, 3}));  // toward zero
}

// Seed 003's batch of images in one launch: the problem's batch attribute. The input is the images one after
// another (the random stream continued: the first image is the one-image problem's input), the reference
// computes each image alone, the comparison names the image of a mismatch, and work and traffic count every
// image. One image is the problem as it was: no batch attribute in its identity.
TEST(ConvBatch, ImagesOneAfterAnotherEachComputedAlone) {
  ConvFamily f;
  for (const char* layout : {"interleaved", "planar"})
    for (const char* border : {"zero", "valid", "replicate"}) {
      const std::map<std::string, std::string> attrs = {{"layout", layout}, {"border", border}, {"filter", "gaussian5"}};
      std::map<std::string, std::string> batched = attrs;
      batched["batch"] = "3";
      const Problem one = f.make_problem(19, 11, 3, attrs), three = f.make_problem(19, 11, 3, batched);
      SCOPED_TRACE(three.label());
      EXPECT_EQ(three.attr("batch"), "3");
      EXPECT_EQ(f.make_problem(19, 11, 3, [&] { auto a = attrs; a["batch"] = "1"; return a; }()).canonical(),
                one.canonical());
      const Workload w1 = f.make_workload(one), w3 = f.make_workload(three);
      const auto& in1 = w1.input("in").bytes;
      const auto& in3 = w3.input("in").bytes;
      ASSERT_EQ(in3.size(), 3 * in1.size());
      EXPECT_TRUE(std::equal(in1.begin(), in1.end(), in3.begin()));
      EXPECT_FALSE(std::equal(in1.begin(), in1.end(), in3.begin() + static_cast<long>(in1.size())));
      EXPECT_EQ(w3.output_bytes, 3 * w1.output_bytes);
      EXPECT_EQ(w3.defines.at("PIMG_BATCH"), "3");
      EXPECT_EQ(w1.defines.count("PIMG_BATCH"), 0u);
      const auto out3 = f.reference(three, w3);
      for (std::size_t i = 0; i < 3; ++i) {
        Workload wi = w1;
        wi.inputs[0].bytes.assign(in3.begin() + static_cast<long>(i * in1.size()),
                                  in3.begin() + static_cast<long>((i + 1) * in1.size()));
        const auto outi = f.reference(one, wi);
        EXPECT_TRUE(std::equal(outi.begin(), outi.end(), out3.begin() + static_cast<long>(i * outi.size())))
            << "image " << i;
      }
      EXPECT_DOUBLE_EQ(f.work(three), 3 * f.work(one));
      EXPECT_DOUBLE_EQ(f.traffic(three).bytes, 3 * f.traffic(one).bytes);
      EXPECT_EQ(f.pictures(three)->input.width, 19);  // a batch is pictured by its first image
    }
}

TEST(ConvBatch, CompareNamesTheImageOfAMismatch) {
  ConvFamily f;
  const Problem p = f.make_problem(4, 2, 3, {{"layout", "planar"}, {"batch", "3"}});
  std::vector<std::uint8_t> a(3 * 24, 7), b = a;
  EXPECT_TRUE(f.compare(p, a, b).ok);
  b[2 * 24 + 4 * 2 + 5] = 9;  // image 2, channel 1, pixel (1, 1)
  const Validation v = f.compare(p, a, b);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("image 2 x=1 y=1 c=1"), std::string::npos) << v.detail;
}

TEST(ConvBatch, BadBatchesNameTheKey) {
  ConvFamily f;
  for (const char* bad : {"0", "-2", "twenty", "65536"}) {
    try {
      f.make_problem(8, 8, 1, {{"batch", bad}});
      ADD_FAILURE() << "batch " << bad << " accepted";
    } catch (const AttrError& e) {
      EXPECT_EQ(e.key(), "batch") << bad;
    }
  }
  // 100 images of 4096x2304x3 bytes pass 2^31 bytes; 75 do not.
  EXPECT_THROW(f.make_problem(4096, 2304, 3, {{"batch", "100"}}), AttrError);
  EXPECT_NO_THROW(f.make_problem(4096, 2304, 3, {{"batch", "75"}}));
  EXPECT_NO_THROW(f.make_problem(4096, 2304, 3, {{"batch", "20"}}));  // the seed's batch
}
