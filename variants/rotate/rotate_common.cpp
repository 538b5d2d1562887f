// The rotate variants' shared helpers (rotate_common.hpp): defines, work-item geometry and the
// OpenMP plan.
#include "rotate_common.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace pimg::rotate {
namespace {

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

}  // namespace

std::vector<ParamDecl> grid_params() {
  const GridKnobs def;
  return {int_range("block_x", def.block_x, "work-group (thread block) width", 1, 1024),
          int_range("block_y", def.block_y, "work-group (thread block) height", 1, 1024),
          int_range("items_x", def.items_x, "output pixels per work item along x (1..64)", 1, 64),
          int_range("items_y", def.items_y, "output pixels per work item along y (1..64)", 1, 64),
          int_choice("spread", def.spread,
                    "0: a work item's pixels are neighbours; 1: they lie block_x (block_y) apart, so neighbouring "
                    "items write neighbouring pixels", {0, 1})};
}

GridKnobs read_grid(const PlanContext& x, double max_group) {
  GridKnobs k;
  k.block_x = x.int_knob("block_x");
  k.block_y = x.int_knob("block_y");
  k.items_x = x.int_knob("items_x");
  k.items_y = x.int_knob("items_y");
  k.spread = x.int_knob("spread");
  const double items = static_cast<double>(k.block_x) * k.block_y;
  if (max_group > 0 && items > max_group)
    throw PlanError(fmt::format("block {}x{} = {} items exceeds the device's {}", k.block_x, k.block_y, items, max_group));
  if (k.block_x > x.limit("max_work_item_size_0", k.block_x) || k.block_y > x.limit("max_work_item_size_1", k.block_y))
    throw PlanError(fmt::format("block {}x{} exceeds the device's dimensions {}x{}", k.block_x, k.block_y,
                                x.limit("max_work_item_size_0", 0), x.limit("max_work_item_size_1", 0)));
  return k;
}

void add_grid_defines(LaunchPlan& plan, const Workload& w, const GridKnobs& k) {
  for (const auto& [name, value] : w.defines) plan.defines.emplace_back(name, value);
  plan.defines.emplace_back("BLOCK_X", std::to_string(k.block_x));
  plan.defines.emplace_back("BLOCK_Y", std::to_string(k.block_y));
  plan.defines.emplace_back("ITEMS_X", std::to_string(k.items_x));
  plan.defines.emplace_back("ITEMS_Y", std::to_string(k.items_y));
  plan.defines.emplace_back("SPREAD", std::to_string(k.spread));
}

void set_grid(LaunchPlan& plan, const RotateSpec& s, const GridKnobs& k) {
  const auto bx = static_cast<std::size_t>(k.block_x), by = static_cast<std::size_t>(k.block_y);
  plan.dims = 2;
  plan.global = {round_up((static_cast<std::size_t>(s.width) + k.items_x - 1) / k.items_x, bx),
                 round_up((static_cast<std::size_t>(s.height) + k.items_y - 1) / k.items_y, by), 1};
  plan.local = {bx, by, 1};
  plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(s.width), KernelArg::integer(s.height)};
}

KernelArg image_arg(const RotateSpec& s, const PlanContext& x, const std::string& support) {
  if (!support.empty() && x.limit(support, 0) == 0) throw PlanError("the device has no image support");
  const int texels_x = s.planar ? s.width : s.width * s.channels;
  const int texels_y = s.planar ? s.height * s.channels : s.height;
  const double max_w = x.limit("image2d_max_width", 0), max_h = x.limit("image2d_max_height", 0);
  if (texels_x > max_w || texels_y > max_h)
    throw PlanError(fmt::format("input of {}x{} texels exceeds the device's 2-D image limit {}x{}", texels_x, texels_y,
                                max_w, max_h));
  return KernelArg::image("in", texels_x, texels_y);
}

std::vector<ParamDecl> omp_params() {
  return {
      int_range("threads", 0,
                "OpenMP threads (num_threads clause); 0 leaves the count to OpenMP (OMP_NUM_THREADS, else one per core)", 0, 1024),
      text_choice("schedule", {"static", "dynamic", "guided"}, "static", "OpenMP loop schedule kind"),
      int_range("chunk", 1, "schedule chunk size in tasks (rows or tiles), at least 1", 1, 1 << 20),
      int_choice("simd", 1,
                "1: each run split into the pixels whose reads lie inside the image (found by integer division, "
                "no checks, '#pragma omp simd') and checked ones; 0: every pixel checked; 2: as 1, the unchecked "
                "pixels 8 at a time with AVX2 (32-bit gathers, one per tap and plane; as 1 for nearest on 1-byte "
                "planes and where the compiler does not target AVX2)", {0, 1, 2}),
  };
}

LaunchPlan omp_plan(const PlanContext& x, int decomp) {
  const Workload& w = x.workload;
  const int threads = x.int_knob("threads");
  const int chunk = x.int_knob("chunk");
  const int simd = x.int_knob("simd");
  std::string schedule = x.text_knob("schedule");
  std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });
  LaunchPlan plan;
  plan.entry = "rotate_omp";
  for (const auto& [name, value] : w.defines) plan.defines.emplace_back(name, value);
  plan.defines.emplace_back("DECOMP", std::to_string(decomp));
  plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
  plan.defines.emplace_back("CHUNK", std::to_string(chunk));
  plan.defines.emplace_back("THREADS", std::to_string(threads));
  plan.defines.emplace_back("SIMD", std::to_string(simd));
  const std::int64_t width = w.scalars.at("width"), height = w.scalars.at("height");
  plan.dims = 2;
  plan.global = {static_cast<std::size_t>(width), static_cast<std::size_t>(height), 1};
  plan.args = {KernelArg::buf("in"), KernelArg::buf("out"), KernelArg::integer(width), KernelArg::integer(height)};
  return plan;
}

}  // namespace pimg::rotate
