// Shared by the tests of the CPU backends (OpenMP, MPI): the one device a built-in backend offers.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "pimg/registry.hpp"

namespace pimg::testcommon {

// The backend is built in and available, and offers one device, of its own name. A function of gtest's
// assertions returns void: call it through ASSERT_NO_FATAL_FAILURE.
inline void only_device(const std::string& backend, DeviceInfo& out) {
  const Backend* b = Registry::builtin().backend(backend);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->status().available) << b->status().reason;
  const auto devices = b->devices();
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].backend, backend);
  out = devices[0];
}

}  // namespace pimg::testcommon
