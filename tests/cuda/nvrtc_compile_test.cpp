// CI without a GPU: every CUDA kernel source compiles through NVRTC for sm_90 over a sample of
// configurations covering each knob value, planned by the variants themselves for an H100-like device
// and compiled with the options the backend would use. No driver is needed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <set>
#include <tuple>

#include "cuda_backend.hpp"
#include "cuda_fixture.hpp"
#include "nvrtc_compiler.hpp"
#include "pimg/errors.hpp"
#include "pimg/space.hpp"

namespace pimg::cudatest {
namespace {

void expect_compiles(const KernelSource& source, const LaunchPlan& plan, const std::string& what) {
  const auto options = cuda::nvrtc_options(plan, 90);
  const cuda::NvrtcResult r = cuda::nvrtc_compile(source, options);
  EXPECT_TRUE(r.ok) << what << "\n" << r.log;
  EXPECT_FALSE(r.cubin.empty()) << what;
}

class NvrtcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string status = cuda::nvrtc_status();
    ASSERT_TRUE(status.empty()) << "NVRTC must load where the CUDA backend is built: " << status;
  }
};

using SampleParam = std::tuple<const char*, int, const char*, const char*>;  // variant, shape, border, filter

class NvrtcSample : public NvrtcTest, public ::testing::WithParamInterface<SampleParam> {};

TEST_P(NvrtcSample, EveryConfigurationCompilesForSm90) {
  const auto& [name, shape, border, filter] = GetParam();
  const Problem p = make_problem(kShapes[shape], border, filter);
  const Workload w = conv_family().make_workload(p);
  const Variant& v = variant(name);
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr) << v.source();
  for (const Config& c : configs_for(name)) {
    const LaunchPlan plan = plan_for(v, p, w, c, sm90_device());
    expect_compiles(*source, plan, std::string(name) + " " + c.brief() + " on " + p.label());
  }
}

std::string sample_name(const ::testing::TestParamInfo<SampleParam>& info) {
  const auto& [variant, shape, border, filter] = info.param;
  return std::string(variant) + "_" + kShapes[shape].name + "_" + border + "_" + filter;
}

// Each layout meets each border once, alternating the filters.
INSTANTIATE_TEST_SUITE_P(Cuda, NvrtcSample,
                         ::testing::Values(SampleParam{"cuda_direct", 0, "zero", "sharpen3"},
                                           SampleParam{"cuda_direct", 1, "valid", "gaussian5"},
                                           SampleParam{"cuda_direct", 2, "replicate", "gaussian5"},
                                           SampleParam{"cuda_tiled", 0, "replicate", "gaussian5"},
                                           SampleParam{"cuda_tiled", 1, "zero", "sharpen3"},
                                           SampleParam{"cuda_tiled", 2, "valid", "gaussian5"},
                                           SampleParam{"cuda_texture", 0, "valid", "sharpen3"},
                                           SampleParam{"cuda_texture", 1, "replicate", "gaussian5"},
                                           SampleParam{"cuda_texture", 2, "zero", "sharpen3"}),
                         sample_name);

// cuda_vec: vec 4, 8 and 16 and rows 1, 4, 8 and 16 each appear, with several blocks and the common knobs.
std::vector<Config> vec_configs() {
  return {
      config({{"block_x", 32}, {"block_y", 4}, {"vec", 4}, {"rows", 16}, {"launch_bounds", 0}, {"maxrregcount", 0},
              {"host_mem", "pageable"}}),
      config({{"block_x", 64}, {"block_y", 2}, {"vec", 8}, {"rows", 1}, {"launch_bounds", 2}, {"maxrregcount", 0},
              {"host_mem", "pinned"}}),
      config({{"block_x", 128}, {"block_y", 1}, {"vec", 16}, {"rows", 8}, {"launch_bounds", 0}, {"maxrregcount", 0},
              {"host_mem", "pageable"}}),
      config({{"block_x", 32}, {"block_y", 2}, {"vec", 16}, {"rows", 16}, {"launch_bounds", 0}, {"maxrregcount", 128},
              {"host_mem", "pageable"}}),
      config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 4}, {"launch_bounds", 1}, {"maxrregcount", 0},
              {"host_mem", "pageable"}}),
  };
}

using VecParam = std::tuple<int, const char*, const char*>;  // shape, border, filter

class NvrtcVec : public NvrtcTest, public ::testing::WithParamInterface<VecParam> {};

TEST_P(NvrtcVec, EveryVecAndRowsCompilesForSm90) {
  const auto& [shape, border, filter] = GetParam();
  const Problem p = make_problem(kShapes[shape], border, filter, 256, 40);
  const Workload w = conv_family().make_workload(p);
  const Variant& v = variant("cuda_vec");
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr) << v.source();
  // Two of the five base configurations in turn (each meets three or four of the nine problems), then the
  // shuffles, simd and separable ones.
  const std::vector<Config> base = vec_configs();
  const std::size_t index = static_cast<std::size_t>(shape * 3 + (std::string(border) == "zero"    ? 0
                                                                   : std::string(border) == "valid" ? 1
                                                                                                     : 2));
  std::vector<Config> configs = {base[(2 * index) % base.size()], base[(2 * index + 1) % base.size()]};
  configs.push_back(config({{"block_x", 32}, {"block_y", 4}, {"vec", 16}, {"rows", 8}, {"shfl", 1}}));
  configs.push_back(config({{"block_x", 64}, {"block_y", 2}, {"vec", 4}, {"rows", 4}, {"shfl", 1}}));
  if (std::string(filter) == "sharpen3") {
    // the K x K taps on biased 16-bit lanes: every vec, with shuffles once
    for (int vec : {4, 8, 16})
      configs.push_back(config({{"block_x", 64}, {"block_y", 2}, {"vec", vec}, {"rows", 8}, {"simd", 1},
                                {"shfl", vec == 8 ? 1 : 0}}));
  }
  if (std::string(filter) == "gaussian5") {
    configs.push_back(config({{"block_x", 32}, {"block_y", 4}, {"vec", 8}, {"rows", 8}, {"separable", 1}}));
    configs.push_back(config({{"block_x", 64}, {"block_y", 1}, {"vec", 16}, {"rows", 4}, {"separable", 1}, {"shfl", 1}}));
    for (int vec : {4, 8, 16})
      configs.push_back(config({{"block_x", 32}, {"block_y", 4}, {"vec", vec}, {"rows", 8}, {"separable", 1},
                                {"packed", 1}, {"shfl", vec == 16 ? 1 : 0}}));
  }
  for (const Config& c : configs) {
    const LaunchPlan plan = plan_for(v, p, w, c, sm90_device());
    expect_compiles(*source, plan, "cuda_vec " + c.brief() + " on " + p.label());
  }
}

std::string layout_border_filter(const VecParam& param) {
  const auto& [shape, border, filter] = param;
  return std::string(kShapes[shape].name) + "_" + border + "_" + filter;
}
std::string vec_name(const ::testing::TestParamInfo<VecParam>& info) { return "cuda_vec_" + layout_border_filter(info.param); }
std::string mma_name(const ::testing::TestParamInfo<VecParam>& info) { return "cuda_mma_" + layout_border_filter(info.param); }

// Each layout meets each border, both filters on the interleaved layouts (cuda_vec's and cuda_mma's matrix).
const auto kEveryLayoutAndBorder = ::testing::Values(VecParam{0, "zero", "sharpen3"}, VecParam{0, "valid", "gaussian5"},
                                           VecParam{0, "replicate", "sharpen3"}, VecParam{1, "zero", "gaussian5"},
                                           VecParam{1, "valid", "sharpen3"}, VecParam{1, "replicate", "gaussian5"},
                                           VecParam{2, "zero", "gaussian5"}, VecParam{2, "valid", "sharpen3"},
                                           VecParam{2, "replicate", "gaussian5"});

INSTANTIATE_TEST_SUITE_P(Cuda, NvrtcVec, kEveryLayoutAndBorder, vec_name);

TEST(CudaPlans, VecGeometryAndBadValues) {
  const Problem p = make_problem(kShapes[1], "replicate", "gaussian5", 100, 30);  // 300 bytes a row
  const Workload w = conv_family().make_workload(p);
  const LaunchPlan plan =
      plan_for(variant("cuda_vec"), p, w, config({{"block_x", 8}, {"block_y", 2}, {"vec", 16}, {"rows", 4}}), sm90_device());
  EXPECT_EQ(plan.entry, "conv_cuda_vec");
  EXPECT_EQ(plan.global[0], 24u);  // ceil(300 / 16) = 19 vectors, rounded up to 8
  EXPECT_EQ(plan.global[1], 8u);   // ceil(30 / 4) = 8 row groups
  EXPECT_EQ(plan.local[0], 8u);
  EXPECT_EQ(plan.local[1], 2u);
  ASSERT_EQ(plan.args.size(), 6u);
  const Problem planar = make_problem(kShapes[2], "valid", "gaussian5", 100, 30);  // 3 planes of 96 x 26
  const LaunchPlan pp = plan_for(variant("cuda_vec"), planar, conv_family().make_workload(planar),
                                                 config({{"block_x", 8}, {"block_y", 2}, {"vec", 8}, {"rows", 4}}),
                                                 sm90_device());
  EXPECT_EQ(pp.global[0], 16u);  // 12 vectors of 8 bytes, rounded up to 8
  EXPECT_EQ(pp.global[1], 22u);  // 3 planes x 7 row groups = 21, rounded up to 2
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"vec", 12}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"rows", 0}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"block_x", 64}, {"block_y", 32}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"block_x", 16}, {"shfl", 1}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"separable", 2}}), sm90_device()), PlanError);
  const Problem sharpen = make_problem(kShapes[0], "zero", "sharpen3", 64, 8);
  EXPECT_THROW(plan_for(variant("cuda_vec"), sharpen, conv_family().make_workload(sharpen), config({{"separable", 1}}),
                                        sm90_device()),
               PlanError);
  EXPECT_NO_THROW(plan_for(variant("cuda_vec"), p, w, config({{"separable", 1}, {"shfl", 1}}), sm90_device()));
  EXPECT_NO_THROW(plan_for(variant("cuda_vec"), p, w, config({{"separable", 1}, {"packed", 1}}), sm90_device()));
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"packed", 1}}), sm90_device()), PlanError);
  // simd: sharpen3's taps fit biased 16-bit lanes, gaussian5's (sum 256 x 255) do not; never with separable
  const Workload ws = conv_family().make_workload(sharpen);
  const LaunchPlan simd = plan_for(variant("cuda_vec"), sharpen, ws, config({{"simd", 1}}), sm90_device());
  EXPECT_NE(std::find(simd.defines.begin(), simd.defines.end(), std::make_pair(std::string("SIMD"), std::string("1"))),
            simd.defines.end());
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"simd", 1}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), p, w, config({{"separable", 1}, {"simd", 1}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("cuda_vec"), sharpen, ws, config({{"simd", 2}}), sm90_device()), PlanError);
}

TEST_F(NvrtcTest, CopyKernelCompiles) {
  const auto backend = make_cuda_backend();
  const auto copy = backend->copy_kernel((64u << 20) + 5);
  ASSERT_TRUE(copy.has_value());
  expect_compiles(copy->source, copy->plan, "copy kernel");
  // Whole rows (64 MiB): the 2-D plans join the 1-D ones, and every plan's entry is in the program.
  const auto rows = backend->copy_kernel(64u << 20);
  ASSERT_TRUE(rows.has_value());
  const cuda::NvrtcResult r = cuda::nvrtc_compile(rows->source, cuda::nvrtc_options(rows->plan, 90));
  ASSERT_TRUE(r.ok) << r.log;
  const std::string cubin(r.cubin.begin(), r.cubin.end());
  std::set<std::string> entries;
  // The bulk-copy entries need PTX ISA 8.0 (NVRTC 12 on): an older NVRTC's program leaves them out, and the ceiling
  // skips them there.
  const bool bulk = std::stoi(cuda::nvrtc_version()) >= 12;
  for (const LaunchPlan& p : rows->more) {
    entries.insert(p.entry);
    if (p.entry.rfind("copy_bulk", 0) == 0) {
      EXPECT_EQ(cubin.find(p.entry) != std::string::npos, bulk) << p.entry << " with NVRTC " << cuda::nvrtc_version();
      EXPECT_EQ(p.local[0], 32u) << p.entry;
      continue;
    }
    EXPECT_NE(cubin.find(p.entry), std::string::npos) << p.entry;
    if (p.entry.rfind("copy_rows", 0) == 0) {
      EXPECT_EQ(p.dims, 2);
      EXPECT_LE(p.global[1] / p.local[1], 65535u) << p.entry;
    }
  }
  EXPECT_TRUE(entries.count("copy_rows") && entries.count("copy_rows_rev"));
  EXPECT_TRUE(entries.count("copy_bulk_4k") && entries.count("copy_bulk_8k") && entries.count("copy_bulk_16k"));
  EXPECT_EQ(copy->more.size() + 36, rows->more.size());  // 3 row lengths x 2 entries x 6 blocks
}

// The read kernels (kernels/copy/read.cu) compile for sm_90 with every entry the plans name (the bulk reads with
// NVRTC 12 on); none for a buffer under one 16-byte vector.
TEST_F(NvrtcTest, ReadKernelCompiles) {
  const auto backend = make_cuda_backend();
  EXPECT_FALSE(backend->read_kernel(15).has_value());
  const auto read = backend->read_kernel((64u << 20) + 5);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->plan.args.at(2).i, (64 << 20) / 16);
  const cuda::NvrtcResult r = cuda::nvrtc_compile(read->source, cuda::nvrtc_options(read->plan, 90));
  ASSERT_TRUE(r.ok) << r.log;
  const std::string cubin(r.cubin.begin(), r.cubin.end());
  EXPECT_NE(cubin.find(read->plan.entry), std::string::npos);
  ASSERT_EQ(read->more.size(), 16u + 12u);  // 4 items x 4 blocks, 3 bulk chunks x 4 grids
  // The bulk entries need PTX ISA 8.0 (NVRTC 12 on), as the copy's.
  const bool bulk = std::stoi(cuda::nvrtc_version()) >= 12;
  for (const LaunchPlan& p : read->more)
    EXPECT_EQ(cubin.find(p.entry) != std::string::npos, p.entry.find("_bulk_") == std::string::npos || bulk) << p.entry;
}

// The kernels of the timed region (docs/measurement.md) compile for sm_90: the one that holds a run's launches
// back and the one that empties the L2 before a cold run.
TEST_F(NvrtcTest, SpinKernelCompiles) {
  const KernelSource* spin = kernel_source("timing/spin.cu");
  ASSERT_NE(spin, nullptr);
  for (const char* entry : {"pimg_spin", "pimg_l2_sweep"}) {
    LaunchPlan plan;
    plan.entry = entry;
    plan.dims = 1;
    expect_compiles(*spin, plan, entry);
  }
}

// A new .cu file under kernels/ must be compiled above: every embedded CUDA source is named by a CUDA
// variant or the copy or read kernels (headers, *.cuh, are compiled through the sources that include them).
TEST(NvrtcCoverage, EveryCudaKernelSourceIsCompiledHere) {
  // check: CheckKernelsCompileForSm90; read: ReadKernelCompiles
  std::set<std::string> covered = {"copy/copy.cu", "copy/read.cu", "timing/spin.cu", "check/check.cu"};
  for (const char* name : {"cuda_direct", "cuda_tiled", "cuda_texture", "cuda_vec", "cuda_mma", "cuda_stream"})
    covered.insert(variant(name).source());
  covered.insert(Registry::builtin().variant("semblance", "cuda_grid")->source());  // semblance_nvrtc_test.cpp
  covered.insert(Registry::builtin().variant("rotate", "cuda_direct")->source());   // rotate_nvrtc_test.cpp
  covered.insert(Registry::builtin().variant("rotate", "cuda_scatter")->source());  // RotateNvrtc.ScatterCompilesAndRunsExact
  // pix_nvrtc_test.cpp and hist_nvrtc_test.cpp compile every CUDA variant of their families.
  for (const char* family : {"bgr2rgba", "flip", "maxpool", "hist", "histeq"})
    for (const Variant* v : Registry::builtin().variants(family))
      if (v->backend() == "cuda" && !v->baseline()) covered.insert(v->source());
  for (const auto& path : kernel_source_paths())
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".cu") == 0)
      EXPECT_TRUE(covered.count(path)) << path << " is a CUDA kernel source no test compiles";
}

TEST_F(NvrtcTest, CompileErrorIsALogNotAnException) {
  const KernelSource broken{"broken.cu", "extern \"C\" __global__ void k() { undeclared_name = 1; }\n", "x"};
  const cuda::NvrtcResult r = cuda::nvrtc_compile(broken, {"--gpu-architecture=sm_90"});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("undeclared_name"), std::string::npos) << r.log;
}

// cuda_mma (the taps on the tensor cores): every layout, border and filter, each with one of four configurations
// in turn (each at least twice over the nine; stage 1 with 35 chunks a row, more than a warp's lanes), and on
// three of them the box filter's divisor of 9 (a division, not a shift); then what its plan refuses.
class NvrtcMma : public NvrtcTest, public ::testing::WithParamInterface<VecParam> {};

TEST_P(NvrtcMma, EveryRowsTilesAndWarpsCompileForSm90) {
  const auto& [shape, border, filter] = GetParam();
  const Problem p = make_problem(kShapes[shape], border, filter, 300, 40);
  const Variant& v = variant("cuda_mma");
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr) << v.source();
  const std::vector<Config> configs = {
      config({{"warps", 4}, {"rows", 8}, {"tiles", 1}}),
      config({{"warps", 1}, {"rows", 1}, {"tiles", 4}, {"launch_bounds", 2}, {"ahead", 1}, {"stage", 1}}),
      config({{"warps", 16}, {"rows", 6}, {"tiles", 2}, {"ahead", 4}, {"maxrregcount", 64}, {"host_mem", "pinned"}}),
      config({{"warps", 16}, {"rows", 6}, {"tiles", 2}, {"ahead", 4}, {"stage", 1}}),
  };
  const std::size_t index = static_cast<std::size_t>(shape * 3 + (std::string(border) == "zero"    ? 0
                                                                   : std::string(border) == "valid" ? 1
                                                                                                     : 2));
  const Config& c = configs[index % configs.size()];
  expect_compiles(*source, plan_for(v, p, conv_family().make_workload(p), c, sm90_device()),
                  "cuda_mma " + c.brief() + " on " + p.label());
  if (index % 3 != shape) return;  // the box filter once per layout, on a different border each
  const Problem box = conv_family().make_problem(300, 40, kShapes[shape].channels,
                                                 {{"layout", kShapes[shape].layout}, {"border", border}, {"filter", "box3"}});
  expect_compiles(*source, plan_for(v, box, conv_family().make_workload(box), configs[0], sm90_device()),
                  "cuda_mma on " + box.label());
}

INSTANTIATE_TEST_SUITE_P(Cuda, NvrtcMma, kEveryLayoutAndBorder, mma_name);

// cuda_stream (column strips): each vec with short, odd and long strips and depths against the K-row accumulators
// (depth 1, 3 = K, 4, 5, 8), launch bounds and a register cap, over sharpen3 on one and three interleaved channels
// with both borders it takes, planar planes with a custom filter whose divisor of 4 is a lane shift, and the packed
// separable passes of gaussian5 on three interleaved channels.
TEST_F(NvrtcTest, StreamStripsCompileForSm90) {
  const Variant& v = variant("cuda_stream");
  const KernelSource* source = kernel_source(v.source());
  ASSERT_NE(source, nullptr) << v.source();
  const Problem planar = conv_family().make_problem(
      96, 20, 3,
      {{"layout", "planar"}, {"border", "replicate"}, {"filter", "custom"}, {"weights", "-1,2,-1;2,9,2;-1,2,-1"},
       {"divisor", "4"}});
  const std::vector<Config> configs = {
      config({{"block_x", 32}, {"block_y", 4}, {"vec", 4}, {"rows", 1}, {"depth", 1}}),
      config({{"block_x", 128}, {"block_y", 1}, {"vec", 8}, {"rows", 37}, {"depth", 3}, {"launch_bounds", 4}}),
      config({{"block_x", 64}, {"block_y", 2}, {"vec", 16}, {"rows", 16}, {"depth", 5}}),
      config({{"block_x", 32}, {"block_y", 1}, {"vec", 16}, {"rows", 256}, {"depth", 8}, {"maxrregcount", 64}}),
      config({{"block_x", 64}, {"block_y", 1}, {"vec", 8}, {"rows", 16}, {"depth", 4}, {"separable", 1}}),
  };
  const Problem problems[] = {make_problem(kShapes[0], "zero", "sharpen3", 96, 20),
                              make_problem(kShapes[1], "replicate", "sharpen3", 96, 20), planar,
                              make_problem(kShapes[0], "replicate", "sharpen3", 96, 20),
                              make_problem(kShapes[1], "zero", "gaussian5", 96, 20)};
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const Problem& p = problems[i];
    expect_compiles(*source, plan_for(v, p, conv_family().make_workload(p), configs[i], sm90_device()),
                    "cuda_stream " + configs[i].brief() + " on " + p.label());
  }
}

TEST(CudaPlans, StreamGeometryAndWhatItRefuses) {
  const Variant& v = variant("cuda_stream");
  const Problem p = make_problem(kShapes[0], "replicate", "sharpen3", 1000, 70);
  const Workload w = conv_family().make_workload(p);
  const LaunchPlan plan = plan_for(v, p, w, config({{"block_x", 64}, {"block_y", 2}, {"vec", 8}, {"rows", 16}}),
                                   sm90_device());
  EXPECT_EQ(plan.entry, "conv_cuda_stream");
  EXPECT_EQ(plan.global[0], 128u);  // 125 vectors of 8 bytes, rounded up to the block
  EXPECT_EQ(plan.global[1], 6u);    // ceil(70 / 16) = 5 strips, rounded up to 2 a block
  EXPECT_EQ(plan.local[0], 64u);
  EXPECT_EQ(plan.local[1], 2u);
  EXPECT_NE(std::find(plan.defines.begin(), plan.defines.end(), std::pair<std::string, std::string>{"DEPTH", "6"}),
            plan.defines.end());
  auto refusal = [&](const Problem& q, const Config& c) {
    try {
      plan_for(v, q, conv_family().make_workload(q), c, sm90_device());
    } catch (const PlanError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(refusal(p, config({{"vec", 16}})).find("not a whole number of 16-byte vectors"), std::string::npos);
  EXPECT_NE(refusal(p, config({{"block_x", 48}, {"vec", 8}})).find("multiple of 32"), std::string::npos);
  const Problem gauss3 = make_problem(kShapes[1], "replicate", "gaussian5", 64, 8);  // a halo of 6 bytes
  EXPECT_NE(refusal(gauss3, config({{"separable", 1}, {"vec", 4}})).find("wider than a 4-byte vector"),
            std::string::npos);
  EXPECT_EQ(refusal(gauss3, config({{"separable", 1}, {"vec", 8}})), "");
  EXPECT_NE(refusal(gauss3, config({{"separable", 0}})).find("16-bit lanes"), std::string::npos);
  EXPECT_NE(refusal(make_problem(kShapes[0], "zero", "sharpen3", 64, 8), config({{"separable", 1}})).find("factorisation"),
            std::string::npos);
  EXPECT_NE(refusal(make_problem(kShapes[0], "valid", "sharpen3", 64, 8), Config{}).find("border=valid"),
            std::string::npos);
  EXPECT_THROW(plan_for(v, p, w, config({{"depth", 9}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"rows", 0}}), sm90_device()), PlanError);
}

TEST(CudaPlans, MmaGeometryAndWhatItRefuses) {
  const Problem p = make_problem(kShapes[1], "replicate", "gaussian5", 100, 30);  // 300 bytes a row
  const Workload w = conv_family().make_workload(p);
  const Variant& v = variant("cuda_mma");
  const LaunchPlan plan = plan_for(v, p, w, config({{"warps", 2}, {"rows", 4}, {"tiles", 2}}), sm90_device());
  EXPECT_EQ(plan.entry, "conv_cuda_mma");
  EXPECT_EQ(plan.global[0], 64u);  // ceil(300 / 256) = 2 blocks of one warp's width
  EXPECT_EQ(plan.global[1], 8u);   // ceil(30 / 4) = 8 row groups, 2 a block
  EXPECT_EQ(plan.local[0], 32u);
  EXPECT_EQ(plan.local[1], 2u);
  ASSERT_EQ(plan.args.size(), 6u);
  // The edge tiles in a second launch: column 0 and, past it, the row's last columns that are not fast plus one
  // (at most every other column): here the second of two columns (its 256 bytes pass the row's 300).
  ASSERT_EQ(plan.steps.size(), 1u);
  EXPECT_EQ(plan.steps[0].entry, "conv_cuda_mma_edge");
  EXPECT_EQ(plan.steps[0].global[0], 64u);
  EXPECT_EQ(plan.steps[0].global[1], plan.global[1]);
  EXPECT_EQ(plan.steps[0].local, plan.local);
  ASSERT_EQ(plan.steps[0].args.size(), 7u);
  EXPECT_EQ(plan.steps[0].args[6].i, 1);
  // 8192 bytes a row in 64 tiles: the last is not fast (its windows reach 20 bytes past the row), the one before is;
  // the step covers column 0 and the last two.
  const Problem wide = make_problem(kShapes[0], "replicate", "sharpen3", 8192, 64);
  const LaunchPlan wide_plan = plan_for(v, wide, conv_family().make_workload(wide), config({{"tiles", 1}}), sm90_device());
  ASSERT_EQ(wide_plan.steps.size(), 1u);
  EXPECT_EQ(wide_plan.steps[0].global[0], 96u);
  EXPECT_EQ(wide_plan.steps[0].args.back().i, 2);
  // Rows that are not 4-byte aligned (8191 bytes): every column is an edge column.
  const Problem odd = make_problem(kShapes[0], "replicate", "sharpen3", 8191, 64);
  EXPECT_EQ(plan_for(v, odd, conv_family().make_workload(odd), config({{"tiles", 1}}), sm90_device()).steps[0].global[0],
            64u * 32);
  EXPECT_THROW(plan_for(v, p, w, config({{"tiles", 3}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"warps", 3}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"rows", 0}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(v, p, w, config({{"stage", 2}}), sm90_device()), PlanError);
  // stage 1: the rings in static shared memory, 48 KiB at most: 16 warps x 17 rows x 176 bytes fit, 18 rows do not.
  EXPECT_NO_THROW(plan_for(v, p, w, config({{"warps", 16}, {"tiles", 1}, {"ahead", 16}, {"stage", 1}}), sm90_device()));
  try {
    plan_for(v, p, w, config({{"warps", 16}, {"tiles", 1}, {"ahead", 17}, {"stage", 1}}), sm90_device());
    ADD_FAILURE() << "a 50,688-byte ring was planned";
  } catch (const PlanError& e) {
    EXPECT_NE(std::string(e.what()).find("50688 bytes of shared memory"), std::string::npos) << e.what();
  }
  const LaunchPlan staged = plan_for(v, p, w, config({{"stage", 1}, {"ahead", 3}}), sm90_device());
  EXPECT_NE(std::find(staged.defines.begin(), staged.defines.end(), std::pair<std::string, std::string>{"STAGE", "1"}),
            staged.defines.end());
  auto refusal = [&](const Problem& q, const DeviceInfo& d) {
    try {
      plan_for(v, q, conv_family().make_workload(q), Config{}, d);
    } catch (const PlanError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  DeviceInfo turing = sm90_device();
  turing.limits["compute_capability"] = 75;
  EXPECT_NE(refusal(p, turing).find("8.0 or later"), std::string::npos);
  const Problem heavy = conv_family().make_problem(
      64, 8, 1, {{"border", "zero"}, {"filter", "custom"}, {"weights", "1,1,1;1,200,1;1,1,1"}, {"divisor", "256"}});
  EXPECT_NE(refusal(heavy, sm90_device()).find("signed byte"), std::string::npos);
  auto box = [](int k, int channels) {
    std::string row = "1", weights;
    for (int i = 1; i < k; ++i) row += ",1";
    for (int r = 0; r < k; ++r) weights += (r ? ";" : "") + row;
    return conv_family().make_problem(64, 12, channels, {{"border", "zero"}, {"filter", "custom"}, {"weights", weights},
                                                         {"divisor", std::to_string(k * k)}});
  };
  EXPECT_EQ(refusal(box(9, 3), sm90_device()), "");  // 7 + 8 x 3 bytes: fits
  EXPECT_EQ(refusal(box(25, 1), sm90_device()), "");  // 7 + 24 bytes
  EXPECT_NE(refusal(box(11, 3), sm90_device()).find("32-byte window"), std::string::npos);  // 7 + 10 x 3 bytes
  EXPECT_NE(refusal(box(27, 1), sm90_device()).find("32-byte window"), std::string::npos);  // 7 + 26 + 3 bytes
}

TEST(NvrtcOptions, ArchitectureDefinesAndHarnessSwitches) {
  LaunchPlan plan;
  plan.defines = {{"BLOCK_X", "16"}, {"PIMG_WEIGHTS", "1,2,1"}};
  plan.options = {"--maxrregcount=32", cuda::kPinnedOption};
  const auto options = cuda::nvrtc_options(plan, 90);
  const std::vector<std::string> expected = {"--gpu-architecture=sm_90", "-std=c++17", "-default-device",
                                             "-DBLOCK_X=16", "-DPIMG_WEIGHTS=1,2,1", "--maxrregcount=32"};
  EXPECT_EQ(options, expected);
  EXPECT_TRUE(cuda::plan_wants_pinned(plan));
  plan.options.pop_back();
  EXPECT_FALSE(cuda::plan_wants_pinned(plan));
}

TEST(CudaPlans, ImpossibleGeometryIsAPlanError) {
  const Problem p = make_problem(kShapes[1], "zero", "gaussian5");
  const Workload w = conv_family().make_workload(p);
  EXPECT_THROW(plan_for(variant("cuda_direct"), p, w, config({{"block_x", 64}, {"block_y", 32}}), sm90_device()),
               PlanError);
  EXPECT_THROW(plan_for(variant("cuda_tiled"), p, w, config({{"block_x", 128}, {"block_y", 8}, {"items_x", 8}, {"items_y", 4}}),
                                          sm90_device()),
               PlanError);
  EXPECT_THROW(plan_for(variant("cuda_direct"), p, w, config({{"maxrregcount", 8}}), sm90_device()), PlanError);
  EXPECT_THROW(plan_for(variant("npp_filter"), p, w, Config{}, sm90_device()), PlanError);  // zero border
}

}  // namespace
}  // namespace pimg::cudatest

// The GPU machine's space files load against this build's registry (variants, parameters, constraints),
// so a typo is caught here rather than after the machine has been started. They load from the repository
// root, as scripts/gpu-bench.sh runs them; a space whose input file is not beside this checkout (the
// seed's seismic data under ../shared/, absent from a clean clone) may fail only on that missing file.
TEST(GpuSpaces, EverySpaceFileOfTheGpuScriptLoads) {
  namespace fs = std::filesystem;
  const fs::path before = fs::current_path();
  fs::current_path(PIMG_SOURCE_DIR);
  int n = 0;
  for (const auto& entry : fs::directory_iterator("spaces")) {
    const std::string name = entry.path().filename().string();
    if (name.find("-gpu") == std::string::npos || entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(name);
    try {
      pimg::load_space(entry.path().string(), pimg::Registry::builtin());
    } catch (const pimg::UsageError& e) {
      const std::string what = e.what();
      // A space of MPI variants (semblance-gpu-mpi.yaml) in a build that found no MPI.
      if (!pimg::Registry::builtin().backend("mpi") && what.find("unknown backend 'mpi'") != std::string::npos) {
        ++n;
        continue;
      }
      const std::string shared = "../shared/data/";
      const auto at = what.find(shared);
      if (at == std::string::npos) {
        ADD_FAILURE() << what;
        continue;
      }
      const std::string file = what.substr(at, what.find(':', at) - at);
      EXPECT_FALSE(fs::exists(file)) << what;
      EXPECT_NE(what.find("cannot open"), std::string::npos) << what;
    }
    ++n;
  }
  fs::current_path(before);
  EXPECT_GE(n, 9);  // conv (2), the six image families and semblance
}

// The spaces the bars of issues 6 and 7 are measured on have the sizes their documents state, on an
// H100's limits, and every configuration plans (no launch_error from geometry).
TEST(GpuSpaces, TheBarSpacesHaveTheirStatedSizes) {
  using pimg::cudatest::sm90_device;
  const pimg::Registry& reg = pimg::Registry::builtin();
  for (const auto& [file, points] : {std::pair<std::string, std::size_t>{"conv-gpu-2k.yaml", 2304},
                                     std::pair<std::string, std::size_t>{"conv-gpu-mpi.yaml", 576}}) {
    SCOPED_TRACE(file);
    const pimg::Space space = pimg::load_space(std::string(PIMG_SOURCE_DIR) + "/spaces/" + file, reg);
    ASSERT_EQ(space.variants.size(), 1u);
    const pimg::SearchSpace s = space.variants[0].search_space(sm90_device());
    EXPECT_EQ(s.size(), points);
    const pimg::Variant* v = reg.variant("conv", space.variants[0].variant);
    const pimg::Workload w = pimg::cudatest::conv_family().make_workload(space.problems[0]);
    for (std::size_t i = 0; i < s.size(); ++i)
      EXPECT_NO_THROW(plan_for(*v, space.problems[0], w, s.config(static_cast<pimg::PointId>(i)), sm90_device()))
          << s.config(static_cast<pimg::PointId>(i)).brief();
  }
}

namespace pimg::cudatest {
namespace {

// The executor's check kernels (kernels/check/check.cu: validation on the device) build for sm_90.
TEST_F(NvrtcTest, CheckKernelsCompileForSm90) {
  const KernelSource* source = kernel_source("check/check.cu");
  ASSERT_NE(source, nullptr);
  for (const char* entry : {"pimg_check", "pimg_check_poison", "pimg_checksum"}) {
    LaunchPlan plan;
    plan.entry = entry;
    plan.dims = 1;
    expect_compiles(*source, plan, entry);
  }
}

}  // namespace
}  // namespace pimg::cudatest
