// The backends' registrations (docs/design.md, "Adding a backend"): the registry names no backend; each folder of
// tuner/backends/ registers its own through a table generated in the order the backends' CMakeLists.txt declare
// (PIMG_BACKEND_ORDER), the order the registry listed them in before: host, opencl, openmp, cuda, mpi. Each
// declares its language and its portable GPU target whether or not it is built, in that order too (opencl's
// before cuda's), and adds itself where it is built.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backend_registrations.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(BackendRegistrations, EveryFolderInTheDeclaredOrder) {
  std::vector<std::string> names;
  for (const BackendRegistration& b : backend_registrations()) names.push_back(b.backend);
  EXPECT_EQ(names, (std::vector<std::string>{"host", "opencl", "openmp", "cuda", "mpi"}));
}

TEST(BackendRegistrations, DeclareTheirLanguagesAndPortableTargetsInThatOrder) {
  Registry r;
  pix::PortableTargets gpus;
  for (const BackendRegistration& b : backend_registrations()) b.add(r, gpus);
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].backend, "opencl");
  EXPECT_EQ(gpus[0].prefix, "cl");
  EXPECT_EQ(gpus[0].extension, ".cl");
  EXPECT_EQ(gpus[0].exact_fp32_options, std::vector<std::string>{"-cl-fp32-correctly-rounded-divide-sqrt"});
  EXPECT_EQ(gpus[1].backend, "cuda");
  EXPECT_EQ(gpus[1].prefix, "cuda");
  EXPECT_EQ(gpus[1].extension, ".cu");
  EXPECT_TRUE(gpus[1].exact_fp32_options.empty());
  EXPECT_EQ(r.backends_compiling(), (std::vector<std::string>{"opencl", "openmp", "cuda"}));
}

TEST(BackendRegistrations, AddTheBackendsBuiltAsTheBuiltinRegistryHasThem) {
  Registry r;
  pix::PortableTargets gpus;
  for (const BackendRegistration& b : backend_registrations()) b.add(r, gpus);
  std::vector<std::string> added, builtin;
  for (const Backend* b : r.backends()) added.push_back(b->name());
  for (const Backend* b : Registry::builtin().backends()) builtin.push_back(b->name());
  EXPECT_NE(r.backend("host"), nullptr);  // always built
  EXPECT_EQ(added, builtin);
  // The families registered each portable formulation once per target: maxpool's tree on both.
  EXPECT_NE(Registry::builtin().variant("maxpool", "cl_tree"), nullptr);
  EXPECT_NE(Registry::builtin().variant("maxpool", "cuda_tree"), nullptr);
}

}  // namespace
}  // namespace pimg
