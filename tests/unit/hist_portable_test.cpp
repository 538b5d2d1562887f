// hist's and histeq's portable GPU variants, one text per kernel registered on every portable target, keep the
// identities they were stored with before the one text: each target's name, backend and parameters (cuda_outpart
// without vec, its loads 16 bytes), the source of its target's extension, and histeq's option for exact fp32
// division where its target's compiler needs one (OpenCL's).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "pimg/registry.hpp"

namespace pimg {
namespace {

struct Row {
  const char *family, *name, *backend, *source;
  std::vector<std::string> params;
};

std::vector<std::string> param_names(const Variant& v) {
  std::vector<std::string> out;
  for (const ParamDecl& p : v.parameters()) out.push_back(p.name);
  return out;
}

DeviceInfo device(const std::string& backend) {
  DeviceInfo d;
  d.backend = backend;
  d.compute_units = 4;
  d.max_work_group_size = 1024;
  d.local_mem_bytes = 65536;
  return d;
}

std::string define(const LaunchPlan& plan, const std::string& name) {
  for (const auto& [k, v] : plan.defines)
    if (k == name) return v;
  return "";
}

TEST(HistPortable, EachTargetKeepsItsStoredNameAndParameters) {
  const std::vector<std::string> pipeline = {"hist_block", "groups",  "copies", "vec",       "map_block",
                                             "map_groups", "map_vec", "layout", "map_order"};
  std::vector<std::string> separate = pipeline;
  separate.push_back("cdf");
  const std::vector<Row> rows = {
      {"hist", "cl_global", "opencl", "hist/hist_global.cl", {"block", "items"}},
      {"hist", "cuda_global", "cuda", "hist/hist_global.cu", {"block", "items"}},
      {"hist", "cl_packed", "opencl", "hist/hist_packed.cl", {"block", "items"}},
      {"hist", "cuda_packed", "cuda", "hist/hist_packed.cu", {"block", "items"}},
      {"hist", "cl_outpart", "opencl", "hist/hist_outpart.cl", {"block", "bpg", "vec"}},
      {"hist", "cuda_outpart", "cuda", "hist/hist_outpart.cu", {"block", "bpg"}},
      {"histeq", "cl_separate", "opencl", "histeq/histeq.cl", separate},
      {"histeq", "cuda_separate", "cuda", "histeq/histeq.cu", separate},
      {"histeq", "cl_fused", "opencl", "histeq/histeq.cl", pipeline},
      {"histeq", "cuda_fused", "cuda", "histeq/histeq.cu", pipeline},
  };
  for (const Row& r : rows) {
    const Variant* v = Registry::builtin().variant(r.family, r.name);
    ASSERT_NE(v, nullptr) << r.name;
    EXPECT_EQ(v->backend(), r.backend) << r.name;
    EXPECT_EQ(v->source(), r.source) << r.name;
    EXPECT_EQ(param_names(*v), r.params) << r.name;
    EXPECT_NE(kernel_source(v->source()), nullptr) << v->source();
  }
}

TEST(HistPortable, OutpartLoadsAndHisteqDivisionFollowTheTarget) {
  const Registry& reg = Registry::builtin();
  const Problem p = reg.family("hist")->make_problem(67, 31, 3, {});
  const Workload w = reg.family("hist")->make_workload(p);
  EXPECT_EQ(define(plan_for(*reg.variant("hist", "cuda_outpart"), p, w, Config{}, device("cuda")), "VEC"), "16");
  EXPECT_EQ(define(plan_for(*reg.variant("hist", "cl_outpart"), p, w, Config{}, device("opencl")), "VEC"), "4");

  const Problem q = reg.family("histeq")->make_problem(67, 31, 1, {});
  const Workload wq = reg.family("histeq")->make_workload(q);
  for (const char* name : {"cl_separate", "cl_fused"})
    EXPECT_EQ(plan_for(*reg.variant("histeq", name), q, wq, Config{}, device("opencl")).options,
              std::vector<std::string>{"-cl-fp32-correctly-rounded-divide-sqrt"})
        << name;
  for (const char* name : {"cuda_separate", "cuda_fused"})
    EXPECT_TRUE(plan_for(*reg.variant("histeq", name), q, wq, Config{}, device("cuda")).options.empty()) << name;
}

}  // namespace
}  // namespace pimg
