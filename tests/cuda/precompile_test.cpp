// The CUDA backend's precompile pass (NVRTC on several threads into the cubin cache, no device
// needed): each distinct option set is compiled once, a second pass finds everything cached, and a
// plan that does not compile is left for compile() to report.
#include <gtest/gtest.h>

#include <chrono>

#include "cuda_fixture.hpp"
#include "pimg/cache.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(CudaPrecompile, CompilesEachDistinctPlanOnceIntoTheCache) {
  const Backend* cuda = Registry::builtin().backend("cuda");
  ASSERT_NE(cuda, nullptr);
  // A device description of its own, so earlier runs' cache entries cannot answer for this one.
  DeviceInfo device = cudatest::sm90_device();
  device.driver = "precompile-test-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  const Family& conv = *Registry::builtin().family("conv");
  const Problem p = conv.make_problem(64, 32, 1, {{"filter", "sharpen3"}, {"border", "zero"}});
  const Workload w = conv.make_workload(p);
  const Variant& v = *Registry::builtin().variant("conv", "cuda_direct");
  std::vector<LaunchPlan> plans;
  for (int items : {1, 2, 1, 2}) {  // two distinct configurations, each twice
    Config c;
    c.set("items_x", items);
    plans.push_back(plan_for(v, p, w, c, device));
  }
  const KernelSource& source = *kernel_source(v.source());
  EXPECT_EQ(cuda->precompile(device, source, plans, 2), 2u);
  EXPECT_EQ(cuda->precompile(device, source, plans, 2), 0u);  // all cached now

  const KernelSource broken{"broken.cu", "extern \"C\" __global__ void k() { undeclared = 1; }\n", "broken-hash"};
  EXPECT_EQ(cuda->precompile(device, broken, {plans[0]}, 1), 0u);
}

}  // namespace
}  // namespace pimg
