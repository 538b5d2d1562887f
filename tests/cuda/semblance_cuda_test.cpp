// On a machine with a CUDA GPU: cuda_grid and cuda_argmax over configurations covering every knob value,
// on a non-cubic synthetic grid, validated by the family's rule against the serial reference through
// pimg::evaluate (output and scratch poisoned before each run). Skips where CUDA is unavailable.
#include <gtest/gtest.h>

#include "cuda_backend.hpp"
#include "semblance_fixture.hpp"

namespace pimg::sembtest {
namespace {

Device* cuda_device() {
  static const std::unique_ptr<Backend> backend = make_cuda_backend();
  static const std::unique_ptr<Device> dev = []() -> std::unique_ptr<Device> {
    if (!backend->status().available || backend->devices().empty()) return nullptr;
    return backend->open(backend->devices().front());
  }();
  return dev.get();
}

TEST(SemblanceCuda, EveryKnobMatchesTheReference) {
  if (!cuda_device()) GTEST_SKIP() << "CUDA unavailable";
  const Prepared prep = prepare(small_problem());
  const std::vector<std::pair<const char*, Config>> configs = {
      {"cuda_grid", config({{"dims", 1}, {"block_x", 128}, {"ldg", 0}})},
      {"cuda_grid", config({{"dims", 1}, {"block_x", 64}, {"ppi", 3}, {"precompute", "kernel"}, {"inline", 0},
                            {"launch_bounds", 2}})},
      {"cuda_grid", config({{"dims", 2}, {"block_x", 8}, {"block_y", 4}, {"interp", "simplified"},
                            {"geom_mem", "constant"}, {"ldg", 1}})},
      {"cuda_grid", config({{"dims", 2}, {"block_x", 4}, {"block_y", 8}, {"ppi", 2}, {"window", "local"}})},
      {"cuda_grid", config({{"dims", 3}, {"block_x", 4}, {"block_y", 4}, {"block_z", 4}})},
      {"cuda_grid", config({{"dims", 3}, {"block_x", 2}, {"block_y", 2}, {"block_z", 2}, {"ppi", 7},
                            {"window", "local"}, {"geom_mem", "constant"}, {"precompute", "kernel"},
                            {"interp", "simplified"}})},
      {"cuda_argmax", config({{"dims", 1}, {"block_x", 64}, {"final_block", 64}})},
      {"cuda_argmax", config({{"dims", 3}, {"block_x", 4}, {"block_y", 2}, {"block_z", 2}, {"ppi", 4},
                              {"window", "local"}, {"geom_mem", "constant"}, {"final_block", 1024}})},
      {"cuda_argmax", config({{"dims", 2}, {"block_x", 32}, {"block_y", 8}, {"ppi", 5}, {"final_block", 32}})},
  };
  for (const auto& [name, c] : configs) {
    const EvalResult r = evaluate_on(*cuda_device(), prep, name, c);
    EXPECT_EQ(r.status, Status::ok) << name << " " << c.brief() << ": " << r.log;
  }
}

}  // namespace
}  // namespace pimg::sembtest
