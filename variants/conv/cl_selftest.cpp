// The harness's self-test variants on OpenCL: selftest_compile_error (a kernel that must fail to
// build) and selftest_wrong_result (a kernel that runs but drops a tap), and the class the other
// self-tests (selftest_hang.cpp, selftest_crash.cpp, selftest_memory.cpp) share. Only
// block_x/block_y vary.
#include "cl_common.hpp"

namespace pimg::conv {
namespace {

class ClSelftest final : public Variant {
 public:
  ClSelftest(std::string name, std::string source, std::string entry, std::string help)
      : name_(std::move(name)), source_(std::move(source)), entry_(std::move(entry)), help_(std::move(help)) {}
  std::string name() const override { return name_; }
  std::string family() const override { return "conv"; }
  std::string backend() const override { return "opencl"; }
  std::string source() const override { return source_; }
  std::string help() const override { return help_; }
  std::vector<ParamDecl> parameters() const override { return cl_block_params(); }

  // args: in, weights, out, width, height, out_width, out_height; one pixel per work item
  LaunchPlan plan(const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) const override {
    const ConvSpec s = spec_of(p);
    const ClKnobs k = cl_read_knobs(c, d);
    LaunchPlan plan;
    plan.entry = entry_;
    add_problem_defines(plan, w);
    add_define(plan, "BLOCK_X", std::to_string(k.block_x));
    add_define(plan, "BLOCK_Y", std::to_string(k.block_y));
    cl_set_geometry(plan, s, k);
    plan.args = {KernelArg::buf("in"), KernelArg::buf("weights"), KernelArg::buf("out")};
    add_scalar_args(plan, s);
    return plan;
  }

 private:
  std::string name_, source_, entry_, help_;
};

}  // namespace

std::unique_ptr<Variant> make_cl_selftest(std::string name, std::string source, std::string entry, std::string help) {
  return std::make_unique<ClSelftest>(std::move(name), std::move(source), std::move(entry), std::move(help));
}

std::unique_ptr<Variant> make_selftest_compile_error() {
  return std::make_unique<ClSelftest>("selftest_compile_error", "selftest/compile_error.cl", "conv_compile_error",
                                      "self-test: a kernel that does not compile (must be stored as compile_error)");
}

std::unique_ptr<Variant> make_selftest_wrong_result() {
  return std::make_unique<ClSelftest>("selftest_wrong_result", "selftest/wrong_result.cl", "conv_wrong_result",
                                      "self-test: a kernel that drops its last non-zero tap (must be wrong_result)");
}

}  // namespace pimg::conv
