// A user's kernel finds its backend by its language (issue 37: capabilities, not names): the registry declares
// the language of the sources each backend compiles, a T1 file's variant and space take the backend of the
// file's language (HIP's as CUDA's), a registry where no backend or two compile it refuses the file, and a space's
// user variant must name a backend that compiles sources.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "user/t1.hpp"

namespace pimg {
namespace {

const std::string kData = PIMG_TEST_DATA;

TEST(SourceLanguages, TheBuiltinRegistryDeclaresEachCompilingBackendOnce) {
  const Registry& reg = Registry::builtin();
  // In the backends' registration order (tuner_backends_test.cpp).
  EXPECT_EQ(reg.backends_compiling(), (std::vector<std::string>{"opencl", "openmp", "cuda"}));
  EXPECT_EQ(reg.backends_compiling("CUDA"), std::vector<std::string>{"cuda"});
  EXPECT_EQ(reg.backends_compiling("OpenCL"), std::vector<std::string>{"opencl"});
  EXPECT_TRUE(reg.backends_compiling("Vulkan").empty());
}

TEST(SourceLanguages, AT1KernelRunsOnTheBackendOfItsLanguage) {
  Registry reg;
  reg.add_source_language("gpu-a", "CUDA");
  reg.add_source_language("gpu-b", "OpenCL");
  const user::T1Spec& cl = user::register_t1(reg, kData + "/t1/sharpen.json");
  EXPECT_EQ(cl.backend, "gpu-b");
  ASSERT_NE(reg.variant(cl.name, cl.kernel_name), nullptr);
  EXPECT_EQ(reg.variant(cl.name, cl.kernel_name)->backend(), "gpu-b");
  const Space space = user::t1_space(cl);
  ASSERT_EQ(space.backends.size(), 1u);
  EXPECT_EQ(space.backends[0].backend, "gpu-b");

  const user::T1Spec& hip = user::register_t1(reg, kData + "/t1/hip/sharpen_hip.json");
  EXPECT_EQ(hip.backend, "gpu-a");  // HIP is compiled as CUDA
  EXPECT_EQ(reg.variant(hip.name, hip.kernel_name)->backend(), "gpu-a");
}

TEST(SourceLanguages, NoBackendOrTwoOfTheLanguageIsRefused) {
  Registry none;
  none.add_source_language("gpu-a", "CUDA");
  EXPECT_THROW(user::register_t1(none, kData + "/t1/sharpen.json"), UsageError);
  EXPECT_EQ(none.family("t1-sharpen"), nullptr);

  Registry two;
  two.add_source_language("gpu-b", "OpenCL");
  two.add_source_language("gpu-c", "OpenCL");
  try {
    user::register_t1(two, kData + "/t1/sharpen.json");
    ADD_FAILURE() << "a language two backends compile was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("2 backends of this registry compile OpenCL kernels"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pimg
