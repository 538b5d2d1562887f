// The semblance family contract: the SU reader on a corpus of broken and scaled files, the synthetic
// generator (the reference's search recovers the grid point that generated the data), problem
// attributes, and the validation rule on both output layouts.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "pimg/errors.hpp"
#include "pimg/su.hpp"
#include "semblance/semblance_family.hpp"

extern "C" {
#include "semblance/semblance_core.h"
}

using namespace pimg;
using namespace pimg::semblance;

namespace {

std::string su_path(const std::string& name) { return std::string(PIMG_TEST_DATA) + "/su/" + name; }

std::string read_error(const std::string& name) {
  try {
    read_su(su_path(name));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "no error";
}

Problem synthetic_problem(const std::string& grid, const std::string& truth, const std::string& noise = "0.2") {
  return SemblanceFamily().make_problem(48, 700, 1, {{"data", "synthetic"}, {"params", "synth"}, {"grid", grid},
                                                    {"truth", truth}, {"noise", noise}});
}

float at(const std::vector<std::uint8_t>& out, std::size_t i) {
  float v;
  std::memcpy(&v, out.data() + 16 + 4 * i, 4);
  return v;
}

void set(std::vector<std::uint8_t>& out, std::size_t i, float v) { std::memcpy(out.data() + 16 + 4 * i, &v, 4); }

std::int64_t argmax(const std::vector<std::uint8_t>& out, std::int64_t n) {
  std::int64_t best = 0;
  for (std::int64_t i = 1; i < n; ++i)
    if (at(out, i) > at(out, best)) best = i;
  return best;
}

// A small synthetic problem, its spec and its reference output.
struct Solved {
  Problem p = synthetic_problem("4", "1,2,3,0,2");
  SembSpec s = spec_of(p);
  std::int64_t n = s.points();
  std::vector<std::uint8_t> ref = SemblanceFamily().reference(p, SemblanceFamily().make_workload(p));
  std::int64_t best = argmax(ref, n);
};

// The comparison rules, each against a fresh Solved.
class SemblanceCompare : public ::testing::Test {
 protected:
  SemblanceFamily f;
  const Solved solved{};
  const Problem& p = solved.p;
  const std::int64_t n = solved.n, best = solved.best;
  const std::vector<std::uint8_t>& ref = solved.ref;
};

}  // namespace

TEST(SuReader, CorruptFilesNameFileTraceAndByte) {
  EXPECT_NE(read_error("empty.su").find("empty.su: empty SU file"), std::string::npos) << read_error("empty.su");
  EXPECT_NE(read_error("truncated_header.su").find("trace 1 (byte 272): truncated header, 100 of 240 bytes"),
            std::string::npos)
      << read_error("truncated_header.su");
  EXPECT_NE(read_error("truncated_samples.su").find("trace 1 (byte 512): truncated samples, 20 of 32 bytes"),
            std::string::npos)
      << read_error("truncated_samples.su");
  EXPECT_NE(read_error("inconsistent_ns.su").find("trace 2 (byte 544): inconsistent ns 6 (trace 0 has 8)"),
            std::string::npos)
      << read_error("inconsistent_ns.su");
  EXPECT_NE(read_error("zero_ns.su").find("ns is 0"), std::string::npos) << read_error("zero_ns.su");
  EXPECT_NE(read_error("missing.su").find("cannot open"), std::string::npos);
}

TEST(SuReader, ScalcoFollowsSegyConvention) {
  const SuData neg = read_su(su_path("negative_scalco.su"));
  ASSERT_EQ(neg.traces.size(), 2u);
  EXPECT_EQ(neg.ns, 8);
  EXPECT_EQ(neg.dt, 2000);
  EXPECT_EQ(neg.traces[0].header.scalco, -100);
  EXPECT_DOUBLE_EQ(su_scaled(neg.traces[0].header.sy, -100), 4360.5);  // divided, not multiplied by -100
  EXPECT_DOUBLE_EQ(su_scaled(neg.traces[1].header.sy, -100), -50.25);
  EXPECT_FLOAT_EQ(semb_scale(neg.traces[0].header.gy, -100), 3879.5f);
  const semb_geom g = semb_geometry(-100, 436050, 387950, 4120.0f, -480.0f);
  EXPECT_FLOAT_EQ(g.dm, 0.0f);                   // midpoint (4360.5 + 3879.5) / 2 = 4120
  EXPECT_FLOAT_EQ(g.dh, -240.5f + 480.0f);       // half-offset (3879.5 - 4360.5) / 2 = -240.5
  const SuData pos = read_su(su_path("positive_scalco.su"));
  EXPECT_DOUBLE_EQ(su_scaled(pos.traces[0].header.sy, pos.traces[0].header.scalco), 4120.0);
  EXPECT_DOUBLE_EQ(su_scaled(pos.traces[1].header.sy, pos.traces[1].header.scalco), 4120.0);  // 0 means 1
  EXPECT_FLOAT_EQ(pos.traces[0].samples[3], 0.5f);
}

TEST(SuReader, EncodeParsesBack) {
  std::ifstream in(su_path("positive_scalco.su"), std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(encode_su(parse_su(bytes, "positive_scalco.su")), bytes);
}

TEST(SemblanceProblem, AttributesAndErrors) {
  SemblanceFamily f;
  const Problem p = f.make_problem(16, 300, 1, {{"grid", "3,4,5,6,7"}});
  EXPECT_EQ(p.attr("params"), "synth");
  EXPECT_EQ(p.attr("truth"), "1,2,2,3,3");
  EXPECT_EQ(p.attr("dt"), "2000");
  const SembSpec s = spec_of(p);
  EXPECT_EQ(s.points(), 3 * 4 * 5 * 6 * 7);
  EXPECT_EQ(s.tau, 2);  // TAU 0.005 s at 2 ms: the seed's int(tau * idt)
  EXPECT_EQ(s.w, 5);
  EXPECT_EQ(point_coords(s, point_index(s, {2, 3, 4, 5, 6})), (std::array<int, 5>{2, 3, 4, 5, 6}));
  EXPECT_EQ(f.make_problem(16, 300, 1, {{"grid", "4"}}).attr("grid"), "4");
  auto key_of = [&](std::map<std::string, std::string> attrs, int w = 16, int h = 300) {
    try {
      f.make_problem(w, h, 1, std::move(attrs));
    } catch (const AttrError& e) {
      return e.key();
    }
    return std::string("none");
  };
  EXPECT_EQ(key_of({{"params", "param9"}}), "params");
  EXPECT_EQ(key_of({{"grid", "0"}}), "grid");
  EXPECT_EQ(key_of({{"grid", "4,4"}}), "grid");
  EXPECT_EQ(key_of({{"grid", "1000"}}), "grid");  // 10^15 points
  EXPECT_EQ(key_of({{"grid", "4"}, {"truth", "4,0,0,0,0"}}), "truth");
  EXPECT_EQ(key_of({{"noise", "-1"}}), "noise");
  EXPECT_EQ(key_of({}, 0, 0), "sizes");
  EXPECT_EQ(key_of({{"data", su_path("negative_scalco.su")}, {"seed", "3"}}), "seed");
  EXPECT_EQ(key_of({{"data", su_path("negative_scalco.su")}}, 3, 8), "sizes");  // the file holds 2 traces
  const Problem file = f.make_problem(0, 0, 1, {{"data", su_path("negative_scalco.su")}});
  EXPECT_EQ(file.size(), "2x8");
  EXPECT_EQ(file.attr("params"), "param1");
  EXPECT_THROW(f.make_problem(0, 0, 1, {{"data", su_path("truncated_samples.su")}}), UsageError);
}

TEST(SemblanceReference, RecoversTheSyntheticTruth) {
  SemblanceFamily f;
  for (const std::string truth : {"2,1,3,2,4", "0,4,1,3,2", "3,3,0,1,1"}) {
    const Problem p = synthetic_problem("5", truth);
    const SembSpec s = spec_of(p);
    const Workload w = f.make_workload(p);
    const std::vector<std::uint8_t> out = f.reference(p, w);
    ASSERT_EQ(out.size(), 16 + 8 * 3125u);
    std::int32_t tag;
    std::memcpy(&tag, out.data(), 4);
    EXPECT_EQ(tag, SEMB_TAG_GRID);
    const std::int64_t best = argmax(out, s.points());
    EXPECT_EQ(best, point_index(s, s.truth)) << "truth " << truth;
    EXPECT_GT(at(out, best), 0.8f);
    EXPECT_LE(at(out, best), 1.0f);
    // The stack at the truth is the mean of the wavelet around its peak (Ricker(0) = 1), positive.
    EXPECT_GT(at(out, s.points() + best), 0.5f);
  }
}

// The validation reference shares the grid's planes among threads; the bytes are the serial loop's.
TEST(SemblanceReference, ThreadsChangeNothing) {
  SemblanceFamily f;
  const Problem p = synthetic_problem("3,4,5,2,7", "1,2,3,0,4");
  const SembSpec s = spec_of(p);
  const Workload w = f.make_workload(p);
  auto run = [&](int threads) {
    std::vector<std::uint8_t> out(output_bytes(s), 0xA5);
    reference(s, reinterpret_cast<const float*>(w.input("samples").bytes.data()),
              reinterpret_cast<const std::int32_t*>(w.input("hdr").bytes.data()),
              reinterpret_cast<const float*>(w.input("axes").bytes.data()), out.data(), threads);
    return out;
  };
  const std::vector<std::uint8_t> serial = run(1);
  EXPECT_EQ(serial, f.reference(p, w));
  for (int threads : {2, 5, 64}) EXPECT_EQ(run(threads), serial) << threads << " threads";
}

TEST(SemblanceReference, NoiseFreeDataIsFullyCoherentAtTheTruth) {
  SemblanceFamily f;
  const Problem p = synthetic_problem("4", "1,2,3,0,2", "0");
  const SembSpec s = spec_of(p);
  const std::vector<std::uint8_t> out = f.reference(p, f.make_workload(p));
  const std::int64_t best = argmax(out, s.points());
  EXPECT_EQ(best, point_index(s, s.truth));
  EXPECT_GT(at(out, best), 0.99f);
}

TEST_F(SemblanceCompare, GridLayoutRule) {
  const float max = at(ref, best);
  EXPECT_TRUE(f.compare(p, ref, ref).ok) << f.compare(p, ref, ref).detail;

  auto actual = ref;
  set(actual, best, max * (1 + 4e-6f));  // within 1e-5 relative
  EXPECT_TRUE(f.compare(p, ref, actual).ok);
  set(actual, best, max * (1 + 3e-5f));
  Validation v = f.compare(p, ref, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("differs from the reference maximum"), std::string::npos) << v.detail;

  // Another point becomes the best: accepted only when the reference scores it as a near tie.
  const std::int64_t other = best == 0 ? 1 : 0;
  actual = ref;
  set(actual, other, max);
  v = f.compare(p, ref, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("not a near tie"), std::string::npos) << v.detail;
  auto tie_ref = ref;
  set(tie_ref, other, max * (1 - 5e-6f));
  actual = tie_ref;
  set(actual, best, max * (1 - 2e-6f));
  set(actual, other, max);
  v = f.compare(p, tie_ref, actual);
  EXPECT_TRUE(v.ok) << v.detail;
  EXPECT_NE(v.detail.find("near tie"), std::string::npos) << v.detail;

  // Stack at the best point within 1e-4 relative.
  actual = ref;
  const float stack = at(ref, n + best);
  set(actual, n + best, stack * (1 + 5e-5f));
  EXPECT_TRUE(f.compare(p, ref, actual).ok);
  set(actual, n + best, stack * (1 + 3e-4f));
  EXPECT_FALSE(f.compare(p, ref, actual).ok);

  // An unwritten point (the evaluator's 0xA5 poison is a negative float) and an unwritten header.
  actual = ref;
  std::memset(actual.data() + 16 + 4 * 7, 0xA5, 4);
  v = f.compare(p, ref, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("point 7"), std::string::npos) << v.detail;
  actual = ref;
  std::memset(actual.data(), 0xA5, 16);
  v = f.compare(p, ref, actual);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.detail.find("header tag 0xa5a5a5a5"), std::string::npos) << v.detail;
  EXPECT_FALSE(f.compare(p, ref, std::vector<std::uint8_t>(ref.size() - 4)).ok);
}

TEST_F(SemblanceCompare, BestLayoutRule) {
  auto best_layout = [&](std::int32_t idx, float sem, float stack) {
    std::vector<std::uint8_t> out(ref.size(), 0xA5);
    const std::int32_t tag = SEMB_TAG_BEST;
    std::memcpy(out.data(), &tag, 4);
    std::memcpy(out.data() + 4, &idx, 4);
    std::memcpy(out.data() + 8, &sem, 4);
    std::memcpy(out.data() + 12, &stack, 4);
    return out;
  };
  const auto good = best_layout(static_cast<std::int32_t>(best), at(ref, best), at(ref, n + best));
  Validation v = f.compare(p, ref, good);
  EXPECT_TRUE(v.ok) << v.detail;
  const std::int64_t other = best == 0 ? 1 : 0;
  EXPECT_FALSE(f.compare(p, ref, best_layout(static_cast<std::int32_t>(other), at(ref, best), at(ref, n + best))).ok);
  EXPECT_FALSE(f.compare(p, ref, best_layout(static_cast<std::int32_t>(n), at(ref, best), 0)).ok);
  EXPECT_FALSE(f.compare(p, ref, best_layout(static_cast<std::int32_t>(best), at(ref, best) * 0.99f, at(ref, n + best))).ok);
}

TEST(SemblanceFamily, WorkAndTraffic) {
  SemblanceFamily f;
  const Problem p = synthetic_problem("4", "1,2,3,0,2");
  const SembSpec s = spec_of(p);
  EXPECT_DOUBLE_EQ(flops_per_point(s), 48.0 * (12 + 8 * 5) + 3 * 5 + 2);
  EXPECT_DOUBLE_EQ(f.work(p), flops_per_point(s) * 1024 / 1e3);
  EXPECT_EQ(f.unit(), "GFLOP/s");
  EXPECT_GT(f.traffic(p).bytes, 48.0 * 700 * 4);
}
