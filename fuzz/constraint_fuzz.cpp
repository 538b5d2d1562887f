// Fuzz target: constraint expressions (muparser with pimg's operators), compiled at load time
// against a variant's parameters and evaluated over a small space on a device. Every input must
// evaluate or be refused with a one-line UsageError.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "pimg/errors.hpp"
#include "pimg/space.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string expr(reinterpret_cast<const char*>(data), size);
  pimg::Constraint c{expr, {"fuzz.yaml", 1, 1}};
  try {
    pimg::eval_constraint(c, {{"block_x", 16}, {"block_y", 0}, {"items_x", 3}, {"max_work_group_size", 256}});
  } catch (const pimg::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos, e.what());
  }
  pimg::VariantSpace vs;
  vs.variant = "fuzz";
  vs.params = {{"block_x", {std::int64_t{0}, std::int64_t{8}, std::int64_t{64}}, {}},
               {"mem", {std::string("global"), std::string("local")}, {}}};
  vs.constraints = {c};
  pimg::DeviceInfo device;
  device.backend = "opencl";
  device.limits = {{"max_work_group_size", 256}, {"local_mem_size", 65536}};
  try {
    (void)vs.enumerate(device);
  } catch (const pimg::UsageError& e) {
    FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos, e.what());
  }
  return 0;
}
