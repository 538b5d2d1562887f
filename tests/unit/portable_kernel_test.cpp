// One kernel body for OpenCL and CUDA: conv's vector kernel is written once (kernels/conv/conv_vec_body.h)
// and both backends' sources are wrappers whose expanded text holds all of it, so a variant's stored
// identity (the hash of that text) covers the shared body. The programs themselves are compiled and run by
// tests/opencl (PoCL) and compiled for sm_90 by tests/cuda.
#include <gtest/gtest.h>

#include "pimg/registry.hpp"

namespace pimg {
namespace {

TEST(PortableKernel, ConvVecWrappersExpandTheOneBody) {
  const KernelSource* body = kernel_source("conv/conv_vec_body.h");
  ASSERT_NE(body, nullptr);
  EXPECT_NE(body->text.find("#ifdef __OPENCL_VERSION__"), std::string::npos);  // conv_portable.h, expanded
  EXPECT_EQ(body->text.find("#include \"conv/"), std::string::npos);             // nothing left to include
  const Registry& reg = Registry::builtin();
  for (const char* name : {"cl_vec", "cuda_vec"}) {
    const Variant* v = reg.variant("conv", name);
    ASSERT_NE(v, nullptr) << name;
    const KernelSource* source = kernel_source(v->source());
    ASSERT_NE(source, nullptr) << v->source();
    EXPECT_NE(source->text.find(body->text), std::string::npos) << v->source() << " does not hold the whole body";
    EXPECT_LT(source->text.size(), body->text.size() + 200) << v->source() << " is more than a wrapper";
  }
  EXPECT_NE(kernel_source("conv/conv_vec.cl")->text.find("#define CONV_VEC_ENTRY conv_vec\n"), std::string::npos);
  EXPECT_NE(kernel_source("conv/conv_cuda_vec.cu")->text.find("#define CONV_VEC_ENTRY conv_cuda_vec\n"),
            std::string::npos);
}

}  // namespace
}  // namespace pimg
