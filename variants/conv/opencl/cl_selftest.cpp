// The harness's self-test variants on OpenCL: selftest_compile_error (a kernel that must fail to
// build) and selftest_wrong_result (a kernel that runs but drops a tap), and the row the other
// self-tests (selftest_hang.cpp, selftest_crash.cpp, selftest_memory.cpp) share. Only
// block_x/block_y vary.
#include "conv/cl_common.hpp"

namespace pimg::conv {
// args: in, weights, out, width, height, out_width, out_height; one pixel per work item.
std::unique_ptr<Variant> make_cl_selftest(std::string name, std::string source, std::string entry, std::string help) {
  return make_variant({std::move(name), "conv", "opencl", std::move(source), std::move(help), cl_block_params(),
                            [entry](const PlanContext& x) {
                              const ConvSpec s = spec_of(x.problem);
                              const ClKnobs k = cl_read_knobs(x);
                              LaunchPlan plan;
                              plan.entry = entry;
                              add_problem_defines(plan, x.workload);
                              add_define(plan, "BLOCK_X", std::to_string(k.block_x));
                              add_define(plan, "BLOCK_Y", std::to_string(k.block_y));
                              cl_set_geometry(plan, s, k);
                              plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
                              add_scalar_args(plan, s);
                              return plan;
                            }});
}

std::unique_ptr<Variant> make_selftest_compile_error() {
  return make_cl_selftest("selftest_compile_error", "selftest/compile_error.cl", "conv_compile_error",
                          "self-test: a kernel that does not compile (must be stored as compile_error)");
}

std::unique_ptr<Variant> make_selftest_wrong_result() {
  return make_cl_selftest("selftest_wrong_result", "selftest/wrong_result.cl", "conv_wrong_result",
                          "self-test: a kernel that drops its last non-zero tap (must be wrong_result)");
}

}  // namespace pimg::conv
