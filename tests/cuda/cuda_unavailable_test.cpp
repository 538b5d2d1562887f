// On a machine without the CUDA driver (libcuda.so.1), pimg-tune still starts and `pimg-tune devices`
// lists CUDA as unavailable with the reason; skipped where the driver library is present.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cuda_backend.hpp"

namespace {

bool driver_present() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h) dlclose(h);
  return h != nullptr;
}

// Runs a command, returning its exit status and standard output.
int run(const std::string& command, std::string& out) {
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return -1;
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  return pclose(pipe);
}

TEST(CudaUnavailable, DevicesListsCudaUnavailableWithTheReason) {
  if (driver_present()) GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  std::string out;
  const int status = run(std::string("'") + PIMG_TUNE_EXE + "' devices 2>&1", out);
  EXPECT_EQ(status, 0) << out;
  const std::string line = "cuda: unavailable: libcuda.so.1 not found: ";
  const auto at = out.find(line);
  ASSERT_NE(at, std::string::npos) << out;
  const auto end = out.find('\n', at);
  EXPECT_GT(end - at, line.size()) << "the reason carries dlopen's message: " << out;
}

TEST(CudaUnavailable, BackendReportsNoDevicesAndRefusesToOpen) {
  if (driver_present()) GTEST_SKIP() << "libcuda.so.1 is present on this machine";
  const auto backend = pimg::make_cuda_backend();
  EXPECT_EQ(backend->name(), "cuda");
  const pimg::BackendStatus st = backend->status();
  EXPECT_FALSE(st.available);
  EXPECT_EQ(st.reason.rfind("libcuda.so.1 not found: ", 0), 0u) << st.reason;
  EXPECT_TRUE(backend->devices().empty());
  pimg::DeviceInfo info;
  info.backend = "cuda";
  EXPECT_THROW(backend->open(info), std::runtime_error);
}

}  // namespace
