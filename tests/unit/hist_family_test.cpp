// The hist and histeq family contracts: counting reference by hand (1 and 3 interleaved channels), the
// equalisation rule on hand-checked cases, seeded inputs, bad attributes, comparison messages.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "hist/hist_family.hpp"
#include "histeq/histeq_family.hpp"
#include "pimg/errors.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

std::vector<std::uint32_t> bins_of(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint32_t> out(bytes.size() / 4);
  std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// hist::reference over `in` (its output first filled with 99, so an unwritten bin shows): each listed
// (bin, count), and every byte counted exactly once.
void expect_bins(const std::vector<std::uint8_t>& in, int channels, bool planar,
                 std::initializer_list<std::pair<std::size_t, std::uint32_t>> counts) {
  std::vector<std::uint32_t> out(256 * static_cast<std::size_t>(channels), 99);
  hist::reference(in.data(), in.size(), channels, planar, out.data());
  for (const auto& [bin, count] : counts) EXPECT_EQ(out[bin], count) << "bin " << bin;
  EXPECT_EQ(std::accumulate(out.begin(), out.end(), 0u), in.size());
}

TEST(HistReference, CountsOneChannelByHand) {
  expect_bins({0, 255, 7, 7, 7, 0, 128}, 1, false, {{0, 2u}, {7, 3u}, {128, 1u}, {255, 1u}});
}

TEST(HistReference, ThreeInterleavedChannelsHaveOneHistogramEach) {
  // Pixels (B, G, R): (1, 2, 3), (1, 5, 3), (9, 2, 3).
  expect_bins({1, 2, 3, 1, 5, 3, 9, 2, 3}, 3, false,
              {{1, 2u}, {9, 1u}, {256 + 2, 2u}, {256 + 5, 1u}, {512 + 3, 3u}});
}

TEST(HistReference, ThreePlanarChannelsCountPlaneByPlane) {
  // The same bytes as planes (seed 002's CImg layout): {1, 2, 3}, {1, 5, 3}, {9, 2, 3}.
  expect_bins({1, 2, 3, 1, 5, 3, 9, 2, 3}, 3, true,
              {{1, 1u}, {2, 1u}, {3, 1u}, {256 + 1, 1u}, {256 + 5, 1u}, {256 + 3, 1u}, {512 + 9, 1u}, {512 + 2, 1u},
               {512 + 3, 1u}});
}

TEST(HistFamily, PlanarLayoutIsAnAttributeKeptOnlyWhenPlanar) {
  const Family& f = *Registry::builtin().family("hist");
  // Interleaved problems keep the identity they had before the attribute existed.
  EXPECT_EQ(f.make_problem(8, 8, 3, {}).canonical(), f.make_problem(8, 8, 3, {{"layout", "interleaved"}}).canonical());
  EXPECT_EQ(f.make_problem(8, 8, 1, {{"layout", "planar"}}).attrs.count("layout"), 0u);  // one channel: the same
  const Problem p = f.make_problem(5, 3, 3, {{"layout", "planar"}});
  EXPECT_EQ(p.attr("layout"), "planar");
  const Workload w = f.make_workload(p);
  EXPECT_EQ(w.defines.at("PIMG_PLANAR"), "1");
  EXPECT_EQ(w.defines.at("PIMG_PLANE"), "15");
  // The same random bytes as the interleaved problem, counted plane by plane.
  const Problem q = f.make_problem(5, 3, 3, {});
  const auto& bytes = w.input("in").bytes;
  EXPECT_EQ(bytes, f.make_workload(q).input("in").bytes);
  std::vector<std::uint32_t> want(768, 0);
  for (std::size_t i = 0; i < bytes.size(); ++i) ++want[(i / 15) * 256 + bytes[i]];
  EXPECT_EQ(bins_of(f.reference(p, w)), want);
  try {
    f.make_problem(5, 3, 3, {{"layout", "rows"}});
    ADD_FAILURE() << "layout rows accepted";
  } catch (const AttrError& e) {
    EXPECT_EQ(e.key(), "layout");
  }
}

TEST(HistFamily, WorkloadReferenceAndCompare) {
  const Family& f = *Registry::builtin().family("hist");
  const Problem p = f.make_problem(33, 7, 3, {{"dist", "peaked"}});
  const Workload w = f.make_workload(p);
  EXPECT_EQ(w.input("in").bytes.size(), 33u * 7 * 3);
  EXPECT_EQ(w.output_bytes, 768u * 4);
  const auto ref = f.reference(p, w);
  const auto bins = bins_of(ref);
  EXPECT_EQ(std::accumulate(bins.begin(), bins.begin() + 256, 0u), 33u * 7);
  // peaked: a sum of four draws in 0..63, so nothing above 252.
  for (int v = 253; v < 256; ++v) EXPECT_EQ(bins[v], 0u);
  EXPECT_TRUE(f.compare(p, ref, ref).ok);
  auto bad = ref;
  bad[4 * (256 + 10)] ^= 1;
  const Validation v = f.compare(p, ref, bad);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("1 of 768 bins differ; first channel 1 bin 10"), std::string::npos) << v.detail;
  EXPECT_FALSE(f.compare(p, ref, std::vector<std::uint8_t>(12)).ok);
  EXPECT_DOUBLE_EQ(f.work(p), 33.0 * 7);
}

TEST(HistFamily, SeededInputIsReproducibleAndNotZero) {
  const Family& f = *Registry::builtin().family("hist");
  const Problem p = f.make_problem(64, 64, 1, {});
  EXPECT_EQ(p.attr("seed"), "1107");
  EXPECT_EQ(p.attr("dist"), "uniform");
  const auto a = f.make_workload(p).input("in").bytes;
  EXPECT_EQ(a, f.make_workload(p).input("in").bytes);
  EXPECT_NE(a, f.make_workload(f.make_problem(64, 64, 1, {{"seed", "7"}})).input("in").bytes);
  EXPECT_TRUE(std::any_of(a.begin(), a.end(), [](std::uint8_t v) { return v != 0; }));
}

TEST(HistFamily, BadAttributesNameTheKey) {
  const Family& f = *Registry::builtin().family("hist");
  auto key_of = [&](int channels, std::map<std::string, std::string> attrs) {
    try {
      f.make_problem(8, 8, channels, std::move(attrs));
    } catch (const AttrError& e) {
      return e.key() + ": " + e.what();
    }
    return std::string("accepted");
  };
  EXPECT_NE(key_of(2, {}).find("channels"), std::string::npos);
  EXPECT_NE(key_of(1, {{"seed", "x1"}}).find("seed"), std::string::npos);
  const Family& eq = *Registry::builtin().family("histeq");
  EXPECT_THROW(eq.make_problem(8, 8, 3, {}), AttrError);
  EXPECT_THROW(f.make_problem(0, 8, 1, {}), AttrError);
}

std::vector<std::uint8_t> lut_of(std::vector<std::uint32_t> hist) {
  hist.resize(256);
  std::vector<std::uint8_t> lut(256);
  histeq::lut_from_hist(hist.data(), std::accumulate(hist.begin(), hist.end(), std::int64_t{0}), lut.data());
  return lut;
}

TEST(HisteqRule, OpenCvEqualizeHistByHand) {
  // Every pixel equal: the image is unchanged (OpenCV sets dst to that value).
  std::vector<std::uint32_t> h(256);
  h[77] = 10;
  EXPECT_EQ(lut_of(h)[77], 77);
  // Two values: the lower maps to 0, the higher to 255.
  h.assign(256, 0);
  h[10] = 3;
  h[200] = 5;
  EXPECT_EQ(lut_of(h)[10], 0);
  EXPECT_EQ(lut_of(h)[200], 255);
  // Bins 0..3 with 1, 1, 1, 2 pixels: scale 255/4 = 63.75; cdf above the first 1, 2, 4 -> 63.75, 127.5, 255:
  // rint rounds 127.5 to even (128) and 63.75 to 64.
  h.assign(256, 0);
  h[0] = 1;
  h[1] = 1;
  h[2] = 1;
  h[3] = 2;
  const auto lut = lut_of(h);
  EXPECT_EQ(lut[0], 0);
  EXPECT_EQ(lut[1], 64);
  EXPECT_EQ(lut[2], 128);
  EXPECT_EQ(lut[3], 255);
  // Half to even the other way: scale 255/2 = 127.5 at cdf 1 -> 128 (even); 0.5 steps in float.
  h.assign(256, 0);
  h[5] = 1;
  h[6] = 1;
  h[7] = 1;
  EXPECT_EQ(lut_of(h)[6], 128);
  EXPECT_EQ(lut_of(h)[7], 255);
}

TEST(HisteqFamily, ReferenceMapsThroughTheLut) {
  const Family& f = *Registry::builtin().family("histeq");
  const Problem p = f.make_problem(41, 13, 1, {{"dist", "peaked"}});
  const Workload w = f.make_workload(p);
  const auto out = f.reference(p, w);
  ASSERT_EQ(out.size(), 41u * 13);
  const auto& in = w.input("in").bytes;
  std::vector<std::uint32_t> h(256);
  for (auto v : in) ++h[v];
  const auto lut = lut_of(h);
  for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], lut[in[i]]) << i;
  // Equalised: the brightest input maps to 255, the darkest to 0.
  EXPECT_EQ(*std::max_element(out.begin(), out.end()), 255);
  EXPECT_EQ(*std::min_element(out.begin(), out.end()), 0);
  auto bad = out;
  bad[41 * 2 + 5] ^= 3;
  const Validation v = f.compare(p, out, bad);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("first at x=5 y=2"), std::string::npos) << v.detail;
  EXPECT_DOUBLE_EQ(f.traffic(p).bytes, 2.0 * 41 * 13);
}

}  // namespace
}  // namespace pimg
