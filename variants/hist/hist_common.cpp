// The hist variants' shared parameter helpers (hist_common.hpp) and the family's registration list:
// adding a variant is a file plus a line here.
#include "gpu_common.hpp"
#include "hist_common.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace pimg::hist {

int choice_index(const PlanContext& x, const std::string& name) {
  const std::string value = x.text_knob(name);
  for (const auto& d : x.params)
    if (d.name == name)
      return static_cast<int>(std::find(d.choices.begin(), d.choices.end(), value) - d.choices.begin());
  throw PlanError(fmt::format("no parameter '{}'", name));
}

double limit(const DeviceInfo& d, const std::string& name, double fallback) {
  auto it = d.limits.find(name);
  return it == d.limits.end() || it->second <= 0 ? fallback : it->second;
}

void check_group(const DeviceInfo& d, std::size_t threads, std::size_t local_bytes) {
  const double max_group = limit(d, "max_work_group_size", static_cast<double>(d.max_work_group_size));
  if (max_group > 0 && static_cast<double>(threads) > max_group)
    throw PlanError(fmt::format("a group of {} items exceeds max_work_group_size {}", threads, max_group));
  if (static_cast<double>(threads) > limit(d, "max_work_item_size_0", static_cast<double>(threads)))
    throw PlanError(fmt::format("a group of {} items exceeds max_work_item_size_0 {}", threads,
                                limit(d, "max_work_item_size_0", 0)));
  const double local = limit(d, "local_mem_size", static_cast<double>(d.local_mem_bytes));
  if (local > 0 && static_cast<double>(local_bytes) > local)
    throw PlanError(fmt::format("{} bytes of local memory exceed local_mem_size {}", local_bytes, local));
}

std::vector<ParamDecl> omp_parallel_params() {
  return {int_range("threads", 0,
                    "OpenMP threads (num_threads clause); 0 leaves the count to OpenMP (OMP_NUM_THREADS, else one per core)", 0, 1024),
          text_choice("schedule", {"static", "dynamic", "guided"}, "static", "OpenMP loop schedule kind"),
          int_range("chunk", 1, "schedule chunk size in tasks, at least 1", 1, 1 << 20)};
}

void add_omp_parallel_defines(LaunchPlan& plan, const PlanContext& x) {
  const int threads = x.int_knob("threads");
  const int chunk = x.int_knob("chunk");
  std::string schedule = x.text_knob("schedule");
  std::transform(schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char ch) { return std::toupper(ch); });
  plan.defines.emplace_back("THREADS", std::to_string(threads));
  plan.defines.emplace_back("SCHED", "PIMG_SCHED_" + schedule);
  plan.defines.emplace_back("CHUNK", std::to_string(chunk));
}

void register_serial(Registry& reg);
std::unique_ptr<Variant> make_omp_private();
void register_opencv(Registry& reg);
void register_opencl_variants(Registry& reg);
void register_cuda_variants(Registry& reg);

void register_hist(Registry& reg, const pix::PortableTargets& gpus) {
  reg.add_family(std::make_unique<HistFamily>());
  register_serial(reg);
  register_opencv(reg);
  reg.add_variant(make_omp_private());
  for (const pix::PortableTarget& gpu : gpus) {
    reg.add_variant(make_global(gpu));
    reg.add_variant(make_packed(gpu));
    reg.add_variant(make_outpart(gpu));
  }
  register_opencl_variants(reg);
  register_cuda_variants(reg);
}

}  // namespace pimg::hist
