// The messages between the supervisor and its workers (tuner/src/workers/wire.hpp, an internal header): a measurement
// specification arrives field for field as it was sent, through the framing, and a run's poison reaches the MPI
// ranks' protocol as a number.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "../../tuner/src/workers/compile_worker.hpp"
#include "../../tuner/src/workers/wire.hpp"

namespace {

using pimg::MeasureSpec;
namespace wire = pimg::wire;

// Adding a field to MeasureSpec (or to the specs it holds) changes its size: the field must then travel
// (wire::encode_measure, decode_measure) and be set to a non-default value below.
static_assert(sizeof(MeasureSpec) == 136,
              "MeasureSpec changed: make wire::encode_measure carry the new field and set it in this test");

MeasureSpec unusual() {
  MeasureSpec m;  // every field away from its default, doubles that decimal text cannot round to
  m.warmups = 3;
  m.repeats = 7;
  m.timeout_s = 2.0 / 3.0;
  m.isolation = false;
  m.max_repeats = 11;
  m.noise = 0.1 / 3.0;
  m.max_time_s = 1e-7;
  m.race = 0.25 / 3.0;
  m.timing.cold = false;
  m.timing.hide_launch = false;
  m.energy_s = 0.3;
  m.confirm.top = 9;
  m.confirm.within = 0.07;
  m.confirm.max = 13;
  m.confirm.rounds = 4;
  m.confirm.max_rounds = 17;
  m.confirm.max_time_s = 123.456;
  m.confirm.preparations = 3;
  m.confirm.sessions = 5;
  m.confirm.max_sessions = 7;
  m.confirm.max_sessions_given = true;
  m.cold.top = 6;
  m.noise_given = true;
  m.max_time_given = true;
  m.confirm.max_time_given = true;
  return m;
}

TEST(Wire, MeasureSpecArrivesFieldForField) {
  const MeasureSpec sent = unusual();
  ASSERT_NE(sent, MeasureSpec{});
  wire::Message m = {"eval", "variant\nwith a newline"};
  for (auto& f : wire::encode_measure(sent)) m.push_back(std::move(f));
  m.push_back("after");
  wire::Decoder d;
  const std::string bytes = wire::encode(m);
  d.feed(bytes.data(), bytes.size());
  const auto got = d.next();
  ASSERT_TRUE(got.has_value());
  ASSERT_EQ(*got, m);
  std::size_t i = 2;
  const MeasureSpec back = wire::decode_measure(*got, i);
  EXPECT_EQ(back, sent);
  EXPECT_EQ(got->at(i), "after");  // decode_measure stops at the end of its fields
  // The defaults too.
  i = 0;
  EXPECT_EQ(wire::decode_measure(wire::encode_measure(MeasureSpec{}), i), MeasureSpec{});
}

TEST(Wire, AShortMeasureSpecIsAnErrorNotDefaults) {
  wire::Message m = wire::encode_measure(unusual());
  m.pop_back();
  std::size_t i = 0;
  EXPECT_THROW(wire::decode_measure(m, i), std::out_of_range);
}

}  // namespace

// A compile worker's request (workers/compile_worker.hpp) carries what a precompile reads: the device, the source and
// the plan's entry, defines (in order, values with spaces and commas) and options; the rest of a plan stays behind.
TEST(Wire, ACompileRequestCarriesTheSourceAndThePlansCompileFields) {
  pimg::DeviceInfo d;
  d.backend = "opencl";
  d.index = 3;
  d.name = "Some GPU";
  const pimg::KernelSource src{"conv/conv_vec.cl", "__kernel void k() {}\n", "abc123"};
  pimg::LaunchPlan plan;
  plan.entry = "conv_vec";
  plan.defines = {{"TAPS", "1,2,1"}, {"B", ""}, {"A", "x y"}};
  plan.options = {"-cl-fast-relaxed-math", ""};
  plan.global = {64, 8, 1};
  const wire::Message m = wire::decode_whole(wire::encode(pimg::encode_compile(d, src, plan)));
  const pimg::CompileRequest r = pimg::decode_compile(m);
  EXPECT_EQ(r.backend, "opencl");
  EXPECT_EQ(r.device_index, 3);
  EXPECT_EQ(r.device_name, "Some GPU");
  EXPECT_EQ(r.source.path, src.path);
  EXPECT_EQ(r.source.text, src.text);
  EXPECT_EQ(r.source.hash, src.hash);
  EXPECT_EQ(r.plan.entry, "conv_vec");
  EXPECT_EQ(r.plan.defines, plan.defines);
  EXPECT_EQ(r.plan.options, plan.options);
  wire::Message longer = m;
  longer.push_back("extra");
  EXPECT_THROW(pimg::decode_compile(longer), std::runtime_error);
  wire::Message shorter(m.begin(), m.end() - 1);
  EXPECT_THROW(pimg::decode_compile(shorter), std::out_of_range);
}
