// CI without a GPU: the CUDA kernel of ../shared/t1/convolution_milo.json compiles through NVRTC for
// sm_90 over its configurations, planned by the T1 variant for an H100-like device with the options
// the backend would use. A sample covering every value of every parameter by default (about 2 s a
// configuration: the whole space takes over two hours on 2 cores); PIMG_T1_NVRTC_ALL=1 compiles all 4362.
// The kernel declares its shared-memory tile whatever use_shmem says, so a configuration whose tile
// passes the 48 KiB of static shared memory must fail to compile and every other one must compile.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
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

TEST(T1Nvrtc, ConvolutionMiloConfigurationsCompileForSm90) {
  const std::string status = cuda::nvrtc_status();
  if (!status.empty()) GTEST_SKIP() << "NVRTC is not loadable here: " << status;
  const std::string path = milo_path();
  if (path.empty()) GTEST_SKIP() << "../shared/t1/convolution_milo.json is absent";
  Registry reg;
  const user::T1Spec& spec = user::register_t1(reg, path);
  const Family& family = *reg.family(spec.name);
  const Variant& variant = *reg.variant(spec.name, spec.kernel_name);
  const Space space = user::t1_space(spec);
  const DeviceInfo device = sm90_device();
  const std::vector<Config> configs = space.variants.at(0).enumerate(device);
  ASSERT_EQ(configs.size(), 4362u);  // the space Kernel Tuner measured (../shared/t4)
  const bool all = std::getenv("PIMG_T1_NVRTC_ALL") != nullptr;
  const Workload workload = family.make_workload(space.problems[0]);
  const KernelSource* source = kernel_source(variant.source());
  ASSERT_NE(source, nullptr);
  std::set<std::string> seen;
  std::size_t compiled = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    bool fresh = false;
    for (const auto& [name, value] : configs[i].values()) fresh |= seen.insert(name + "=" + to_string(value)).second;
    if (!all && !fresh && i % 1000 != 0 && i + 1 != configs.size()) continue;
    const LaunchPlan plan = variant.plan(space.problems[0], workload, configs[i], device);
    EXPECT_EQ(plan.symbols.size(), 1u);  // d_filter: the __constant__ copy of the filter
    const cuda::NvrtcResult r = cuda::nvrtc_compile(*source, cuda::nvrtc_options(plan, 90));
    const bool fits = shared_bytes(configs[i]) <= 48 * 1024;
    EXPECT_EQ(r.ok, fits) << configs[i].brief() << " (" << shared_bytes(configs[i]) << " bytes of shared memory)\n" << r.log;
    if (!fits) EXPECT_NE(r.log.find("too much shared data"), std::string::npos) << r.log;
    if (r.ok) {  // found by its plain name, as Kernel Tuner finds it: the loader wraps it in extern "C"
      const std::string image(r.cubin.begin(), r.cubin.end());
      EXPECT_NE(image.find(std::string("convolution_kernel") + '\0'), std::string::npos);
      EXPECT_EQ(image.find("_Z18convolution_kernel"), std::string::npos) << "a C++ mangled entry point";
    }
    ++compiled;
  }
  EXPECT_GE(compiled, 10u);
  std::cout << compiled << " of " << configs.size() << " configurations compiled\n";
}

}  // namespace
}  // namespace pimg::cudatest
