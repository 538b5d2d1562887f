// The OpenCL backend on PoCL (or any ICD device): discovery and limits, the memory and disk compile
// caches, build logs of failed builds, the copy kernel, buffer and image round trips, and launch
// errors returned as LaunchResult rather than thrown.
#define CL_TARGET_OPENCL_VERSION 120  // clCreateCommandQueue, as the backend (cl_cold_cache.hpp includes CL/cl.h)
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "cl_cold_cache.hpp"
#include "cl_fixture.hpp"
#include "compile/compile_pipeline.hpp"
#include "workers/compile_worker.hpp"
#include "pimg/executor.hpp"

namespace pimg::cltest {
namespace {

// Points the compile cache at a fresh temporary folder for one test, so the first build is cold.
class ScopedCacheDir {
 public:
  ScopedCacheDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "pimg-cl-cache-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    if (const char* old = std::getenv("PIMG_CACHE_DIR")) old_ = old;
    setenv("PIMG_CACHE_DIR", dir_.c_str(), 1);
  }
  ~ScopedCacheDir() {
    if (old_.empty())
      unsetenv("PIMG_CACHE_DIR");
    else
      setenv("PIMG_CACHE_DIR", old_.c_str(), 1);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  std::string dir_, old_;
};

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(i * 131 + 7);
  return out;
}

TEST(OpenClBackend, AvailableWithDescribedDevices) {
  const BackendStatus s = backend().status();
  ASSERT_TRUE(s.available) << s.reason;
  const auto devices = backend().devices();
  ASSERT_FALSE(devices.empty());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceInfo& d = devices[i];
    EXPECT_EQ(d.backend, "opencl");
    EXPECT_EQ(d.index, static_cast<int>(i));
    EXPECT_FALSE(d.name.empty());
    EXPECT_FALSE(d.driver.empty());
    EXPECT_FALSE(d.platform.empty());
    EXPECT_GT(d.compute_units, 0);
    EXPECT_GT(d.global_mem_bytes, 0u);
    EXPECT_GT(d.max_work_group_size, 0);
    for (const char* limit : {"max_work_group_size", "local_mem_size", "compute_units", "global_mem_size",
                              "max_constant_buffer_size", "max_work_item_size_0", "max_work_item_size_1",
                              "max_work_item_size_2", "image_support", "image2d_max_width", "image2d_max_height"})
      EXPECT_TRUE(d.limits.count(limit)) << limit;
    // PoCL's CPU devices take the warm pass (DeviceCaps::compiles_at_first_launch); a GPU's driver does not.
    const bool pocl_cpu = d.caps.host_cores && d.platform.find("Portable Computing Language") != std::string::npos;
    EXPECT_EQ(d.caps.compiles_at_first_launch, pocl_cpu) << d.name << " (" << d.platform << ")";
    // Compilers measured to build one program at a time in a process: PoCL's and NVIDIA's.
    const bool serial = d.platform.find("Portable Computing Language") != std::string::npos ||
                        d.platform.find("NVIDIA") != std::string::npos;
    EXPECT_EQ(d.caps.serial_compiler, serial) << d.name << " (" << d.platform << ")";
  }
}

TEST(OpenClBackend, SecondCompileIsServedFromMemoryThenDiskCache) {
  ScopedCacheDir cache;
  const Problem p = conv_family().make_problem(37, 23, 3, {{"border", "zero"}, {"filter", "gaussian5"}});
  const Workload w = conv_family().make_workload(p);
  const Variant& v = *registry().variant("conv", "cl_direct");
  const LaunchPlan plan = plan_for(v, p, w, Config{}, device().info());
  const KernelSource& src = *kernel_source(v.source());

  const CompileResult cold = device().compile(src, plan);
  ASSERT_TRUE(cold.program) << cold.log;
  EXPECT_FALSE(cold.cached);
  const CompileResult warm = device().compile(src, plan);
  ASSERT_TRUE(warm.program) << warm.log;
  EXPECT_TRUE(warm.cached);

  // A freshly opened device has an empty memory cache: the binary comes from disk and still runs.
  auto fresh = backend().open(device().info());
  const CompileResult disk = fresh->compile(src, plan);
  ASSERT_TRUE(disk.program) << disk.log;
  EXPECT_TRUE(disk.cached);
  const EvalResult r = evaluate_on(*fresh, p, "cl_direct", Config{});
  EXPECT_EQ(to_string(r.status), std::string("ok")) << r.log;
  EXPECT_TRUE(r.compile_cached);
  EXPECT_EQ(r.validation, "exact");
  std::printf("[ timing ] cl_direct gaussian5 c3: cold build %.1f ms, memory hit %.3f ms, disk hit %.1f ms\n",
              cold.ms, warm.ms, disk.ms);

  // Different defines are a different program.
  LaunchPlan other = plan;
  other.defines.emplace_back("PIMG_TEST_EXTRA", "1");
  EXPECT_FALSE(device().compile(src, other).cached);
}

// The runner's compile pipeline (docs/design.md): threads compile plans into the disk cache in order; once
// wait(i) returns, a device that never compiled plan i loads it from there.
TEST(OpenClBackend, TheCompilePipelineFillsTheDiskCacheAheadOfCompile) {
  ScopedCacheDir cache;
  const Problem p = conv_family().make_problem(37, 23, 1, {{"border", "zero"}, {"filter", "sharpen3"}});
  const Workload w = conv_family().make_workload(p);
  const Variant& v = *registry().variant("conv", "cl_direct");
  const KernelSource& src = *kernel_source(v.source());
  std::vector<std::optional<LaunchPlan>> plans;
  for (int bx : {4, 8, 16}) plans.push_back(plan_for(v, p, w, config({{"block_x", bx}, {"block_y", 4}}), device().info()));
  plans.insert(plans.begin() + 1, std::nullopt);  // a stored configuration: nothing to compile
  CompilePipeline pipeline(backend(), device().info(), src, plans, 2);
  for (std::size_t i = 0; i < plans.size(); ++i) EXPECT_GE(pipeline.wait(i), 0.0);
  EXPECT_GT(pipeline.compiled(), 0u);
  auto fresh = backend().open(device().info());
  for (const auto& plan : plans) {
    if (!plan) continue;
    const CompileResult r = fresh->compile(src, *plan);
    ASSERT_TRUE(r.program) << r.log;
    EXPECT_TRUE(r.cached) << "compiled ahead into the disk cache";
  }
}

// Pipelines begun on one pool (the distributed runner's host-wide compile threads) share its threads: the pool's
// threads take the older pipeline's plans first, and every plan of both ends compiled into the disk cache.
TEST(OpenClBackend, PipelinesOnOnePoolShareItsThreadsOldestFirst) {
  ScopedCacheDir cache;
  const Problem p = conv_family().make_problem(41, 19, 1, {{"border", "zero"}, {"filter", "sharpen3"}});
  const Workload w = conv_family().make_workload(p);
  const Variant& v = *registry().variant("conv", "cl_direct");
  const KernelSource& src = *kernel_source(v.source());
  auto plans = [&](int by) {
    std::vector<std::optional<LaunchPlan>> out;
    for (int bx : {4, 8, 16}) out.push_back(plan_for(v, p, w, config({{"block_x", bx}, {"block_y", by}}), device().info()));
    return out;
  };
  CompilePool pool(1);
  CompilePipeline first(backend(), device().info(), src, plans(2), pool);
  CompilePipeline second(backend(), device().info(), src, plans(8), pool);
  EXPECT_EQ(first.threads(), 1);
  EXPECT_EQ(second.threads(), 1);
  // One thread, oldest first: the second pipeline's first plan is taken only once the first's last one is done.
  second.wait(0);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(first.ready(i)) << i;
  for (std::size_t i = 0; i < 3; ++i) second.wait(i);
  EXPECT_TRUE(first.drained());
  EXPECT_TRUE(second.drained());
  EXPECT_GE(first.compiled(), 1u);
  auto fresh = backend().open(device().info());
  for (const auto& plan : plans(8)) EXPECT_TRUE(fresh->compile(src, *plan).cached);
}

// Pipelines begun at once that share programs (a filter's image sizes) build each program once: a thread handed a
// program another thread is building waits for it and finds it in the disk cache (it would build it again beside
// the first otherwise: six builds here instead of three).
TEST(OpenClBackend, PipelinesOnOnePoolBuildEachProgramOnce) {
  ScopedCacheDir cache;
  const Workload w[] = {
      conv_family().make_workload(conv_family().make_problem(43, 17, 1, {{"border", "zero"}, {"filter", "sharpen3"}})),
      conv_family().make_workload(conv_family().make_problem(29, 31, 1, {{"border", "zero"}, {"filter", "sharpen3"}}))};
  const Variant& v = *registry().variant("conv", "cl_direct");
  const KernelSource& src = *kernel_source(v.source());
  auto plans = [&](int size) {
    const Problem p = conv_family().make_problem(size == 0 ? 43 : 29, size == 0 ? 17 : 31, 1,
                                                 {{"border", "zero"}, {"filter", "sharpen3"}});
    std::vector<std::optional<LaunchPlan>> out;
    for (int bx : {4, 8, 16}) out.push_back(plan_for(v, p, w[size], config({{"block_x", bx}, {"block_y", 2}}), device().info()));
    return out;
  };
  CompilePool pool(6);
  EXPECT_TRUE(pool.idle()) << "no pipeline yet";
  CompilePipeline first(backend(), device().info(), src, plans(0), pool);
  CompilePipeline second(backend(), device().info(), src, plans(1), pool);
  // The distributed runner holds whole-program runs back while the pool is busy (distributed_runner.cpp).
  EXPECT_FALSE(pool.idle()) << "six plans just begun, each a build of tens of milliseconds";
  for (std::size_t i = 0; i < 3; ++i) {
    first.wait(i);
    second.wait(i);
  }
  EXPECT_EQ(first.compiled() + second.compiled(), 3u) << "the sizes' programs are the same three";
  for (int i = 0; i < 500 && !pool.idle(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(pool.idle()) << "every plan compiled, none in flight";
}

// A compiler that builds one program at a time in a process (DeviceCaps::serial_compiler: PoCL here, NVIDIA's on a
// GPU machine) builds in compile worker processes, one per pipeline thread (docs/design.md). The worker is where the
// plans go: a pimg-tune worker fills the disk cache and reports its CPU time; a "worker" that dies at once (here
// /bin/false) leaves every plan to compile(), which reports a failure with its log in the measuring worker; only a
// worker that cannot be started at all, or cannot open the device, sends the plans back to the pipeline's own threads.
TEST(OpenClBackend, SerialCompilersBuildInCompileWorkerProcesses) {
  const DeviceInfo info = device().info();
  const Problem p = conv_family().make_problem(47, 13, 1, {{"border", "zero"}, {"filter", "sharpen3"}});
  const Workload w = conv_family().make_workload(p);
  const Variant& v = *registry().variant("conv", "cl_direct");
  const KernelSource& src = *kernel_source(v.source());
  std::vector<std::optional<LaunchPlan>> plans;
  for (int bx : {4, 8, 16}) plans.push_back(plan_for(v, p, w, config({{"block_x", bx}, {"block_y", 2}}), info));
  plans.push_back(std::nullopt);
  auto cached = [&] {
    auto fresh = backend().open(info);
    std::size_t n = 0;
    for (const auto& plan : plans) {
      if (!plan) continue;
      const CompileResult r = fresh->compile(src, *plan);
      EXPECT_TRUE(r.program) << r.log;
      n += r.cached ? 1 : 0;
    }
    return n;
  };
  {
    ScopedCacheDir cache;
    CompilePipeline pipeline(backend(), info, src, plans, 2, {}, compile_workers(PIMG_TUNE_EXE));
    for (std::size_t i = 0; i < plans.size(); ++i) pipeline.wait(i);
    EXPECT_EQ(pipeline.compiled(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_GT(pipeline.cost(i).cpu_ms, 0.0) << "the worker's CPU time, plan " << i;
    EXPECT_EQ(cached(), 3u) << "built by the workers into the disk cache";
  }
  {
    ScopedCacheDir cache;
    CompilePipeline pipeline(backend(), info, src, plans, 2, {}, compile_workers("/bin/false"));
    for (std::size_t i = 0; i < plans.size(); ++i) pipeline.wait(i);
    EXPECT_EQ(pipeline.compiled(), 0u);
    EXPECT_EQ(cached(), 0u) << "a worker that died left its plans to compile(), not to this process's threads";
  }
  {
    ScopedCacheDir cache;
    CompilePipeline pipeline(backend(), info, src, plans, 2, {}, compile_workers("/nonexistent/pimg-tune"));
    for (std::size_t i = 0; i < plans.size(); ++i) pipeline.wait(i);
    EXPECT_EQ(pipeline.compiled(), 3u);
    EXPECT_EQ(cached(), 3u) << "no worker could be started: the pipeline's threads built them";
  }
  {
    ScopedCacheDir cache;
    DeviceInfo unknown = info;  // a device the worker cannot open (here: a backend it does not know)
    unknown.backend = "no-such-backend";
    CompilePipeline pipeline(backend(), unknown, src, plans, 2, {}, compile_workers(PIMG_TUNE_EXE));
    for (std::size_t i = 0; i < plans.size(); ++i) pipeline.wait(i);
    EXPECT_EQ(pipeline.compiled(), 3u);
    EXPECT_EQ(cached(), 3u) << "a fresh worker that could not open the device: the pipeline's threads built them";
  }
}

// A cold run on a GPU reads a buffer of twice the device's cache (kernels/timing/cache_sweep.cl) instead of filling
// one, so that the lines left are clean: the sweep builds and runs on any device (here PoCL, which itself evicts
// by address), twice in a row, and says so in its method.
TEST(OpenClBackend, TheCacheSweepBuildsAndRunsOnAnyDevice) {
  cl_platform_id platforms[8];
  cl_uint platform_count = 0;
  ASSERT_EQ(clGetPlatformIDs(8, platforms, &platform_count), CL_SUCCESS);
  cl_device_id dev = nullptr;
  for (cl_uint i = 0; i < platform_count && dev == nullptr; ++i)
    if (clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &dev, nullptr) != CL_SUCCESS) dev = nullptr;
  ASSERT_NE(dev, nullptr);
  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_command_queue queue = clCreateCommandQueue(ctx, dev, 0, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  {
    ClColdCache sweep(ctx, queue, dev, ClColdCache::How::sweep);
    EXPECT_STREQ(sweep.method(), "cold-cache-read");
    EXPECT_NO_THROW(sweep.before_cold_run());
    EXPECT_NO_THROW(sweep.before_cold_run());
    cl_device_type type = 0;
    clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    const ClColdCache automatic(ctx, queue, dev);
    if (type & CL_DEVICE_TYPE_CPU) EXPECT_STREQ(automatic.method(), "cold-evict");
  }
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
}

TEST(OpenClBackend, FailedBuildsKeepTheLog) {
  const KernelSource bad{"inline/bad.cl", "__kernel void k(__global int* o) { o[0] = missing_name; }", "bad-hash"};
  LaunchPlan plan;
  plan.entry = "k";
  const CompileResult r = device().compile(bad, plan);
  EXPECT_FALSE(r.program);
  EXPECT_NE(r.log.find("missing_name"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos) << r.log;

  const KernelSource good{"inline/good.cl", "__kernel void k(__global int* o) { o[0] = 1; }", "good-hash"};
  plan.entry = "not_there";
  const CompileResult missing = device().compile(good, plan);
  EXPECT_FALSE(missing.program);
  EXPECT_NE(missing.log.find("no kernel 'not_there'"), std::string::npos) << missing.log;
}

TEST(OpenClBackend, CopyKernelCopies) {
  const std::size_t bytes = 64 * 1024;
  auto copy = backend().copy_kernel(bytes);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->plan.global[0], bytes / 16);
  const CompileResult c = device().compile(copy->source, copy->plan);
  ASSERT_TRUE(c.program) << c.log;
  auto in = device().alloc(bytes);
  auto out = device().alloc(bytes);
  const auto data = pattern(bytes);
  device().upload(*in, data);
  device().fill(*out, kPoisonValues[0]);
  const LaunchResult l = device().launch(*c.program, copy->plan, {{"in", in.get()}, {"out", out.get()}});
  ASSERT_TRUE(l.ok) << l.error;
  EXPECT_GE(l.kernel_ms, 0.0);
  std::vector<std::uint8_t> back(bytes);
  device().download(*out, back);
  EXPECT_EQ(back, data);
  const auto ceiling = measure_ceiling(backend(), device(), bytes, 3, TimingMethod{});
  ASSERT_TRUE(ceiling);
  EXPECT_GT(ceiling->gbs, 0.0);
  EXPECT_NE(ceiling->method.find("cold"), std::string::npos) << ceiling->method;
  EXPECT_FALSE(ceiling->how.empty());
}

// The read kernels (kernels/copy/read.cl): each plan's sums add up to the input's, a plan that reads a vector
// fewer does not, and the read ceiling counts the bytes read once.
TEST(OpenClBackend, ReadKernelsSumEveryVector) {
  const std::size_t bytes = 256 * 1024;
  auto read = backend().read_kernel(bytes);
  ASSERT_TRUE(read);
  auto in = device().alloc(bytes);
  auto out = device().alloc(bytes);
  const auto data = pattern(bytes);
  device().upload(*in, data);
  const auto sum = [](const std::vector<std::uint8_t>& b) { return word_sum(b); };
  std::vector<LaunchPlan> plans{read->plan};
  plans.insert(plans.end(), read->more.begin(), read->more.end());
  ASSERT_GE(plans.size(), 2u);
  LaunchPlan short_by_one = read->plan;
  short_by_one.args[2].i -= 1;
  plans.push_back(short_by_one);
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const CompileResult c = device().compile(read->source, plans[k]);
    ASSERT_TRUE(c.program) << c.log;
    device().fill(*out, 0);
    const LaunchResult l = device().launch(*c.program, plans[k], {{"in", in.get()}, {"out", out.get()}});
    ASSERT_TRUE(l.ok) << l.error;
    std::vector<std::uint8_t> back(bytes);
    device().download(*out, back);
    EXPECT_EQ(sum(back) == sum(data), k + 1 < plans.size()) << plans[k].entry << " " << plans[k].global[0];
  }
  const auto ceiling = measure_ceiling(backend(), device(), bytes + 5, 3, TimingMethod{}, CeilingKind::read);
  ASSERT_TRUE(ceiling);
  EXPECT_EQ(ceiling->kind, CeilingKind::read);
  EXPECT_GT(ceiling->gbs, 0.0);
  EXPECT_EQ(ceiling->how.rfind("read_", 0), 0u) << ceiling->how;
}

TEST(OpenClBackend, BuffersAndImagesRoundTrip) {
  auto buf = device().alloc(1000);
  EXPECT_EQ(buf->size(), 1000u);
  device().fill(*buf, 0x5A);
  std::vector<std::uint8_t> back(1000);
  device().download(*buf, back);
  EXPECT_EQ(back, std::vector<std::uint8_t>(1000, 0x5A));

  auto img = device().alloc_image(37, 5);
  EXPECT_EQ(img->size(), 37u * 5u);
  const auto texels = pattern(37 * 5);
  device().upload(*img, texels);
  std::vector<std::uint8_t> img_back(37 * 5);
  device().download(*img, img_back);
  EXPECT_EQ(img_back, texels);
  device().fill(*img, 7);
  device().download(*img, img_back);
  EXPECT_EQ(img_back, std::vector<std::uint8_t>(37 * 5, 7));

  EXPECT_THROW(device().upload(*buf, std::vector<std::uint8_t>(1001)), std::runtime_error);
}

TEST(OpenClBackend, LaunchErrorsAreReturnedNotThrown) {
  const KernelSource src{"inline/add.cl", "__kernel void add(__global int* o, int v) { o[get_global_id(0)] += v; }",
                         "add-hash"};
  LaunchPlan plan;
  plan.entry = "add";
  plan.dims = 1;
  plan.global = {4, 1, 1};
  plan.args = {KernelArg::buf("out"), KernelArg::integer(3)};
  const CompileResult c = device().compile(src, plan);
  ASSERT_TRUE(c.program) << c.log;
  auto out = device().alloc(16);
  device().fill(*out, 0);
  const std::map<std::string, DeviceBuffer*> buffers{{"out", out.get()}};
  ASSERT_TRUE(device().launch(*c.program, plan, buffers).ok);
  std::vector<std::uint8_t> back(16);
  device().download(*out, back);
  EXPECT_EQ(back[0], 3);
  EXPECT_EQ(back[12], 3);

  LaunchResult r = device().launch(*c.program, plan, {});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("no buffer 'out'"), std::string::npos) << r.error;

  LaunchPlan huge = plan;
  huge.args[1] = KernelArg::integer(std::int64_t{1} << 40);
  r = device().launch(*c.program, huge, buffers);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("32-bit"), std::string::npos) << r.error;

  LaunchPlan uneven = plan;
  uneven.global = {5, 1, 1};
  uneven.local = {2, 0, 0};  // 5 is not a multiple of 2 in OpenCL 1.2
  r = device().launch(*c.program, uneven, buffers);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("clEnqueueNDRangeKernel"), std::string::npos) << r.error;

  LaunchPlan as_image = plan;
  as_image.args[0] = KernelArg::image("out", 4, 4);
  r = device().launch(*c.program, as_image, buffers);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("buffer"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace pimg::cltest
