// The bgr2rgba, flip and maxpool family contracts on the CPU: attributes checked with the key named,
// seeded input (reproducible, not all zeros) and image-file input in both layouts, the references on
// hand-computed images, exact comparison locating the first mismatch, and minimum traffic and work.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "bgr2rgba/bgr2rgba_family.hpp"
#include "common/pix_common.hpp"
#include "flip/flip_family.hpp"
#include "maxpool/maxpool_family.hpp"
#include "pimg/errors.hpp"

namespace pimg {
namespace {

const bgr2rgba::Bgr2RgbaFamily kBgr;
const flip::FlipFamily kFlip;
const maxpool::MaxpoolFamily kPool;

std::string attr_error_key(const Family& f, int w, int h, int c, std::map<std::string, std::string> attrs) {
  try {
    f.make_problem(w, h, c, std::move(attrs));
  } catch (const AttrError& e) {
    return e.key();
  }
  return "";
}

TEST(PixFamilies, AttributesAreCheckedNamingTheKey) {
  EXPECT_EQ(attr_error_key(kBgr, 8, 8, 1, {}), "channels");
  EXPECT_EQ(attr_error_key(kBgr, 8, 8, 3, {{"alpha", "256"}}), "alpha");
  EXPECT_EQ(attr_error_key(kBgr, 8, 8, 3, {{"alpha", "x"}}), "alpha");
  EXPECT_EQ(attr_error_key(kBgr, 8, 8, 3, {{"seed", "-1"}}), "seed");
  EXPECT_EQ(attr_error_key(kBgr, 0, 8, 3, {}), "sizes");
  EXPECT_EQ(attr_error_key(kBgr, 32768, 32768, 3, {}), "sizes");  // 4 GiB of output
  EXPECT_EQ(attr_error_key(kFlip, 8, 8, 2, {}), "channels");
  EXPECT_EQ(attr_error_key(kPool, 1, 8, 1, {}), "sizes");
  EXPECT_EQ(attr_error_key(kPool, 8, 8, 4, {}), "channels");
  EXPECT_THROW(kFlip.make_problem(8, 8, 1, {{"input", "/nonexistent/picture.png"}}), UsageError);

  const Problem p = kBgr.make_problem(8, 4, 3, {});
  EXPECT_EQ(p.attr("alpha"), "255");
  EXPECT_EQ(p.attr("seed"), "1107");
  EXPECT_EQ(kFlip.make_problem(8, 4, 1, {{"layout", "planar"}}).attr("layout"), "interleaved");  // one channel
}

TEST(PixFamilies, SeededInputIsReproducibleAndNotZero) {
  const Problem a = kFlip.make_problem(16, 8, 3, {}), b = kFlip.make_problem(16, 8, 3, {{"seed", "7"}});
  const auto wa = kFlip.make_workload(a), wa2 = kFlip.make_workload(a), wb = kFlip.make_workload(b);
  EXPECT_EQ(wa.input("in").bytes, wa2.input("in").bytes);
  EXPECT_NE(wa.input("in").bytes, wb.input("in").bytes);
  EXPECT_EQ(wa.input("in").bytes.size(), 16u * 8 * 3);
  EXPECT_TRUE(std::any_of(wa.input("in").bytes.begin(), wa.input("in").bytes.end(), [](auto v) { return v != 0; }));
}

// The documented bytes (docs/families.md): byte i is byte i % 8, least significant first, of the (i / 8)-th draw
// of std::mt19937_64, whose outputs the standard fixes; a shorter fill is a prefix of a longer one (the first
// image of a batch is the single image); the 256 values come about equally often.
TEST(PixFamilies, SeededBytesAreTheStandardEnginesDrawsInOrder) {
  std::vector<std::uint8_t> bytes(21);
  pix::random_bytes(bytes, 1107);
  std::mt19937_64 engine(1107);
  for (std::size_t word = 0; word < 3; ++word) {
    const std::uint64_t v = engine();
    for (std::size_t b = 0; b < 8 && 8 * word + b < bytes.size(); ++b)
      EXPECT_EQ(bytes[8 * word + b], static_cast<std::uint8_t>(v >> (8 * b))) << "byte " << 8 * word + b;
  }
  std::mt19937_64 standard;  // the standard's check: the 10000th draw of a default-constructed engine
  standard.discard(9999);
  EXPECT_EQ(standard(), 9981545732273789042ull);
  std::vector<std::uint8_t> longer(1 << 20);
  pix::random_bytes(longer, 1107);
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), longer.begin()));
  const Problem p = kFlip.make_problem(13, 7, 3, {});  // 273 bytes: the first image ends inside a draw
  const auto single = pix::image_input(p, 3, false), two = pix::image_input(p, 3, false, 2);
  ASSERT_EQ(two.size(), 2 * single.size());
  EXPECT_TRUE(std::equal(single.begin(), single.end(), two.begin()));
  std::array<int, 256> count{};
  for (std::uint8_t v : longer) ++count[v];
  for (int v = 0; v < 256; ++v)  // 4096 expected, standard deviation 64: six deviations either way
    EXPECT_NEAR(count[v], 4096, 384) << "value " << v;
}

TEST(PixFamilies, Bgr2RgbaReferenceSwapsAndWritesAlpha) {
  const Problem p = kBgr.make_problem(2, 1, 3, {{"alpha", "7"}});
  Workload w = kBgr.make_workload(p);
  w.inputs[0].bytes = {1, 2, 3, 4, 5, 6};  // B G R, B G R
  EXPECT_EQ(kBgr.reference(p, w), (std::vector<std::uint8_t>{3, 2, 1, 7, 6, 5, 4, 7}));
  EXPECT_EQ(w.output_bytes, 8u);
  EXPECT_EQ(kBgr.traffic(p).bytes, 14);
  EXPECT_EQ(kBgr.work(p), 2);
}

TEST(PixFamilies, FlipReferenceMirrorsEachRowInBothLayouts) {
  Problem p = kFlip.make_problem(3, 1, 3, {});
  Workload w = kFlip.make_workload(p);
  w.inputs[0].bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // three interleaved pixels
  EXPECT_EQ(kFlip.reference(p, w), (std::vector<std::uint8_t>{7, 8, 9, 4, 5, 6, 1, 2, 3}));
  p = kFlip.make_problem(3, 1, 3, {{"layout", "planar"}});
  w = kFlip.make_workload(p);
  w.inputs[0].bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // three planes of one row
  EXPECT_EQ(kFlip.reference(p, w), (std::vector<std::uint8_t>{3, 2, 1, 6, 5, 4, 9, 8, 7}));
  EXPECT_EQ(kFlip.traffic(p).bytes, 18);
}

TEST(PixFamilies, MaxpoolReferenceTakesEachWindowsMaximumAndDropsTheOddEdge) {
  Problem p = kPool.make_problem(5, 3, 1, {});  // output 2x1: column 4 and row 2 are not read
  Workload w = kPool.make_workload(p);
  w.inputs[0].bytes = {1, 9, 3, 4, 250, 2, 5, 8, 6, 0, 255, 255, 255, 255, 255};
  EXPECT_EQ(kPool.reference(p, w), (std::vector<std::uint8_t>{9, 8}));
  p = kPool.make_problem(4, 2, 3, {{"layout", "interleaved"}});
  w = kPool.make_workload(p);
  w.inputs[0].bytes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,  // row 0: four B G R pixels
                       13, 0, 0, 0, 14, 0, 0, 0, 15, 16, 17, 18};
  EXPECT_EQ(kPool.reference(p, w), (std::vector<std::uint8_t>{13, 14, 6, 16, 17, 18}));
  EXPECT_EQ(kPool.traffic(p).bytes, 30);
  EXPECT_EQ(kPool.work(p), 2);
}

TEST(PixFamilies, MaxpoolWindowsOfThreeAndFourByHand) {
  // 7x4, one channel, window 3: output 2x1 (column 6 and row 3 are not read).
  Problem p = kPool.make_problem(7, 4, 1, {{"window", "3"}});
  EXPECT_EQ(p.attr("window"), "3");
  Workload w = kPool.make_workload(p);
  EXPECT_EQ(w.defines.at("PIMG_WINDOW"), "3");
  EXPECT_EQ(w.output_bytes, 2u);
  w.inputs[0].bytes = {1, 2, 3, 4, 5, 6, 99,   //
                       7, 8, 40, 9, 9, 9, 99,  //
                       0, 0, 0, 0, 0, 41, 99,  //
                       99, 99, 99, 99, 99, 99, 99};
  EXPECT_EQ(kPool.reference(p, w), (std::vector<std::uint8_t>{40, 41}));
  EXPECT_EQ(kPool.traffic(p).bytes, 10.0 * 2);
  EXPECT_EQ(kPool.traffic(p).ops, 8.0 * 2);
  // Window 4 on 3 planar channels of 4x4: one output pixel per plane.
  p = kPool.make_problem(4, 4, 3, {{"window", "4"}, {"layout", "planar"}});
  w = kPool.make_workload(p);
  std::vector<std::uint8_t> in(48, 0);
  in[15] = 7;       // plane 0, last pixel
  in[16 + 5] = 8;   // plane 1
  in[32 + 10] = 9;  // plane 2
  w.inputs[0].bytes = in;
  EXPECT_EQ(kPool.reference(p, w), (std::vector<std::uint8_t>{7, 8, 9}));
  // 2x2 problems keep their identity (no window attribute, no PIMG_WINDOW define).
  EXPECT_EQ(kPool.make_problem(8, 8, 1, {{"window", "2"}}).canonical(), kPool.make_problem(8, 8, 1, {}).canonical());
  EXPECT_EQ(kPool.make_workload(kPool.make_problem(8, 8, 1, {})).defines.count("PIMG_WINDOW"), 0u);
  EXPECT_EQ(attr_error_key(kPool, 8, 8, 1, {{"window", "5"}}), "window");
  EXPECT_EQ(attr_error_key(kPool, 3, 8, 1, {{"window", "4"}}), "sizes");  // smaller than one window
}

TEST(PixFamilies, CompareLocatesTheFirstMismatch) {
  const Problem p = kPool.make_problem(8, 4, 3, {{"layout", "planar"}});  // output 4x2, planes of 8 bytes
  std::vector<std::uint8_t> expected(24, 1), actual(24, 1);
  EXPECT_TRUE(kPool.compare(p, expected, actual).ok);
  EXPECT_EQ(kPool.compare(p, expected, actual).detail, "exact");
  actual[8 + 5] = 9;  // plane 1, x=1 y=1
  const Validation v = kPool.compare(p, expected, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("x=1 y=1 c=1: expected 1 got 9"), std::string::npos) << v.detail;
  EXPECT_FALSE(kPool.compare(p, expected, std::vector<std::uint8_t>(23)).ok);
}

// A 3x2 binary PPM (P6): the file's R G B become B G R for bgr2rgba and R G B planes for planar flip.
TEST(PixFamilies, ImageFileInputInEachLayout) {
  const auto path = std::filesystem::temp_directory_path() / ("pix-input-" + std::to_string(::getpid()) + ".ppm");
  {
    std::ofstream f(path, std::ios::binary);
    f << "P6\n3 2\n255\n";
    for (int i = 0; i < 18; ++i) f.put(static_cast<char>(i + 1));
  }
  const Problem b = kBgr.make_problem(0, 0, 3, {{"input", path.string()}});
  EXPECT_EQ(b.width, 3);
  EXPECT_EQ(b.height, 2);
  const auto bgr = kBgr.make_workload(b).input("in").bytes;
  EXPECT_EQ(std::vector<std::uint8_t>(bgr.begin(), bgr.begin() + 3), (std::vector<std::uint8_t>{3, 2, 1}));
  EXPECT_EQ(kBgr.reference(b, kBgr.make_workload(b))[0], 1);  // R of the file's first pixel
  const Problem f = kFlip.make_problem(0, 0, 3, {{"input", path.string()}, {"layout", "planar"}});
  const auto planar = kFlip.make_workload(f).input("in").bytes;
  EXPECT_EQ(planar[0], 1);  // R of pixel 0
  EXPECT_EQ(planar[1], 4);  // R of pixel 1
  EXPECT_EQ(planar[6], 2);  // G of pixel 0
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pimg
