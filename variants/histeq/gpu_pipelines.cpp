// The histeq pipelines, one text (kernels/histeq/histeq_gpu.h) registered on every portable target
// (cl_separate, cuda_separate, cl_fused, cuda_fused):
//   separate: histeq_hist writes one partial histogram per group to scratch, then the CDF and LUT
//             either on the device (histeq_lut, one group of 256 items scanning in local memory) or on
//             the host (a host step reading the partials and writing the LUT), then histeq_map;
//   fused:    histeq_clear, histeq_hist adding into a 256-bin scratch histogram with atomics, then
//             histeq_map with every group building the LUT itself from that histogram (no LUT kernel).
// Both take `layout` (the histogram kernel's sub-histograms, as hist's cuda_shared and cl_local) and
// `map_order`: reverse maps the image from its end, which the histogram kernel read last, so that the
// part of the image still in the L2 (50 MB on an H100, against a 64 MB image at 8192^2) is read first.
// Scratch buffers are poisoned before every run, so every pipeline initialises what it reads.
#include <fmt/format.h>

#include <cstring>
#include <span>

#include "hist/gpu_common.hpp"
#include "histeq_family.hpp"
#include "pimg/errors.hpp"

namespace pimg::histeq {
namespace {

using hist::ceil_div;

// Host step of the separate pipeline with cdf=host: the partial histograms (bytes / 1024 groups of
// 256 uint32) summed, then the family's LUT; `total` is the pixel count.
void histeq_host_lut(std::span<const std::uint8_t> partials, std::span<std::uint8_t> lut, std::int64_t total) {
  PIMG_CHECK(lut.size() == 256 && partials.size() % 1024 == 0, "histeq host step: unexpected buffer sizes");
  std::uint32_t hist[256] = {};
  for (std::size_t i = 0; i < partials.size() / sizeof(std::uint32_t); ++i) {
    std::uint32_t v = 0;
    std::memcpy(&v, partials.data() + i * sizeof v, sizeof v);
    hist[i % 256] += v;
  }
  lut_from_hist(hist, total, lut.data());
}

std::vector<ParamDecl> pipeline_params(bool fused) {
  std::vector<ParamDecl> out = {
      int_range("hist_block", 256, "work-group size of the histogram kernel", 32, 1024),
      int_range("groups", 0, "groups of the histogram kernel; 0: 2 per compute unit", 0, 1 << 20),
      int_range("copies", 1, "local sub-histograms per histogram group (blocked layout, hist_block / 32: one per warp)", 1, 32),
      int_choice("vec", 16, "bytes per load of the histogram kernel: 4 or 16", {4, 16}),
      // The fused map kernel builds the LUT with 256 items.
      int_range("map_block", 256, "work-group size of the map kernel", fused ? 256 : 32, 1024),
      int_range("map_groups", 0, "groups of the map kernel; 0: one per map_block x map_vec x 8 pixels", 0, 1 << 20),
      int_choice("map_vec", 16, "bytes per load and store of the map kernel: 4 or 16", {4, 16}),
      hist::layout_param(),
      text_choice("map_order", {"forward", "reverse"}, "forward",
                       "order of the map kernel's grid stride: reverse starts from the image's end, which the "
                       "histogram kernel read last (L2 hits)"),
  };
  if (!fused)
    out.push_back(text_choice("cdf", {"device", "host"}, "device",
                                   "device: a one-group scan kernel; host: a host step between the kernels"));
  return out;
}

LaunchPlan pipeline_plan(const PlanContext& x, const pix::PortableTarget& gpu, bool fused) {
  const Problem& p = x.problem;
  const DeviceInfo& d = x.device;
  const int hist_block = x.int_knob("hist_block");
  const int copies = x.int_knob("copies");
  const int vec = x.int_knob("vec");
  const int map_block = x.int_knob("map_block");
  const int map_vec = x.int_knob("map_vec");
  if (copies > hist_block) throw PlanError("copies cannot exceed hist_block");
  hist::check_group(d, static_cast<std::size_t>(hist_block), static_cast<std::size_t>(copies) * 1024);
  hist::check_group(d, static_cast<std::size_t>(map_block), 256 * 5 + 8);
  const std::size_t groups = hist::groups_of(x, 2);
  const std::size_t n = static_cast<std::size_t>(p.width) * p.height;
  const int map_groups = x.int_knob("map_groups");
  const std::size_t mgroups =
      map_groups > 0 ? static_cast<std::size_t>(map_groups)
                     : std::max<std::size_t>(1, ceil_div(n, static_cast<std::size_t>(map_block) * map_vec * 8));
  const bool host_cdf = !fused && x.text_knob("cdf") == "host";
  const auto total = static_cast<std::int64_t>(n);

  LaunchPlan plan;
  plan.defines = {{"HIST_BLOCK", std::to_string(hist_block)}, {"COPIES", std::to_string(copies)},
                  {"VEC", std::to_string(vec)},               {"MERGE", fused ? "1" : "0"},
                  {"MAP_BLOCK", std::to_string(map_block)},   {"MAP_VEC", std::to_string(map_vec)},
                  {"LUT_IN_MAP", fused ? "1" : "0"},
                  {"INTERLEAVED", hist::interleaved_of(x)},
                  {"MAP_REVERSE", x.text_knob("map_order") == "reverse" ? "1" : "0"}};
  // The rule's division must be correctly rounded (histeq_rule.h).
  plan.options = gpu.exact_fp32_options;
  const std::string hist_buf = fused ? "hist" : "partials";
  plan.scratch.push_back({hist_buf, (fused ? 1 : groups) * 256 * sizeof(std::uint32_t)});
  if (!fused) plan.scratch.push_back({"lut", 256});

  LaunchStep hist_step;
  hist_step.entry = "histeq_hist";
  hist_step.dims = 1;
  hist_step.global = {groups * hist_block, 1, 1};
  hist_step.local = {static_cast<std::size_t>(hist_block), 1, 1};
  hist_step.args = {KernelArg::buf("in"), KernelArg::buf(hist_buf), KernelArg::integer(total)};

  LaunchStep map_step;
  map_step.entry = "histeq_map";
  map_step.dims = 1;
  map_step.global = {mgroups * map_block, 1, 1};
  map_step.local = {static_cast<std::size_t>(map_block), 1, 1};
  map_step.args = {KernelArg::buf("in"), KernelArg::buf(fused ? "hist" : "lut"), KernelArg::buf("out"),
                   KernelArg::integer(total), KernelArg::integer(total)};

  std::vector<LaunchStep> steps;
  if (fused) {
    LaunchStep clear;
    clear.entry = "histeq_clear";
    clear.dims = 1;
    clear.global = {256, 1, 1};
    clear.local = {256, 1, 1};
    clear.args = {KernelArg::buf("hist")};
    steps = {clear, hist_step, map_step};
  } else if (host_cdf) {
    LaunchStep host;
    host.host = [total](std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
      histeq_host_lut(in, out, total);
    };
    host.host_in = "partials";
    host.host_out = "lut";
    steps = {hist_step, host, map_step};
  } else {
    LaunchStep lut;
    lut.entry = "histeq_lut";
    lut.dims = 1;
    lut.global = {256, 1, 1};
    lut.local = {256, 1, 1};
    lut.args = {KernelArg::buf("partials"), KernelArg::buf("lut"), KernelArg::integer(static_cast<std::int64_t>(groups)),
                KernelArg::integer(total)};
    steps = {hist_step, lut, map_step};
  }
  const LaunchStep& first = steps.front();
  plan.entry = first.entry;
  plan.dims = first.dims;
  plan.global = first.global;
  plan.local = first.local;
  plan.args = first.args;
  plan.steps.assign(steps.begin() + 1, steps.end());
  return plan;
}

}  // namespace

std::unique_ptr<Variant> make_cub_npp();  // cub_npp.cpp

void register_gpu_variants(Registry& reg, const pix::PortableTargets& gpus) {
  for (const pix::PortableTarget& gpu : gpus) {
    for (const bool fused : {false, true})
      reg.add_variant(make_variant(
          {pix::gpu_name(gpu, fused ? "fused" : "separate"), "histeq", gpu.backend, "histeq/histeq" + gpu.extension,
           fused ? "clear, histogram with local sub-histograms merged by atomics, map kernel building the LUT per "
                   "group (2 kernels over the image, no LUT kernel)"
                 : "histogram to per-group partials, CDF + LUT on the device (one-group scan) or the host, map",
           pipeline_params(fused), [gpu, fused](const PlanContext& x) { return pipeline_plan(x, gpu, fused); }}));
  }
  reg.add_variant(make_cub_npp());
}

}  // namespace pimg::histeq
