// The report's sections on what the observers and the whole-program stage stored (docs/observers.md):
// whole-program time with its start-up parts and the crossover between devices once start-up counts (seed
// 000), the start-up share (seed 004), transfers (pinned against pageable judged end to end), memory
// footprint (seed 002's program and kernel parts), counters and energy with its time-versus-energy Pareto set.
#include "observations.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "pimg/cold_run.hpp"
#include "table.hpp"

namespace pimg::report_detail {
namespace {

using Align = Table::Align;

constexpr const char* kWholeProgram = "Whole program and start-up";
constexpr const char* kTransfers = "Transfers";
constexpr const char* kFootprint = "Memory footprint";
constexpr const char* kCounters = "Counters";
constexpr const char* kEnergy = "Energy";

bool has_prefix(const ResultRow& r, const std::string& prefix) {
  return std::any_of(r.result.metrics.begin(), r.result.metrics.end(),
                     [&](const Metric& m) { return m.name.rfind(prefix, 0) == 0; });
}

bool any_row(const std::vector<const ResultRow*>& rows, const std::string& prefix) {
  return std::any_of(rows.begin(), rows.end(), [&](const ResultRow* r) { return has_prefix(*r, prefix); });
}

std::string num_or_dash(const std::optional<double>& v, const char* format) {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(format), *v) : std::string(kDash);
}

std::string ms_or_dash(const std::optional<double>& v) { return v ? fmt_ms(*v) : std::string(kDash); }

std::string mib(const std::optional<double>& bytes) {
  return bytes ? fmt::format("{:.1f} MiB", *bytes / (1024.0 * 1024.0)) : std::string(kDash);
}

std::string host_mem(const ResultRow& r) {
  for (const auto& [k, v] : r.config.values())
    if (k == "host_mem") return to_string(v);
  return "";
}


using GroupKey = std::pair<Problem, DeviceKey>;
using Groups = std::map<GroupKey, std::vector<const ResultRow*>, bool (*)(const GroupKey&, const GroupKey&)>;

// The ok search rows of each (problem, device), fastest first.
Groups groups_of(const std::vector<const ResultRow*>& rows) {
  Groups out([](const GroupKey& a, const GroupKey& b) {
        if (problem_less(a.first, b.first)) return true;
        if (problem_less(b.first, a.first)) return false;
        return a.second < b.second;
      });
  for (const ResultRow* r : rows)
    if (r->result.status == Status::ok) out[{r->problem, device_key(r->device)}].push_back(r);
  for (auto& [key, list] : out)
    std::stable_sort(list.begin(), list.end(), [](const ResultRow* a, const ResultRow* b) { return rank_less(*a, *b); });
  return out;
}

class Sections {
 public:
  explicit Sections(const ObservationInput& in) : in_(in), groups_(groups_of(in.rows)) {
    for (const ResultRow& r : in.cold)
      if (r.problem.family == (in.rows.empty() ? r.problem.family : in.rows.front()->problem.family)) cold_.push_back(&r);
  }

  std::vector<std::string> headings() const {
    std::vector<std::string> out;
    bool observed = !cold_.empty();
    for (const char* prefix : {"transfer.", "memory.", "perf.", "energy."}) observed = observed || any_row(in_.rows, prefix);
    if (!observed) return out;
    if (!cold_.empty()) out.push_back(kWholeProgram);
    if (any_row(in_.rows, "transfer.")) out.push_back(kTransfers);
    if (any_row(in_.rows, "memory.") || !cold_.empty()) out.push_back(kFootprint);
    out.push_back(kCounters);
    out.push_back(kEnergy);
    return out;
  }

  std::string write() {
    for (const std::string& h : headings()) {
      if (h == kWholeProgram) whole_program();
      if (h == kTransfers) transfers();
      if (h == kFootprint) footprint();
      if (h == kCounters) counters();
      if (h == kEnergy) energy();
    }
    return md_;
  }

 private:
  std::size_t top(std::size_t n) const { return in_.top > 0 ? std::min<std::size_t>(n, in_.top) : n; }
  std::string where(const Problem& p, const DeviceInfo& d) const {
    return fmt::format("{} on {}", in_.labels.brief(p), in_.device_name(d));
  }

  void whole_program() {
    md_ += fmt::format("## {}\n\n", kWholeProgram);
    md_ += "The top configurations of each problem and device, each run once as a standalone program would run "
           "it: a fresh process, the device opened, the kernel built from source with every compile cache off, "
           "the input made, buffers allocated, the input uploaded, one run, the output downloaded and everything "
           "released, each part timed (ms). Start-up is everything but the run (seed 004's split). The program's "
           "footprint is its data and stack (`ps -o size`) after the release, the kernel's what it held more while "
           "it ran (seed 002).\n\n";
    std::vector<Table::Column> cols{{"problem"}, {"device"}, {"variant"}, {"configuration"}};
    for (const char* part : kColdParts) cols.push_back({part, Align::right});
    for (const char* c : {"total", "start-up", "program", "kernel"}) cols.push_back({c, Align::right});
    Table t(cols);
    std::vector<const ResultRow*> sorted = cold_;
    std::stable_sort(sorted.begin(), sorted.end(), [](const ResultRow* a, const ResultRow* b) {
      if (problem_less(a->problem, b->problem)) return true;
      if (problem_less(b->problem, a->problem)) return false;
      if (device_key(a->device) != device_key(b->device)) return device_key(a->device) < device_key(b->device);
      return metric_value(*a, "cold.total_ms").value_or(INFINITY) < metric_value(*b, "cold.total_ms").value_or(INFINITY);
    });
    for (const ResultRow* r : sorted) {
      std::vector<std::string> cells{in_.labels.brief(r->problem), in_.device_name(r->device), r->variant.name,
                                     brief_or_dash(r->config)};
      if (r->result.status != Status::ok) {
        for (std::size_t i = 0; i < std::size(kColdParts) + 4; ++i) cells.push_back(i ? "" : to_string(r->result.status));
        t.add(std::move(cells));
        continue;
      }
      for (const char* part : kColdParts) cells.push_back(ms_or_dash(metric_value(*r, fmt::format("cold.{}_ms", part))));
      cells.push_back(ms_or_dash(metric_value(*r, "cold.total_ms")));
      const auto share = metric_value(*r, "cold.startup_share");
      cells.push_back(share ? fmt::format("{:.0f}%", *share * 100) : std::string(kDash));
      cells.push_back(mib(metric_value(*r, "cold.footprint_program_bytes")));
      cells.push_back(mib(metric_value(*r, "cold.footprint_kernel_bytes")));
      t.add(std::move(cells));
    }
    md_ += t.markdown() + "\n";
    crossover();
  }

  // Per size of each sweep: the fastest device by kernel time and as a whole program; where a GPU stops
  // (or starts) paying off against the best CPU configuration once start-up counts (seed 000).
  void crossover() {
    std::map<std::string, std::map<std::pair<long, Problem>, std::map<DeviceKey, double>, bool (*)(const std::pair<long, Problem>&, const std::pair<long, Problem>&)>> sweeps;
    auto less = [](const std::pair<long, Problem>& a, const std::pair<long, Problem>& b) {
      if (a.first != b.first) return a.first < b.first;
      return problem_less(a.second, b.second);
    };
    std::map<DeviceKey, DeviceInfo> devices;
    for (const ResultRow* r : cold_) {
      const auto total = metric_value(*r, "cold.total_ms");
      if (r->result.status != Status::ok || !total) continue;
      std::string group = fmt::format("c{}", r->problem.channels);
      for (const auto& [k, v] : r->problem.attrs) group += fmt::format(" {}={}", k, v);
      auto [it, added] = sweeps.try_emplace(group, less);
      const long pixels = static_cast<long>(r->problem.width) * r->problem.height;
      double& best = it->second[{pixels, r->problem}].try_emplace(device_key(r->device), INFINITY).first->second;
      best = std::min(best, *total);
      devices.emplace(device_key(r->device), r->device);
    }
    if (devices.size() < 2) {
      md_ += "The crossover between devices needs whole-program runs on two devices or more.\n\n";
      return;
    }
    md_ += "### Crossover with start-up included\n\n";
    md_ += "Per size, the fastest device by its winner's kernel time and by the best whole-program time of its "
           "top configurations (ms).\n\n";
    std::vector<std::string> gpu_lines;
    for (const auto& [group, sizes] : sweeps) {
      std::vector<Table::Column> cols{{"size"}};
      for (const auto& [dk, info] : devices) cols.push_back({in_.device_name(info) + " program", Align::right});
      cols.push_back({"fastest kernel"});
      cols.push_back({"fastest program"});
      Table t(cols);
      std::optional<std::string> gpu_from, gpu_until;
      for (const auto& [key, per_device] : sizes) {
        const Problem& p = key.second;
        std::vector<std::string> cells{in_.labels.brief(p)};
        std::optional<std::pair<double, DeviceKey>> best_program, best_kernel, best_cpu, best_gpu;
        for (const auto& [dk, info] : devices) {
          auto it = per_device.find(dk);
          cells.push_back(it == per_device.end() ? std::string(kDash) : fmt_ms(it->second));
          if (it == per_device.end()) continue;
          if (!best_program || it->second < best_program->first) best_program = {it->second, dk};
          if (!info.caps.known) continue;  // a device from a store before schema 9: neither side
          auto& side = info.caps.host_cores ? best_cpu : best_gpu;
          if (!side || it->second < side->first) side = {it->second, dk};
        }
        for (const Ranking& k : in_.rankings)
          if (k.problem == p && k.winner && (!best_kernel || k.winner->result.kernel.median < best_kernel->first))
            best_kernel = {k.winner->result.kernel.median, device_key(k.device)};
        cells.push_back(best_kernel ? in_.device_name(devices.count(best_kernel->second) ? devices.at(best_kernel->second)
                                                                                        : DeviceInfo{})
                                    : std::string(kDash));
        cells.push_back(best_program ? in_.device_name(devices.at(best_program->second)) : std::string(kDash));
        t.add(std::move(cells));
        if (best_cpu && best_gpu) {
          if (best_gpu->first < best_cpu->first && !gpu_from) gpu_from = p.size();
          if (best_gpu->first >= best_cpu->first) gpu_until = p.size(), gpu_from.reset();
        }
      }
      md_ += fmt::format("{}:\n\n{}\n", md_escape(group), t.markdown());
      if (gpu_from)
        gpu_lines.push_back(fmt::format("{}: a GPU beats the best CPU configuration as a program from {} up{}", group,
                                        *gpu_from, gpu_until ? fmt::format(" (not at {} and below)", *gpu_until) : ""));
      else if (gpu_until)
        gpu_lines.push_back(fmt::format("{}: the best CPU configuration beats every GPU as a program at every size "
                                        "measured, up to {}", group, *gpu_until));
    }
    if (gpu_lines.empty())
      md_ += "No GPU and CPU device both have whole-program runs of one problem: the GPU crossover (seed 000: "
             "OpenCL loses below about 4096 pixels wide to its start-up) needs both.\n\n";
    for (const std::string& line : gpu_lines) md_ += "- " + md_escape(line) + "\n";
    if (!gpu_lines.empty()) md_ += "\n";
  }

  void transfers() {
    md_ += fmt::format("## {}\n\n", kTransfers);
    md_ += "Upload of the inputs and download of the output of each configuration, allocation excluded: the upload "
           "is the median of its repeats, the download the median over the runs (GB/s of the bytes moved). "
           "End-to-end is the median kernel time plus both medians: what a configuration that chooses its host "
           "memory (`host_mem`) is judged by, since the kernel time cannot see it.\n\n";
    Table t({{"problem"}, {"device"}, {"winner"}, {"upload MB", Align::right}, {"upload GB/s", Align::right},
             {"download MB", Align::right}, {"download GB/s", Align::right}, {"kernel ms", Align::right},
             {"end-to-end ms", Align::right}});
    Table mem({{"problem"}, {"device"}, {"host_mem"}, {"best by end-to-end"}, {"upload GB/s", Align::right},
               {"download GB/s", Align::right}, {"kernel ms", Align::right}, {"end-to-end ms", Align::right}});
    for (const auto& [key, list] : groups_) {
      const ResultRow& w = *list.front();
      auto mb = [&](const char* name) {
        const auto b = metric_value(w, name);
        return b ? fmt::format("{:.2f}", *b / 1e6) : std::string(kDash);
      };
      t.add({in_.labels.brief(key.first), in_.device_name(w.device), w.variant.name + " " + brief_or_dash(w.config),
             mb("transfer.h2d_bytes"), num_or_dash(metric_value(w, "transfer.h2d_gbs"), "{:.2f}"),
             mb("transfer.d2h_bytes"), num_or_dash(metric_value(w, "transfer.d2h_gbs"), "{:.2f}"),
             fmt_ms(w.result.kernel.median), ms_or_dash(objective_value(w, Objective::end_to_end))});
      std::map<std::string, const ResultRow*> by_mem;  // the best of each host_mem value, end to end
      for (const ResultRow* r : list) {
        const std::string hm = host_mem(*r);
        const auto e2e = objective_value(*r, Objective::end_to_end);
        if (hm.empty() || !e2e) continue;
        const ResultRow*& b = by_mem[hm];
        if (!b || *e2e < *objective_value(*b, Objective::end_to_end)) b = r;
      }
      for (const auto& [hm, r] : by_mem)
        mem.add({in_.labels.brief(key.first), in_.device_name(r->device), hm,
                 r->variant.name + " " + brief_or_dash(r->config),
                 num_or_dash(metric_value(*r, "transfer.h2d_gbs"), "{:.2f}"),
                 num_or_dash(metric_value(*r, "transfer.d2h_gbs"), "{:.2f}"), fmt_ms(r->result.kernel.median),
                 ms_or_dash(objective_value(*r, Objective::end_to_end))});
    }
    md_ += t.markdown() + "\n";
    if (mem.empty()) {
      md_ += "No variant here chooses its host memory (`host_mem: [pageable, pinned]`, the CUDA variants).\n\n";
    } else {
      md_ += "### Pinned against pageable host memory\n\n" + mem.markdown() + "\n";
    }
  }

  void footprint() {
    md_ += fmt::format("## {}\n\n", kFootprint);
    md_ += "Device memory the executor allocated for each winner (inputs, output and scratch, each output and "
           "scratch buffer with its 256-byte canary) and the peak resident memory of the process that evaluated it "
           "(VmHWM, reset at the evaluation's start where the kernel allows; \"lifetime\" where it does not). The "
           "whole-program runs above give seed 002's program and kernel footprints.\n\n";
    Table t({{"problem"}, {"device"}, {"winner"}, {"inputs", Align::right}, {"output", Align::right},
             {"scratch", Align::right}, {"device total", Align::right}, {"host peak", Align::right}});
    for (const auto& [key, list] : groups_) {
      const ResultRow& w = *list.front();
      const auto reset = metric_value(w, "memory.host_peak_reset");
      std::string peak = mib(metric_value(w, "memory.host_peak_bytes"));
      if (reset && *reset == 0 && peak != kDash) peak += " (lifetime)";
      t.add({in_.labels.brief(key.first), in_.device_name(w.device), w.variant.name + " " + brief_or_dash(w.config),
             mib(metric_value(w, "memory.device_input_bytes")), mib(metric_value(w, "memory.device_output_bytes")),
             mib(metric_value(w, "memory.device_scratch_bytes")), mib(metric_value(w, "memory.device_bytes")), peak});
    }
    md_ += t.markdown() + "\n";
  }

  void counters() {
    md_ += fmt::format("## {}\n\n", kCounters);
    const bool perf = any_row(in_.rows, "perf.");
    const bool ncu = std::any_of(cold_.begin(), cold_.end(), [](const ResultRow* r) { return has_prefix(*r, "ncu."); });
    if (!perf && !ncu) {
      md_ += "No counters were stored: perf_event_open refused even software counters where these rows were "
             "measured, or no CPU backend ran; CUDA counters come from the Nsight Compute pass (PIMG_NCU=1).\n\n";
      return;
    }
    if (perf) {
      md_ += "Linux perf_event_open over the launches of one untimed run after the timed runs, every thread of the "
             "evaluating process counted (seed 004's list). Miss rates are misses over references and branches.\n\n";
      Table t({{"problem"}, {"device"}, {"configuration"}, {"median ms", Align::right}, {"IPC", Align::right},
               {"instructions", Align::right}, {"cycles", Align::right}, {"cache miss", Align::right},
               {"branch miss", Align::right}, {"page faults", Align::right}, {"migrations", Align::right}});
      std::set<std::string> refused;
      for (const auto& [key, list] : groups_) {
        for (std::size_t i = 0; i < top(list.size()) && i < 3; ++i) {
          const ResultRow& r = *list[i];
          if (!has_prefix(r, "perf.")) continue;
          if (metric_value(r, "perf.hardware").value_or(1) == 0) refused.insert(in_.device_name(r.device));
          auto ratio = [&](const char* a, const char* b) -> std::string {
            const auto x = metric_value(r, a), y = metric_value(r, b);
            return x && y && *y > 0 ? fmt::format("{:.2f}%", 100 * *x / *y) : std::string(kDash);
          };
          auto count = [&](const char* n) { return num_or_dash(metric_value(r, n), "{:.3g}"); };
          t.add({in_.labels.brief(key.first), in_.device_name(r.device),
                 r.variant.name + " " + brief_or_dash(r.config), fmt_ms(r.result.kernel.median),
                 num_or_dash(metric_value(r, "perf.ipc"), "{:.2f}"), count("perf.instructions"), count("perf.cycles"),
                 ratio("perf.cache_misses", "perf.cache_references"), ratio("perf.branch_misses", "perf.branches"),
                 count("perf.page_faults"), count("perf.cpu_migrations")});
        }
      }
      md_ += t.markdown() + "\n";
      for (const std::string& d : refused)
        md_ += fmt::format("Hardware counters were not permitted on {} (perf_event_paranoid, a container or a VM "
                           "without a PMU): its rows have the software counters only.\n\n",
                           md_escape(d));
    }
    if (ncu) {
      md_ += "Nsight Compute over the whole-program runs (per kernel launch; `ncu --csv`).\n\n";
      Table t({{"problem"}, {"device"}, {"configuration"}, {"launch", Align::right}, {"DRAM %", Align::right},
               {"occupancy %", Align::right}, {"issue slots %", Align::right}, {"registers", Align::right},
               {"duration us", Align::right}});
      for (const ResultRow* r : cold_) {
        std::map<int, std::map<std::string, double>> launches;
        for (const Metric& m : r->result.metrics)
          if (m.name.rfind("ncu.", 0) == 0 && m.seq >= 0) launches[m.seq][m.name] = m.value;
        for (const auto& [seq, values] : launches) {
          const std::map<std::string, double>& v = values;  // clang 14 captures no structured binding
          auto get = [&](const char* n) -> std::optional<double> {
            auto it = v.find(n);
            return it == v.end() ? std::nullopt : std::optional<double>(it->second);
          };
          const auto ns = get("ncu.duration_ns");
          t.add({in_.labels.brief(r->problem), in_.device_name(r->device), r->variant.name + " " + brief_or_dash(r->config),
                 std::to_string(seq), num_or_dash(get("ncu.dram_throughput_pct"), "{:.1f}"),
                 num_or_dash(get("ncu.achieved_occupancy_pct"), "{:.1f}"),
                 num_or_dash(get("ncu.issue_slots_busy_pct"), "{:.1f}"),
                 num_or_dash(get("ncu.registers_per_thread"), "{:.0f}"),
                 ns ? fmt::format("{:.1f}", *ns / 1e3) : std::string(kDash)});
        }
      }
      md_ += t.markdown() + "\n";
    }
  }

  void energy() {
    md_ += fmt::format("## {}\n\n", kEnergy);
    if (!any_row(in_.rows, "energy.")) {
      md_ += "No energy was stored: no RAPL counter was readable (/sys/class/powercap/intel-rapl:*/energy_uj: absent "
             "in virtual machines and containers, root only since Linux 5.10) and no NVML device was measured.\n\n";
      return;
    }
    md_ += "Energy of one run: the average power (RAPL on CPUs, NVML on NVIDIA GPUs) times the median time. The "
           "power is that of the back-to-back window where the space asked for one (`measure.energy_s`: the "
           "configuration run one run after another for that long; NVML's counter resolves no shorter window), "
           "else of the timed runs, from the first run's start to the last one's end. The table keeps each problem "
           "and device's Pareto set of time against energy: no configuration is both faster and cheaper than one "
           "listed (`best --objective energy` ranks by energy alone).\n\n";
    Table t({{"problem"}, {"device"}, {"configuration"}, {"median ms", Align::right}, {"average W", Align::right},
             {"mJ per run", Align::right}});
    for (const auto& [key, list] : groups_) {
      std::vector<const ResultRow*> front;
      for (const ResultRow* r : list) {  // fastest first: a row joins when it uses less energy than all before
        const auto e = objective_value(*r, Objective::energy);
        if (!e) continue;
        if (front.empty() || *e < *objective_value(*front.back(), Objective::energy)) front.push_back(r);
      }
      for (const ResultRow* r : front)
        t.add({in_.labels.brief(key.first), in_.device_name(r->device), r->variant.name + " " + brief_or_dash(r->config),
               fmt_ms(r->result.kernel.median), num_or_dash(metric_value(*r, "energy.avg_w"), "{:.1f}"),
               num_or_dash(*objective_value(*r, Objective::energy) * 1e3, "{:.4g}")});
    }
    md_ += t.markdown() + "\n";
  }

  const ObservationInput& in_;
  Groups groups_;
  std::vector<const ResultRow*> cold_;
  std::string md_;
};

}  // namespace

std::optional<double> metric_value(const ResultRow& r, const std::string& name) {
  for (const Metric& m : r.result.metrics)
    if (m.seq == -1 && m.name == name) return m.value;
  return std::nullopt;
}

Objective objective_from_string(const std::string& s) {
  if (s == "time") return Objective::time;
  if (s == "end-to-end") return Objective::end_to_end;
  if (s == "energy") return Objective::energy;
  if (s == "writer") return Objective::writer;
  throw std::invalid_argument("objective '" + s + "' is not time, end-to-end, energy or writer");
}

const char* objective_unit(Objective o) {
  switch (o) {
    case Objective::time: return "median ms";
    case Objective::end_to_end: return "end-to-end ms";
    case Objective::energy: return "J per run";
    case Objective::writer: return "writer's time ms";
  }
  return "";
}

std::optional<double> objective_value(const ResultRow& r, Objective o) {
  if (r.result.status != Status::ok) return std::nullopt;
  const double median = r.result.kernel.median;
  switch (o) {
    case Objective::time: return median;
    case Objective::end_to_end: {
      const auto up = metric_value(r, "transfer.h2d_ms"), down = metric_value(r, "transfer.d2h_ms");
      if (!up || !down) return std::nullopt;
      return median + *up + *down;
    }
    case Objective::energy: {
      const auto w = metric_value(r, "energy.avg_w");
      if (!w) return std::nullopt;
      return *w * median / 1000.0;
    }
    case Objective::writer: return writer_objective_ms(r.result).value_or(median);
  }
  return std::nullopt;
}

std::vector<std::string> observation_headings(const ObservationInput& in) { return Sections(in).headings(); }
std::string observation_sections(const ObservationInput& in) { return Sections(in).write(); }

}  // namespace pimg::report_detail
