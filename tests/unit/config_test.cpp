// Canonical text and hashes of configurations and problems: order-independent, stable, parseable.
#include <gtest/gtest.h>

#include "pimg/config.hpp"
#include "pimg/problem.hpp"
#include "pimg/result.hpp"

using namespace pimg;

TEST(Config, CanonicalIsSortedAndOrderIndependent) {
  Config a, b;
  a.set("block_x", std::int64_t{16});
  a.set("filter_mem", std::string("constant"));
  b.set("filter_mem", std::string("constant"));
  b.set("block_x", std::int64_t{16});
  EXPECT_EQ(a.canonical(), R"({"block_x":16,"filter_mem":"constant"})");
  EXPECT_EQ(a.canonical(), b.canonical());
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 16u);
}

TEST(Config, HashDistinguishesValuesAndTypes) {
  Config a, b, c;
  a.set("x", std::int64_t{1});
  b.set("x", std::int64_t{2});
  c.set("x", std::string("1"));
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_NE(a.hash(), c.hash());
}

TEST(Config, ParseCanonicalRoundTrips) {
  Config a;
  a.set("n", std::int64_t{-3});
  a.set("s", std::string("a\"b"));
  a.set("z", std::int64_t{1024});
  Config back = Config::parse_canonical(a.canonical());
  EXPECT_EQ(back, a);
  EXPECT_EQ(Config::parse_canonical("{}").values().size(), 0u);
  EXPECT_THROW(Config::parse_canonical("{\"a\":}"), std::invalid_argument);
}

TEST(Config, TypedAccessorsNameTheParameter) {
  Config a;
  a.set("n", std::int64_t{3});
  EXPECT_EQ(a.integer("n"), 3);
  try {
    a.text("n");
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos);
  }
  EXPECT_THROW(a.integer("missing"), std::out_of_range);
}

TEST(Hash, KnownFnvValues) {
  // FNV-1a 64 reference values.
  EXPECT_EQ(hex64(fnv1a64("")), "cbf29ce484222325");
  EXPECT_EQ(hex64(fnv1a64("a")), "af63dc4c8601ec8c");
  EXPECT_EQ(hash128("abc").size(), 32u);
  EXPECT_NE(hash128("abc"), hash128("abd"));
}

TEST(Problem, CanonicalAndLabel) {
  Problem p{"conv", 64, 48, 3, {{"filter", "sharpen3"}, {"border", "zero"}}};
  EXPECT_EQ(p.canonical(), R"({"family":"conv","width":64,"height":48,"channels":3,"border":"zero","filter":"sharpen3"})");
  EXPECT_EQ(p.label(), "conv 64x48 c3 border=zero filter=sharpen3");
  EXPECT_EQ(p.size(), "64x48");
}

TEST(Stats, MedianMeanStddev) {
  Stats s = Stats::of({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_NEAR(s.stddev, 1.2909944, 1e-6);
  EXPECT_DOUBLE_EQ(Stats::of({7}).median, 7);
  EXPECT_DOUBLE_EQ(Stats::of({}).median, 0);
}

TEST(Status, RoundTrip) {
  for (Status s : {Status::ok, Status::compile_error, Status::launch_error, Status::timeout, Status::wrong_result})
    EXPECT_EQ(status_from_string(to_string(s)), s);
  EXPECT_THROW(status_from_string("fine"), std::invalid_argument);
}
