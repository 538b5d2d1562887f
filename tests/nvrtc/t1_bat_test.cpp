// CI without a GPU: each CUDA T1 file of BAT (../shared/t1/bat) that pimg-tune accepts has a sample of its
// configurations compiled for sm_90 through the backend's own NVRTC loader, with the options the CUDA backend
// would use (issue 35). The sample: every configuration that brings a parameter value not seen before, then
// configurations evenly spread over the rest, at least kSample in all (all of them in a smaller space). Which
// files pass `--check` and why the others are refused: tests/e2e/t1_shared_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "cuda/cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "user/t1.hpp"

namespace pimg::cudatest {
namespace {

constexpr std::size_t kSample = 20;

struct BatFile {
  const char* path;  // relative to ../shared/t1
  std::vector<std::int64_t> problem_size;  // what BAT's runner supplies; empty: the file's own
};

// The BAT files the loader accepts (tests/e2e/t1_shared_test.cpp says which), with the problem sizes of
// tests/e2e/t1_shared_test.cpp.
const BatFile kBat[] = {
    {"bat/GEMM/GEMM-CAFF.json", {4096, 4096}},
    {"bat/convolution/convolution-CAFF.json", {}},
    {"bat/nbody/nbody-CAFF.json", {131072}},
    {"bat/MD5Hash/MD5Hash-CAFF.json", {1000000}},
    {"bat/TRIAD/TRIAD-CAFF.json", {4096}},
    {"bat/hotspot/hotspot-CAFF.json", {4096, 4096}},
    {"bat/pnpoly/pnpoly-CAFF.json", {}},
    {"bat/others/FFT/FFT-CAFF.json", {262144}},
    {"bat/others/builtin_vectors/builtin_vectors-CAFF.json", {4096}},
};

std::string shared_t1() {
  for (const char* rel : {"/../shared/t1", "/../../shared/t1"}) {
    const std::string p = std::string(PIMG_SOURCE_DIR) + rel;
    if (std::filesystem::exists(p)) return p;
  }
  return "";
}

void PrintTo(const BatFile& f, std::ostream* os) { *os << f.path; }

class T1BatNvrtc : public ::testing::TestWithParam<BatFile> {};

TEST_P(T1BatNvrtc, ASampleOfConfigurationsCompilesForSm90) {
  const std::string status = cuda::nvrtc_status();
  if (!status.empty()) GTEST_SKIP() << "no libnvrtc can be loaded here, nothing compiled: " << status;
  const std::string root = shared_t1();
  if (root.empty()) GTEST_SKIP() << "../shared/t1 is absent";
  const BatFile& file = GetParam();
  user::T1Overrides overrides;
  overrides.problem_size = file.problem_size;
  const std::unique_ptr<Registry> reg_owner = Registry::make_builtin();  // with the strategies a file's Search names
  Registry& reg = *reg_owner;
  const user::T1Spec& spec = user::register_t1(reg, root + "/" + file.path, overrides);
  ASSERT_EQ(spec.language, "CUDA");
  const Family& family = *reg.family(spec.name);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Space space = user::t1_space(spec);
  const DeviceInfo device = sm90_device();
  const std::vector<Config> configs = space.variants.at(0).enumerate(device);
  ASSERT_FALSE(configs.empty());
  const Workload workload = family.make_workload(space.problems.at(0));
  const KernelSource* source = kernel_source(variant.source());
  ASSERT_NE(source, nullptr);

  std::vector<std::size_t> chosen;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    bool fresh = false;
    for (const auto& [name, value] : configs[i].values()) fresh |= seen.insert(name + "=" + to_string(value)).second;
    if (fresh) chosen.push_back(i);
  }
  const std::size_t want = std::min(configs.size(), std::max(kSample, chosen.size()));
  for (std::size_t k = 0; chosen.size() < want; ++k) {
    const std::size_t i = k * configs.size() / want;
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
    if (k > 4 * configs.size()) break;
  }
  for (std::size_t i = 0; chosen.size() < want && i < configs.size(); ++i)
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  EXPECT_EQ(chosen.size(), want);

  std::vector<std::vector<std::string>> options(configs.size());
  for (const std::size_t i : chosen) {
    LaunchPlan plan;
    ASSERT_NO_THROW(plan = plan_for(variant, space.problems[0], workload, configs[i], device)) << configs[i].brief();
    options[i] = cuda::nvrtc_options(plan, 90, &source->text);
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::string>> failures;
  auto work = [&] {
    for (std::size_t n = next++; n < chosen.size(); n = next++) {
      const std::size_t i = chosen[n];
      const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, options[i]);
      const std::string image(r.cubin.begin(), r.cubin.end());
      std::string what;
      if (!r.ok) what = "failed to compile";
      // Found by its plain name, as Kernel Tuner finds it.
      else if (image.find(spec.kernel_name + '\0') == std::string::npos) what = "no entry point named " + spec.kernel_name;
      if (what.empty()) continue;
      const std::lock_guard lock(mutex);
      failures.emplace_back(i, what + "\nNVRTC options: " + fmt::format("{}", fmt::join(options[i], " ")) + "\nNVRTC log:\n" + r.log);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, std::thread::hardware_concurrency()); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  std::sort(failures.begin(), failures.end());
  for (const auto& [i, what] : failures) ADD_FAILURE() << file.path << ": " << configs[i].brief() << ": " << what;
  std::cout << fmt::format("{}: {} of {} configurations compiled for sm_90 by NVRTC {}\n", file.path,
                           chosen.size() - failures.size(), configs.size(), cuda::nvrtc_version());
}

std::string file_name(const ::testing::TestParamInfo<BatFile>& info) {
  std::string name = std::filesystem::path(info.param.path).stem().string();
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Bat, T1BatNvrtc, ::testing::ValuesIn(kBat), file_name);

// A T1 kernel written for HIP (Language "HIP", `#include "hip/hip_runtime.h"`, HIP's index names and
// HIP_DYNAMIC_SHARED) compiles for sm_90 through the HIP-to-CUDA mapping, every configuration, and is found by its
// name; the loader says what it assumed.
TEST(T1HipNvrtc, AKernelWrittenForHipCompilesForSm90ThroughTheMapping) {
  const std::string status = cuda::nvrtc_status();
  if (!status.empty()) GTEST_SKIP() << "no libnvrtc can be loaded here, nothing compiled: " << status;
  const std::unique_ptr<Registry> reg_owner = Registry::make_builtin();
  Registry& reg = *reg_owner;
  const user::T1Spec& spec = user::register_t1(reg, std::string(PIMG_TEST_DATA) + "/t1/hip/sharpen_hip.json", {});
  EXPECT_EQ(spec.language, "CUDA");
  EXPECT_NE(spec.kernel_text.find("#define hipThreadIdx_x threadIdx.x"), std::string::npos);
  EXPECT_TRUE(std::any_of(spec.assumptions.begin(), spec.assumptions.end(), [](const user::T1Assumption& a) {
    return a.field == "KernelSpecification.Language" && a.what.find("HIP-to-CUDA mapping") != std::string::npos;
  }));
  const Family& family = *reg.family(spec.name);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Space space = user::t1_space(spec);
  const DeviceInfo device = sm90_device();
  const std::vector<Config> configs = space.variants.at(0).enumerate(device);
  ASSERT_EQ(configs.size(), 7u);
  const Workload workload = family.make_workload(space.problems.at(0));
  const KernelSource* source = kernel_source(variant.source());
  ASSERT_NE(source, nullptr);
  for (const Config& c : configs) {
    const LaunchPlan plan = plan_for(variant, space.problems[0], workload, c, device);
    const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90, &source->text));
    ASSERT_TRUE(r.ok) << c.brief() << "\n" << r.log;
    EXPECT_NE(std::string(r.cubin.begin(), r.cubin.end()).find("sharpen" + std::string(1, '\0')), std::string::npos);
  }
}

}  // namespace
}  // namespace pimg::cudatest
