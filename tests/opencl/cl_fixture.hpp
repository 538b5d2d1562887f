// Shared by the OpenCL tests: the built-in registry's OpenCL backend and conv family, one opened
// device per test process, and a helper that evaluates one configuration through pimg::evaluate
// (output poisoned with 0xA5, downloaded, compared with the conv reference).
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "common/variant_matrix.hpp"
#include "conv/conv_family.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"

namespace pimg::cltest {

inline const Registry& registry() { return Registry::builtin(); }
inline const Backend& backend() { return *registry().backend("opencl"); }
inline const Family& conv_family() { return *registry().family("conv"); }

// The first OpenCL device (PoCL in CI); opened once and kept for the whole process.
inline Device& device() {
  static std::unique_ptr<Device> dev = [] {
    auto devices = backend().devices();
    if (devices.empty()) throw std::runtime_error("no OpenCL device: " + backend().status().reason);
    return backend().open(devices.front());
  }();
  return *dev;
}

using testcommon::config;

// One warm-up-free evaluation with a single validated run.
inline EvalResult evaluate_on(Device& dev, const Problem& p, const std::string& variant, const Config& c) {
  const Family& family = conv_family();
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w);
  const Variant* v = registry().variant("conv", variant);
  if (!v) throw std::runtime_error("no variant conv/" + variant);
  MeasureSpec measure = MeasureSpec::fixed(0, 1, 10);
  EvalContext ctx{family, p, w, expected, dev, measure};
  return evaluate(ctx, *v, c);
}

}  // namespace pimg::cltest
