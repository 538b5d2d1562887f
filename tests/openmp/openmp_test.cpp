// The OpenMP backend and its conv variants: kernels compiled per configuration must match the serial
// reference exactly over layouts, borders, filters and odd sizes; plus the compile cache (memory and
// disk), compiler failures, the copy kernel, the harness self-test and the OpenCV baselines.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/backend_checks.hpp"
#include "common/variant_matrix.hpp"
#include "openmp_backend.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/executor.hpp"
#include "pimg/registry.hpp"
#include "test_devices.hpp"

namespace fs = std::filesystem;

namespace pimg {
namespace {

// A private compile cache ($PIMG_CACHE_DIR) and temporary directory ($TMPDIR) for this process, so
// every run starts cold and leftovers of the backend's temporary files can be checked for.
class ScratchEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "pimg-openmp-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root() = pattern;
    fs::create_directories(cache_dir());
    fs::create_directories(tmp_dir());
    setenv("PIMG_CACHE_DIR", cache_dir().c_str(), 1);
    setenv("TMPDIR", tmp_dir().c_str(), 1);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root(), ec);
  }
  static fs::path& root() {
    static fs::path path;
    return path;
  }
  static fs::path cache_dir() { return root() / "cache"; }
  static fs::path tmp_dir() { return root() / "tmp"; }
};

[[maybe_unused]] const auto* const kScratch = ::testing::AddGlobalTestEnvironment(new ScratchEnvironment);

const Registry& reg() { return Registry::builtin(); }

Device& omp_device() { return test::first_device("openmp"); }

Device& host_device() { return test::first_device("host"); }

Problem conv_problem(int width, int height, int channels, const std::string& layout, const std::string& border,
                     const std::string& filter) {
  return reg().family("conv")->make_problem(width, height, channels,
                                            {{"layout", layout}, {"border", border}, {"filter", filter}});
}

// One warm-up and one timed run, each with the output poisoned and validated against the reference.
EvalResult run(Device& device, const std::string& variant, const Problem& p, const Config& c) {
  const Family& family = *reg().family("conv");
  const Workload w = family.make_workload(p);
  const Variant* v = reg().variant("conv", variant);
  EXPECT_NE(v, nullptr) << variant;
  const std::vector<std::uint8_t> expected = family.reference(p, w, v->validation_rule());
  EvalContext ctx{family, p, w, expected, device, MeasureSpec::fixed(1, 1, 60)};
  return evaluate(ctx, *v, c);
}

using testcommon::config;

Value i(std::int64_t v) { return v; }
Value t(const char* v) { return std::string(v); }

bool tmp_is_empty() { return fs::is_empty(ScratchEnvironment::tmp_dir()); }

using testcommon::kBorders;
using testcommon::kFilters;
using testcommon::kShapes;
using testcommon::Shape;

TEST(OpenmpBackend, StatusAndDevice) {
  DeviceInfo d;
  ASSERT_NO_FATAL_FAILURE(testcommon::only_device("openmp", d));
  EXPECT_FALSE(d.platform.empty());
  EXPECT_EQ(d.driver.rfind("OpenMP ", 0), 0u) << d.driver;
  EXPECT_GE(d.limits.at("max_threads"), 1);
  EXPECT_THROW(omp_device().alloc_image(4, 4), std::runtime_error);
}

TEST(OpenmpBackend, MissingCompilerMakesItUnavailable) {
  const char* old = std::getenv("PIMG_HOST_CXX");
  const std::string saved = old ? old : "";
  setenv("PIMG_HOST_CXX", "/nonexistent/pimg-c++", 1);
  auto b = make_openmp_backend();
  const BackendStatus s = b->status();
  const auto devices = b->devices();
  if (old)
    setenv("PIMG_HOST_CXX", saved.c_str(), 1);
  else
    unsetenv("PIMG_HOST_CXX");
  EXPECT_FALSE(s.available);
  EXPECT_NE(s.reason.find("/nonexistent/pimg-c++"), std::string::npos) << s.reason;
  EXPECT_TRUE(devices.empty());
}

// A sample of knob combinations: every schedule, unroll 0/1, arith mul/lut, simd 0/1, tiles 8x8 and
// 64x16, threads 0 (OpenMP decides), 1 and 2. Each problem takes two of them in turn, so every
// combination meets several layouts, borders and filters; sizes change at run time, not compile time.
struct Knobs {
  const char* variant;
  Config config;
};
std::vector<Knobs> knob_sample() {
  return {
      {"omp_rows", config({{"threads", i(1)}, {"schedule", t("static")}, {"chunk", i(1)}, {"unroll", i(1)},
                           {"arith", t("mul")}, {"simd", i(1)}})},
      {"omp_tiles", config({{"tile_x", i(8)}, {"tile_y", i(8)}, {"threads", i(2)}, {"schedule", t("static")},
                            {"chunk", i(1)}, {"unroll", i(1)}, {"arith", t("mul")}, {"simd", i(1)}})},
      {"omp_rows", config({{"threads", i(2)}, {"schedule", t("dynamic")}, {"chunk", i(2)}, {"unroll", i(0)},
                           {"arith", t("lut")}, {"simd", i(1)}})},
      {"omp_tiles", config({{"tile_x", i(64)}, {"tile_y", i(16)}, {"threads", i(1)}, {"schedule", t("dynamic")},
                            {"chunk", i(1)}, {"unroll", i(1)}, {"arith", t("lut")}, {"simd", i(1)}})},
      {"omp_rows", config({{"threads", i(2)}, {"schedule", t("guided")}, {"chunk", i(1)}, {"unroll", i(1)},
                           {"arith", t("lut")}, {"simd", i(0)}})},
      {"omp_tiles", config({{"tile_x", i(8)}, {"tile_y", i(8)}, {"threads", i(2)}, {"schedule", t("guided")},
                            {"chunk", i(2)}, {"unroll", i(0)}, {"arith", t("mul")}, {"simd", i(1)}})},
      {"omp_rows", config({{"threads", i(0)}, {"schedule", t("static")}, {"chunk", i(3)}, {"unroll", i(0)},
                           {"arith", t("mul")}, {"simd", i(0)}})},
      {"omp_tiles", config({{"tile_x", i(64)}, {"tile_y", i(16)}, {"threads", i(2)}, {"schedule", t("static")},
                            {"chunk", i(1)}, {"unroll", i(0)}, {"arith", t("lut")}, {"simd", i(0)}})},
      {"omp_tiles", config({{"tile_x", i(8)}, {"tile_y", i(8)}, {"threads", i(0)}, {"schedule", t("dynamic")},
                            {"chunk", i(1)}, {"unroll", i(1)}, {"arith", t("mul")}, {"simd", i(0)}})},
  };
}

struct Job {
  const Knobs* knobs;
  Problem problem;  // at the first size; the other sizes reuse the compiled library
};

// Compiles every job on two threads (two devices of the builtin backend share its memory cache), so
// the sequential evaluations afterwards find their libraries loaded. Returns the failures' logs.
std::vector<std::string> precompile(const std::vector<Job>& jobs) {
  const Backend* b = reg().backend("openmp");
  const Family& family = *reg().family("conv");
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto worker = [&] {
    auto device = b->open(b->devices().at(0));
    for (std::size_t k = next++; k < jobs.size(); k = next++) {
      const Variant& v = *reg().variant("conv", jobs[k].knobs->variant);
      const Workload w = family.make_workload(jobs[k].problem);
      const CompileResult r =
          device->compile(*kernel_source(v.source()), plan_for(v, jobs[k].problem, w, jobs[k].knobs->config, device->info()));
      std::lock_guard lock(mu);
      if (!r.program) failures.push_back(r.log);
    }
  };
  std::thread helper(worker);
  worker();
  helper.join();
  return failures;
}

TEST(OpenmpVariants, MatchTheReferenceExactly) {
  const auto knobs = knob_sample();
  std::vector<Job> jobs;
  for (const Shape& shape : kShapes)
    for (const char* border : kBorders)
      for (const char* filter : kFilters)
        for (int pick = 0; pick < 2; ++pick)
          jobs.push_back({&knobs[jobs.size() % knobs.size()],
                          conv_problem(37, 23, shape.channels, shape.layout, border, filter)});
  for (const auto& log : precompile(jobs)) ADD_FAILURE() << log;

  for (const Job& job : jobs) {
    const Problem& first = job.problem;
    // Tiny images (smaller than the window) only exist for the padded borders.
    std::vector<std::pair<int, int>> sizes = {{37, 23}, {70, 9}};
    if (first.attr("border") != "valid") sizes.push_back({4, 3});
    for (const auto& [w, h] : sizes) {
      const Problem p = conv_problem(w, h, first.channels, first.attr("layout"), first.attr("border"),
                                     first.attr("filter"));
      const EvalResult r = run(omp_device(), job.knobs->variant, p, job.knobs->config);
      EXPECT_EQ(r.status, Status::ok) << job.knobs->variant << " " << job.knobs->config.brief() << " on "
                                      << p.label() << ": " << r.log;
      EXPECT_TRUE(r.compile_cached);
    }
  }
  EXPECT_TRUE(tmp_is_empty());
}

TEST(OpenmpVariants, DefaultsAndBadKnobs) {
  const Problem p = conv_problem(37, 23, 3, "interleaved", "zero", "sharpen3");
  EXPECT_EQ(run(omp_device(), "omp_rows", p, Config{}).status, Status::ok);
  const EvalResult bad = run(omp_device(), "omp_rows", p, config({{"schedule", t("auto")}}));
  EXPECT_EQ(bad.status, Status::launch_error);
  EXPECT_NE(bad.log.find("schedule"), std::string::npos) << bad.log;
  EXPECT_EQ(run(omp_device(), "omp_tiles", p, config({{"tile_x", i(0)}})).status, Status::launch_error);
}

// A batch of 3 images (seed 003's batch): omp_rows and omp_tiles take the images as further planes, every
// image validated exactly.
TEST(OpenmpVariants, BatchOfImagesExactInEveryImage) {
  for (const char* layout : {"interleaved", "planar"}) {
    const Problem p = reg().family("conv")->make_problem(
        29, 13, 3, {{"layout", layout}, {"border", "replicate"}, {"filter", "gaussian5"}, {"batch", "3"}});
    SCOPED_TRACE(p.label());
    const EvalResult rows = run(omp_device(), "omp_rows", p, config({{"threads", i(2)}, {"simd", i(1)}}));
    EXPECT_EQ(rows.status, Status::ok) << rows.log << rows.validation;
    const EvalResult tiles =
        run(omp_device(), "omp_tiles", p, config({{"threads", i(2)}, {"tile_x", i(8)}, {"tile_y", i(4)}}));
    EXPECT_EQ(tiles.status, Status::ok) << tiles.log << tiles.validation;
  }
}

TEST(OpenmpVariants, SelftestIsCaughtAsWrongResult) {
  const Problem p = conv_problem(37, 23, 1, "interleaved", "replicate", "sharpen3");
  const EvalResult r = run(omp_device(), "selftest_wrong_result_omp", p, Config{});
  EXPECT_EQ(r.status, Status::wrong_result) << r.log;
  EXPECT_NE(r.log.find("1 of"), std::string::npos) << r.log;
}

// LaunchPlan::globals: values written into the library's variables before each launch, one program for all of
// them (the second plan is served from the memory cache), each launch seeing its own values; a name the library
// lacks fails the launch with its name; a device without the capability has the executor refuse the plan.
TEST(OpenmpBackend, GlobalsAreSetBeforeEachLaunchOfOneProgram) {
  KernelSource source;
  source.path = "test/globals.cpp";
  source.text = R"(#include <cstdint>
#include <omp.h>
extern "C" int pimg_threads = 0, pimg_chunk = 1, pimg_test_globals = 0;
extern "C" void report(void* const* buffers, const std::int64_t*, const double*) {
  auto* out = static_cast<std::int32_t*>(buffers[0]);
  int team = 0;
#pragma omp parallel num_threads(pimg_threads > 0 ? pimg_threads : omp_get_max_threads())
#pragma omp single
  team = omp_get_num_threads();
  out[0] = pimg_threads;
  out[1] = pimg_chunk;
  out[2] = team;
}
)";
  source.hash = "globals-test-" + std::to_string(::getpid());
  Device& d = omp_device();
  ASSERT_TRUE(d.info().caps.program_globals);
  auto launch = [&](std::int64_t threads, std::int64_t chunk, bool expect_cached) {
    LaunchPlan plan;
    plan.entry = "report";
    plan.dims = 1;
    plan.args = {KernelArg::buf("out")};
    plan.globals = {{"pimg_threads", threads}, {"pimg_chunk", chunk}};
    const CompileResult c = d.compile(source, plan);
    EXPECT_TRUE(c.program) << c.log;
    EXPECT_EQ(c.cached, expect_cached);
    std::shared_ptr<DeviceBuffer> out = d.alloc(3 * sizeof(std::int32_t));
    const LaunchResult r = d.launch(*c.program, plan, {{"out", out.get()}});
    EXPECT_TRUE(r.ok) << r.error;
    std::vector<std::uint8_t> bytes(3 * sizeof(std::int32_t));
    d.download(*out, bytes);
    std::int32_t v[3];
    std::memcpy(v, bytes.data(), sizeof v);
    return std::array<std::int32_t, 3>{v[0], v[1], v[2]};
  };
  EXPECT_EQ(launch(3, 7, false), (std::array<std::int32_t, 3>{3, 7, 3}));
  EXPECT_EQ(launch(1, 16, true), (std::array<std::int32_t, 3>{1, 16, 1}));
  EXPECT_EQ(launch(2, 1, true), (std::array<std::int32_t, 3>{2, 1, 2}));

  LaunchPlan missing;
  missing.entry = "report";
  missing.dims = 1;
  missing.args = {KernelArg::buf("out")};
  missing.globals = {{"pimg_no_such_variable", 1}};
  const CompileResult c = d.compile(source, missing);
  ASSERT_TRUE(c.program) << c.log;
  std::shared_ptr<DeviceBuffer> out = d.alloc(3 * sizeof(std::int32_t));
  const LaunchResult r = d.launch(*c.program, missing, {{"out", out.get()}});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("pimg_no_such_variable"), std::string::npos) << r.error;
}

// conv's OpenMP variants pass the thread count and chunk size as globals: two configurations differing only in
// them share one program and both are exact; on a device that cannot set globals the plan is refused.
TEST(OpenmpVariants, ThreadsAndChunkShareOneProgram) {
  const Problem p = conv_problem(61, 17, 1, "interleaved", "replicate", "sharpen3");
  const Workload w = reg().family("conv")->make_workload(p);
  const Variant* v = reg().variant("conv", "omp_rows");
  const LaunchPlan a = plan_for(*v, p, w, config({{"threads", i(1)}, {"chunk", i(4)}}), omp_device().info());
  const LaunchPlan b = plan_for(*v, p, w, config({{"threads", i(2)}, {"chunk", i(16)}}), omp_device().info());
  EXPECT_EQ(a.defines, b.defines);
  EXPECT_NE(a.globals, b.globals);
  EXPECT_NE(plan_identity(a, "s", "r"), plan_identity(b, "s", "r"));
  for (const Config& c : {config({{"threads", i(1)}, {"chunk", i(4)}}), config({{"threads", i(2)}, {"chunk", i(16)}})}) {
    const EvalResult r = run(omp_device(), "omp_rows", p, c);
    EXPECT_EQ(r.status, Status::ok) << r.log << r.validation;
    EXPECT_EQ(r.validation, "exact");
  }
  const EvalResult refused = run(host_device(), "omp_rows", p, config({{"threads", i(2)}}));
  EXPECT_EQ(refused.status, Status::harness_error);
  EXPECT_NE(refused.log.find("LaunchPlan::globals"), std::string::npos) << refused.log;
}

TEST(OpenmpBackend, CompileCacheInMemoryAndOnDisk) {
  const Problem p = conv_problem(70, 9, 1, "interleaved", "zero", "gaussian5");
  const Workload w = reg().family("conv")->make_workload(p);
  const Variant* v = reg().variant("conv", "omp_rows");
  // A disk cache of this test's own (restored at the end), so the program is cold whatever other tests of the
  // process compiled: the thread count and chunk size are no defines (LaunchPlan::globals), so no configuration
  // has a program of its own.
  const fs::path own_cache = ScratchEnvironment::root() / "compile-cache-test";
  setenv("PIMG_CACHE_DIR", own_cache.c_str(), 1);
  struct Restore {
    ~Restore() { setenv("PIMG_CACHE_DIR", ScratchEnvironment::cache_dir().c_str(), 1); }
  } restore;
  const LaunchPlan plan = plan_for(*v, p, w, config({{"chunk", i(5)}}), omp_device().info());
  const KernelSource& source = *kernel_source(v->source());

  auto backend = make_openmp_backend();
  auto device = backend->open(backend->devices().at(0));
  const CompileResult cold = device->compile(source, plan);
  ASSERT_TRUE(cold.program) << cold.log;
  EXPECT_FALSE(cold.cached);
  const CompileResult memory = device->compile(source, plan);
  ASSERT_TRUE(memory.program);
  EXPECT_TRUE(memory.cached);
  EXPECT_NE(memory.log.find("memory cache"), std::string::npos) << memory.log;

  auto fresh = make_openmp_backend();
  auto fresh_device = fresh->open(fresh->devices().at(0));
  const CompileResult disk = fresh_device->compile(source, plan);
  ASSERT_TRUE(disk.program) << disk.log;
  EXPECT_TRUE(disk.cached);
  EXPECT_NE(disk.log.find("disk cache"), std::string::npos) << disk.log;
  std::printf("conv_omp compile: cold %.0f ms, memory cache %.3f ms, disk cache %.2f ms\n", cold.ms, memory.ms,
              disk.ms);

  // The library loaded from disk runs and is exact.
  const EvalResult r = run(*fresh_device, "omp_rows", p, config({{"chunk", i(5)}}));
  EXPECT_EQ(r.status, Status::ok) << r.log;
  EXPECT_TRUE(r.compile_cached);
  EXPECT_TRUE(tmp_is_empty());
}

TEST(OpenmpBackend, CompilerErrorsAndMissingSymbols) {
  KernelSource broken{"test/broken.cpp", "extern \"C\" void broken() { this is not C++; }\n", ""};
  broken.hash = hash128(broken.text);
  LaunchPlan plan;
  plan.entry = "broken";
  const CompileResult r = omp_device().compile(broken, plan);
  EXPECT_FALSE(r.program);
  EXPECT_FALSE(r.cached);
  EXPECT_NE(r.log.find("error"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("exited with status"), std::string::npos) << r.log;
  // The compiler's refusal is remembered with its log, in this process and on disk for the next one: the same
  // program is refused again without running the compiler (once per configuration, not once per problem).
  const CompileResult again = omp_device().compile(broken, plan);
  EXPECT_FALSE(again.program);
  EXPECT_TRUE(again.cached);
  EXPECT_EQ(again.log, r.log);
  auto fresh = make_openmp_backend();
  const CompileResult next_process = fresh->open(fresh->devices().at(0))->compile(broken, plan);
  EXPECT_FALSE(next_process.program);
  EXPECT_TRUE(next_process.cached);
  EXPECT_EQ(next_process.log, r.log);

  KernelSource fine{"test/fine.cpp", "extern \"C\" void present() {}\n", ""};
  fine.hash = hash128(fine.text);
  plan.entry = "absent";
  const CompileResult missing = omp_device().compile(fine, plan);
  EXPECT_FALSE(missing.program);
  EXPECT_NE(missing.log.find("'absent'"), std::string::npos) << missing.log;
  EXPECT_TRUE(tmp_is_empty());
}

// The read probe (kernels/copy/read_omp.cpp): its chunk sums add up to the input's 32-bit words (a multiple of 16
// bytes, the tail left unread), and the read ceiling is measured from it.
TEST(OpenmpBackend, ReadKernelSumsEveryWord) {
  const Backend* b = reg().backend("openmp");
  const std::size_t bytes = 3 * 1000 * 1000 + 17;
  auto read = b->read_kernel(bytes);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->plan.args.at(2).i, static_cast<std::int64_t>(bytes / 16 * 16));
  const CompileResult c = omp_device().compile(read->source, read->plan);
  ASSERT_TRUE(c.program) << c.log;
  std::vector<std::uint8_t> pattern(bytes), back(bytes);
  for (std::size_t k = 0; k < bytes; ++k) pattern[k] = static_cast<std::uint8_t>(k * 31 + k / 997);
  std::uint32_t want = 0;
  for (std::size_t k = 0; k + 4 <= bytes / 16 * 16; k += 4) {
    std::uint32_t w;
    std::memcpy(&w, pattern.data() + k, sizeof w);
    want += w;
  }
  auto in = omp_device().alloc(bytes);
  auto out = omp_device().alloc(bytes);
  omp_device().upload(*in, pattern);
  omp_device().fill(*out, 0);
  const LaunchResult l = omp_device().launch(*c.program, read->plan, {{"in", in.get()}, {"out", out.get()}});
  ASSERT_TRUE(l.ok) << l.error;
  omp_device().download(*out, back);
  std::uint32_t got = 0;
  for (std::size_t k = 0; k + 4 <= bytes; k += 4) {
    std::uint32_t w;
    std::memcpy(&w, back.data() + k, sizeof w);
    got += w;
  }
  EXPECT_EQ(got, want);
  const auto ceiling = measure_ceiling(*b, omp_device(), bytes, 3, TimingMethod{false, true}, CeilingKind::read);
  ASSERT_TRUE(ceiling);
  EXPECT_GT(ceiling->gbs, 0);
  EXPECT_EQ(ceiling->how.rfind("pimg_read", 0), 0u) << ceiling->how;
}

TEST(OpenmpBackend, CopyKernelCopies) {
  const Backend* b = reg().backend("openmp");
  const std::size_t bytes = 3 * 1000 * 1000 + 17;
  auto copy = b->copy_kernel(bytes);
  ASSERT_TRUE(copy);
  const CompileResult c = omp_device().compile(copy->source, copy->plan);
  ASSERT_TRUE(c.program) << c.log;
  std::vector<std::uint8_t> pattern(bytes), back(bytes);
  for (std::size_t k = 0; k < bytes; ++k) pattern[k] = static_cast<std::uint8_t>(k * 31 + k / 997);
  auto in = omp_device().alloc(bytes);
  auto out = omp_device().alloc(bytes);
  omp_device().upload(*in, pattern);
  omp_device().fill(*out, kPoisonValues[0]);
  const LaunchResult l = omp_device().launch(*c.program, copy->plan, {{"in", in.get()}, {"out", out.get()}});
  ASSERT_TRUE(l.ok) << l.error;
  omp_device().download(*out, back);
  EXPECT_TRUE(back == pattern);
  const auto ceiling = measure_ceiling(*b, omp_device(), bytes, 3, TimingMethod{false, true});
  ASSERT_TRUE(ceiling);
  EXPECT_GT(ceiling->gbs, 0);
  EXPECT_EQ(ceiling->method, "host-clock hot");
}

// The `serial` speed reference (row loops, edges through the reference's per-pixel path) equals the reference
// on every layout and border, including images narrower or shorter than the filter and custom divisors.
TEST(SerialBaseline, EqualsTheReferenceEverywhere) {
  const Family& family = *reg().family("conv");
  int checked = 0;
  for (const Shape& shape : kShapes)
    for (const char* border : kBorders)
      for (const auto& [w, h] : {std::pair{37, 23}, std::pair{5, 5}, std::pair{3, 9}, std::pair{130, 2}}) {
        std::vector<Problem> problems;
        for (const char* filter : {"sharpen3", "gaussian5", "box3"})
          if (std::string(border) != "valid" || (w >= 5 && h >= 5)) problems.push_back(conv_problem(w, h, shape.channels, shape.layout, border, filter));
        for (const char* divisor : {"3", "9"})  // a divisor of the generic path, and one of the constant ones
          if (std::string(border) != "valid" || h >= 3)
            problems.push_back(family.make_problem(w, h, shape.channels,
                                                   {{"filter", "custom"}, {"weights", "1,-2,3;-4,5,-6;7,-8,9"},
                                                    {"divisor", divisor}, {"layout", shape.layout}, {"border", border}}));
        for (const Problem& p : problems) {
          const EvalResult r = run(host_device(), "serial", p, Config{});
          EXPECT_EQ(r.status, Status::ok) << p.label() << ": " << r.log;
          EXPECT_EQ(r.validation, "exact") << p.label();
          ++checked;
        }
      }
  EXPECT_EQ(checked, 156);
}

// Each OpenCV baseline is one native 8-bit call: on the problems it accepts, its output equals the conv
// rule byte for byte on every layout and border, and the validation names the call; elsewhere it refuses.
TEST(OpencvVariants, EachCallIsExactWhereItAppliesAndRefusesElsewhere) {
  if (!reg().variant("conv", "opencv_filter2d")) GTEST_SKIP() << "built without OpenCV";
  struct Case {
    const char* variant;
    const char* filter;  // the one named filter it computes
    const char* call;
  };
  const Case cases[] = {{"opencv_filter2d", "sharpen3", "cv::filter2D(CV_8U, "},
                        {"opencv_blur", "box3", "cv::blur(3x3, "},
                        {"opencv_gaussian", "gaussian5", "cv::GaussianBlur(5x5, sigma 0, "}};
  for (const Case& c : cases)
    for (const Shape& shape : kShapes)
      for (const char* border : kBorders)
        for (const char* filter : {"sharpen3", "gaussian5", "box3"})
          for (const auto& [w, h] : {std::pair{37, 23}, std::pair{321, 239}}) {
            const Problem p = conv_problem(w, h, shape.channels, shape.layout, border, filter);
            const EvalResult r = run(host_device(), c.variant, p, Config{});
            const bool applies = std::string(filter) == c.filter &&
                                 !(std::string(c.variant) == "opencv_gaussian" && std::string(border) == "valid");
            if (applies) {
              EXPECT_EQ(r.status, Status::ok) << c.variant << " " << p.label() << ": " << r.log;
              EXPECT_EQ(r.validation.rfind(std::string("exact, ") + c.call, 0), 0u) << r.validation;
              EXPECT_NE(r.validation.find("(rule opencv)"), std::string::npos) << r.validation;
            } else {
              EXPECT_EQ(r.status, Status::launch_error) << c.variant << " " << p.label();
            }
          }
}

TEST(OpencvVariants, RefusalsSayWhy) {
  if (!reg().variant("conv", "opencv_filter2d")) GTEST_SKIP() << "built without OpenCV";
  const Family& family = *reg().family("conv");
  auto custom = [&](const std::string& weights, int divisor, const char* border) {
    return family.make_problem(41, 29, 1, {{"filter", "custom"}, {"weights", weights},
                                           {"divisor", std::to_string(divisor)}, {"border", border}});
  };
  auto log_of = [&](const char* variant, const Problem& p) {
    const EvalResult r = run(host_device(), variant, p, Config{});
    EXPECT_EQ(r.status, Status::launch_error) << variant << " " << p.label();
    return r.log;
  };
  EXPECT_NE(log_of("opencv_filter2d", custom("1,2,1;2,4,2;1,2,1", 16, "zero")).find("no 8-bit OpenCV call divides by 16"),
            std::string::npos);
  EXPECT_NE(log_of("opencv_filter2d", conv_problem(37, 23, 1, "interleaved", "zero", "box3")).find("cv::blur(3x3"),
            std::string::npos);
  EXPECT_NE(log_of("opencv_gaussian", conv_problem(37, 23, 1, "interleaved", "valid", "gaussian5"))
                .find("bit-exact path on a window"),
            std::string::npos);
  // A 5x5 box (divisor 25) is cv::blur's too, exactly.
  const EvalResult box5 = run(host_device(), "opencv_blur", custom("1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;1,1,1,1,1;1,1,1,1,1", 25, "replicate"), Config{});
  EXPECT_EQ(box5.status, Status::ok) << box5.log;
}

}  // namespace
}  // namespace pimg
