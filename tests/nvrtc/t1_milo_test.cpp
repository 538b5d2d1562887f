// CI without a GPU or a CUDA toolkit: every configuration of ../shared/t1/convolution_milo.json (the
// 4362 that pass its conditions) is planned by the T1 variant for an H100-like device, and a sample of
// them (kBoundary; PIMG_T1_NVRTC_ALL=1: all) is compiled for sm_90 with the options the CUDA backend
// would use, through the backend's own NVRTC loader (any libnvrtc: CI's is Debian's 11.8; PIMG_NVRTC=/path
// picks one), on all cores. The kernel declares its shared-memory tile whatever use_shmem says, so a
// configuration whose tile passes the 48 KiB of static shared memory must fail to compile and every
// other one must compile.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "cuda/cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/residency.hpp"
#include "user/t1.hpp"

namespace pimg::cudatest {
namespace {

// The kernel's sh_input[block_size_y*tile_size_y+14][shared_mem_width] floats, padding included.
std::int64_t shared_bytes(const Config& c) {
  const std::int64_t bx = c.integer("block_size_x"), by = c.integer("block_size_y");
  const std::int64_t tx = c.integer("tile_size_x"), ty = c.integer("tile_size_y");
  std::int64_t width = bx * tx + 14;
  if (c.integer("use_padding") == 1 && bx % 32 != 0 && (width - bx) % 32 != 0) width += (32 - (14 + bx * tx - bx)) & 31;
  return (by * ty + 14) * width * 4;
}

std::string milo_path() {
  for (const char* rel : {"/../shared/t1/convolution_milo.json", "/../../shared/t1/convolution_milo.json"}) {
    const std::string p = std::string(PIMG_SOURCE_DIR) + rel;
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

// Without PIMG_T1_NVRTC_ALL, a covering sample is compiled: each configuration that brings a parameter value not
// seen before (every value of every parameter at least once), and the configurations on both sides of the 48 KiB
// static shared-memory boundary (the kBoundary largest tiles that fit and the kBoundary smallest that do not). NVRTC
// spends 0.3 to 8 s on one configuration (NVVM unrolls the 15x15 filter over the tile), far more than CI's two
// cores can give all 4362.
constexpr std::size_t kBoundary = 3;

// What went against the expectation for one configuration.
struct Mismatch {
  std::size_t index;
  std::string what;
};

TEST(T1Nvrtc, EveryConvolutionMiloConfigurationCompilesForSm90) {
  const std::string status = cuda::nvrtc_status();
  if (!status.empty()) GTEST_SKIP() << "no libnvrtc can be loaded here, nothing compiled: " << status;
  const std::string path = milo_path();
  if (path.empty()) GTEST_SKIP() << "../shared/t1/convolution_milo.json is absent";
  Registry reg;
  reg.add_source_language("cuda", "CUDA");  // the backend of the file's language
  const user::T1Spec& spec = user::register_t1(reg, path);
  const Family& family = *reg.family(spec.name);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Space space = user::t1_space(spec);
  const DeviceInfo device = sm90_device();
  const std::vector<Config> configs = space.variants.at(0).enumerate(device);
  ASSERT_EQ(configs.size(), 4362u);  // the space Kernel Tuner measured (../shared/t4)
  const Workload workload = family.make_workload(space.problems[0]);
  const KernelSource* source = kernel_source(variant.source());
  ASSERT_NE(source, nullptr);
  // Every configuration is planned; which are compiled: see kBoundary.
  const bool all = std::getenv("PIMG_T1_NVRTC_ALL") != nullptr;
  std::set<std::string> seen;
  std::vector<std::size_t> chosen;
  std::vector<std::vector<std::string>> options(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const LaunchPlan plan = plan_for(variant, space.problems[0], workload, configs[i], device);
    ASSERT_EQ(plan.symbols.size(), 1u) << configs[i].brief();  // d_filter: the __constant__ copy of the filter
    options[i] = cuda::nvrtc_options(plan, 90);
    ASSERT_EQ(std::count_if(options[i].begin(), options[i].end(), [](const std::string& o) { return o.rfind("-std", 0) == 0; }), 1)
        << "one -std, the T1 file's (NVRTC 11 refuses two)";
    bool fresh = false;
    for (const auto& [name, value] : configs[i].values()) fresh |= seen.insert(name + "=" + to_string(value)).second;
    if (all || fresh) chosen.push_back(i);
  }
  if (!all) {  // the shared-memory boundary, from both sides
    std::vector<std::size_t> by_shared(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) by_shared[i] = i;
    std::stable_sort(by_shared.begin(), by_shared.end(),
                     [&](std::size_t a, std::size_t b) { return shared_bytes(configs[a]) < shared_bytes(configs[b]); });
    const auto first_over = std::partition_point(by_shared.begin(), by_shared.end(),
                                                 [&](std::size_t i) { return shared_bytes(configs[i]) <= 48 * 1024; });
    ASSERT_GE(first_over - by_shared.begin(), static_cast<std::ptrdiff_t>(kBoundary));
    ASSERT_GE(by_shared.end() - first_over, static_cast<std::ptrdiff_t>(kBoundary));
    for (auto it = first_over - kBoundary; it != first_over + kBoundary; ++it)
      if (std::find(chosen.begin(), chosen.end(), *it) == chosen.end()) chosen.push_back(*it);
  }

  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0}, compiled{0}, refused{0};
  std::mutex mutex;
  std::vector<Mismatch> mismatches;
  const auto start = std::chrono::steady_clock::now();
  auto work = [&] {
    for (std::size_t n = next++; n < chosen.size(); n = next++) {
      const std::size_t i = chosen[n];
      const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, options[i]);
      const std::int64_t shared = shared_bytes(configs[i]);
      const bool fits = shared <= 48 * 1024;
      (r.ok ? compiled : refused)++;
      std::string what;
      const std::string image(r.cubin.begin(), r.cubin.end());
      if (r.ok && r.cubin.empty()) what = "compiled but NVRTC gave no cubin";
      // Found by its plain name, as Kernel Tuner finds it: the loader wraps the source in extern "C".
      else if (r.ok && (image.find(std::string("convolution_kernel") + '\0') == std::string::npos ||
                        image.find("_Z18convolution_kernel") != std::string::npos))
        what = "the entry point is not the plain name convolution_kernel (C++ mangled?)";
      else if (r.ok != fits)
        what = fmt::format("{} with {} bytes of static shared memory", r.ok ? "compiled" : "failed to compile", shared);
      else if (!r.ok && r.log.find("too much shared data") == std::string::npos)
        what = "failed for another reason than its shared memory";
      if (what.empty()) continue;
      std::string command;
      for (const auto& o : options[i]) command += " " + o;
      const std::lock_guard lock(mutex);
      mismatches.push_back({i, what + "\nNVRTC options:" + command + "\nNVRTC log:\n" + r.log});
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::sort(mismatches.begin(), mismatches.end(), [](const Mismatch& a, const Mismatch& b) { return a.index < b.index; });
  for (const Mismatch& m : mismatches) ADD_FAILURE() << "configuration " << configs[m.index].brief() << ": " << m.what;
  EXPECT_EQ(compiled + refused, chosen.size());
  EXPECT_GE(refused.load(), all ? 1u : kBoundary);  // the tiles beyond 48 KiB
  EXPECT_GE(compiled.load(), all ? 1u : kBoundary);
  std::cout << fmt::format("NVRTC {} ({}): {} of {} configurations compiled for sm_90{}: {} compiled, {} refused for "
                           "their shared memory, in {:.0f} s on {} threads ({:.2f} s a configuration a thread)\n",
                           cuda::nvrtc_version(), cuda::nvrtc_library(), chosen.size(), configs.size(),
                           all ? "" : " (PIMG_T1_NVRTC_ALL=1 compiles all)", compiled.load(), refused.load(), seconds,
                           threads, seconds * threads / static_cast<double>(chosen.size()));
}

}  // namespace
}  // namespace pimg::cudatest

namespace pimg::cudatest {
namespace {

// Validation on the device keeps a T1 kernel's documented tolerance (docs/measurement.md): the float output
// of convolution_milo is checked lane by lane with SideBySideRelativeComparison at 1e-5 (the rule the check
// kernels apply, tests/opencl/device_check_test.cpp), and a passing run's message is the host compare()'s.
TEST(T1DeviceCompare, FloatOutputsKeepTheirToleranceAndMessage) {
  const std::string path = milo_path();
  if (path.empty()) GTEST_SKIP() << "../shared/t1/convolution_milo.json is absent";
  Registry reg;
  reg.add_source_language("cuda", "CUDA");  // the backend of the file's language
  const user::T1Spec& spec = user::register_t1(reg, path);
  const Family& family = *reg.family(spec.name);
  const Problem problem = user::t1_space(spec).problems.at(0);
  const std::optional<DeviceCompare> how = device_compare(family, problem, "");
  ASSERT_TRUE(how);
  EXPECT_EQ(how->kind, DeviceCompare::Kind::f32);
  EXPECT_TRUE(how->relative);
  EXPECT_EQ(how->tolerance, 1e-5);
  ASSERT_TRUE(how->detail);
  const std::vector<float> expected{1.0f, 2.0f, -30.0f}, actual{1.0f + 2e-6f, 2.0f, -30.0f * (1 + 4e-6f)};
  auto bytes = [](const std::vector<float>& v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const Validation host = family.compare(problem, bytes(expected), bytes(actual));
  ASSERT_TRUE(host.ok) << host.detail;
  double worst = 0;  // as the check kernel keeps it: the largest relative error, as a float
  for (std::size_t i = 0; i < expected.size(); ++i)
    worst = std::max(worst, std::fabs(double(actual[i]) - expected[i]) / std::max(1.0, std::fabs(double(expected[i]))));
  EXPECT_EQ(how->detail(static_cast<float>(worst)), host.detail);
}

}  // namespace
}  // namespace pimg::cudatest

namespace pimg::cudatest {
namespace {

// A define the source cannot read is left out of NVRTC's options (so its configurations share one compile);
// one it may read, through its text, an included file or a pasted token, is kept.
TEST(T1Nvrtc, DefinesTheSourceCannotReadAreLeftOut) {
  EXPECT_TRUE(cuda::define_is_read("int a = tile_x;", "tile_x"));
  EXPECT_TRUE(cuda::define_is_read("#if tile_x == 2\n#endif", "tile_x"));
  EXPECT_FALSE(cuda::define_is_read("int a = tile_xy + my_tile_x;", "tile_x"));  // other identifiers
  EXPECT_TRUE(cuda::define_is_read("#include \"k.h\"\nint a;", "tile_x"));       // k.h may read it
  EXPECT_TRUE(cuda::define_is_read("#define T(p) p##_x\nint a = T(tile);", "tile_x"));  // pasted
  const std::string path = milo_path();
  if (path.empty()) GTEST_SKIP() << "../shared/t1/convolution_milo.json is absent";
  Registry reg;
  reg.add_source_language("cuda", "CUDA");  // the backend of the file's language
  const user::T1Spec& spec = user::register_t1(reg, path);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Space space = user::t1_space(spec);
  const DeviceInfo device = sm90_device();
  const KernelSource* source = kernel_source(variant.source());
  ASSERT_NE(source, nullptr);
  const Workload workload = reg.family(spec.name)->make_workload(space.problems[0]);
  std::set<std::vector<std::string>> distinct;
  std::size_t twins = 0;  // use_shmem 1 without padding: the same program as its use_shmem 0 twin
  const std::vector<Config> configs = space.variants.at(0).enumerate(device);
  for (const Config& c : configs) {
    const LaunchPlan plan = plan_for(variant, space.problems[0], workload, c, device);
    ASSERT_EQ(std::count_if(plan.defines.begin(), plan.defines.end(), [](const auto& d) { return d.first == "use_shmem"; }), 1);
    const std::vector<std::string> options = cuda::nvrtc_options(plan, 90, &source->text);
    EXPECT_EQ(std::count_if(options.begin(), options.end(), [](const std::string& o) { return o.rfind("-Duse_shmem", 0) == 0; }), 0);
    for (const char* read : {"-Dblock_size_x=", "-Dtile_size_y=", "-Dread_only=", "-Duse_padding="})
      EXPECT_EQ(std::count_if(options.begin(), options.end(), [&](const std::string& o) { return o.rfind(read, 0) == 0; }), 1)
          << read;
    distinct.insert(options);
    twins += c.integer("use_shmem") == 1 && c.integer("use_padding") == 0;
  }
  // The milo kernel never reads use_shmem, and its conditions allow use_shmem 0 only without padding: its 4,362
  // configurations are 2,746 programs.
  EXPECT_EQ(twins, 1616u);
  EXPECT_EQ(distinct.size(), configs.size() - twins);
}

}  // namespace
}  // namespace pimg::cudatest
