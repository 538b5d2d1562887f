// conv's pthread_rows (seed 003's pthreads version) on the host backend: threads created per run and a
// persistent pool, over layouts, borders, filters, odd sizes and more threads than rows, every output
// validated exactly against the reference; the serial baseline whose row loop it shares stays exact too.
#include <gtest/gtest.h>

#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"
#include "test_devices.hpp"

namespace pimg {
namespace {

EvalResult run(const std::string& variant, const Problem& p, const Config& c) {
  const Family& family = *Registry::builtin().family("conv");
  const Workload w = family.make_workload(p);
  const Variant* v = Registry::builtin().variant("conv", variant);
  EXPECT_NE(v, nullptr) << variant;
  const std::vector<std::uint8_t> expected = family.reference(p, w, v->validation_rule());
  EvalContext ctx{family, p, w, expected, test::first_device("host"), MeasureSpec::fixed(1, 3, 60)};
  return evaluate(ctx, *v, c);
}

TEST(PthreadRows, ExactOnEveryShapeWithCreatedThreadsAndAPool) {
  struct Shape {
    int channels;
    const char* layout;
  };
  for (const Shape& shape : {Shape{1, "interleaved"}, Shape{3, "interleaved"}, Shape{3, "planar"}})
    for (const char* border : {"zero", "valid", "replicate"})
      for (const char* filter : {"sharpen3", "gaussian5"}) {
        const Problem p = Registry::builtin().family("conv")->make_problem(
            37, 23, shape.channels, {{"layout", shape.layout}, {"border", border}, {"filter", filter}});
        for (std::int64_t threads : {1, 2, 3, 64})  // 64: more threads than rows, some with none
          for (std::int64_t pool : {0, 1}) {
            SCOPED_TRACE(::testing::Message() << p.label() << " threads=" << threads << " pool=" << pool);
            Config c;
            c.set("threads", threads);
            c.set("pool", pool);
            const EvalResult r = run("pthread_rows", p, c);
            EXPECT_EQ(r.status, Status::ok) << r.log << r.validation;
            EXPECT_EQ(r.validation, "exact");
          }
        const EvalResult serial = run("serial", p, Config{});
        EXPECT_EQ(serial.status, Status::ok) << serial.log << serial.validation;
      }
}

// A batch of 3 images (seed 003's batch, the conv family's batch attribute): serial and pthread_rows compute
// every image, each validated exactly; the threads' blocks of rows run across image boundaries.
TEST(PthreadRows, BatchOfImagesExactInEveryImage) {
  for (const char* layout : {"interleaved", "planar"})
    for (const char* border : {"zero", "valid"}) {
      const Problem p = Registry::builtin().family("conv")->make_problem(
          23, 9, 3, {{"layout", layout}, {"border", border}, {"filter", "gaussian5"}, {"batch", "3"}});
      SCOPED_TRACE(p.label());
      for (std::int64_t threads : {2, 5}) {
        Config c;
        c.set("threads", threads);
        c.set("pool", std::int64_t{1});
        const EvalResult r = run("pthread_rows", p, c);
        EXPECT_EQ(r.status, Status::ok) << r.log << r.validation;
      }
      const EvalResult serial = run("serial", p, Config{});
      EXPECT_EQ(serial.status, Status::ok) << serial.log << serial.validation;
      EXPECT_EQ(serial.validation, "exact");
    }
}

TEST(PthreadRows, DeclaresItsThreadCountsAndPoolValues) {
  const Variant* v = Registry::builtin().variant("conv", "pthread_rows");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->backend(), "host");
  for (const ParamDecl& d : v->parameters()) {
    if (d.name == "threads") {
      EXPECT_TRUE(param_value_error(d, 0).has_value());
      EXPECT_FALSE(param_value_error(d, 8).has_value());
    }
    if (d.name == "pool") EXPECT_TRUE(param_value_error(d, 2).has_value());
  }
}

}  // namespace
}  // namespace pimg
