// Issue 18's measurements: a new observer added as one file (the class below and one add_observer line) reaching
// the store with no other change; perf counters of a real OpenMP evaluation (or the test saying why the kernel
// refuses them); the footprint, RAPL and energy-window observers; Nsight Compute's CSV; and end to end on the
// CPU backends: transfers, device memory, host peak, counters and whole-program runs stored, in the report,
// `best --json`, `best --objective` and the T4 export.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <thread>
#include <vector>

#include "e2e/e2e_util.hpp"
#include "observers.hpp"
#include "pimg/cold_run.hpp"
#include "pimg/registry.hpp"
#include "pimg/runner.hpp"
#include "pimg/space.hpp"
#include "pimg/store.hpp"

namespace {

// --- a new observer, as one file under tuner/observers/ would hold it ---------------------------------
// Counts the timed runs it saw and stores their number; applies to the host backend only.
class RunCounter final : public pimg::Observer {
 public:
  void begin() override { runs_ = 0; }
  void after_run(int seq, std::vector<pimg::Metric>& out) override {
    ++runs_;
    out.push_back({"test.run_seen", "count", seq, 1});
  }
  void end(std::vector<pimg::Metric>& out, std::vector<std::string>&) override {
    out.push_back({"test.timed_runs", "count", -1, static_cast<double>(runs_)});
  }

 private:
  int runs_ = 0;
};

pimg::ObserverInfo run_counter_observer() {
  return {"run_counter", "counts the timed runs of each evaluation",
          [](const pimg::DeviceInfo& d, std::string& why) -> std::unique_ptr<pimg::Observer> {
            if (d.backend != "host") {
              why = "run_counter observes the host backend only";
              return nullptr;
            }
            return std::make_unique<RunCounter>();
          }};
}
// --- end of the observer's file ----------------------------------------------------------------------

// An observer that asks for the back-to-back window (measure.energy_s) and stores what it was told of it, with
// the wall-clock time between its two calls.
class WindowWatcher final : public pimg::Observer {
 public:
  void begin() override { begun_ = 0; }  // a measurement taken again (loaded) starts afresh
  bool wants_window() const override { return true; }
  void window_begin() override {
    t0_ = std::chrono::steady_clock::now();
    ++begun_;
  }
  void window_end(std::int64_t runs, double device_ms) override {
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    runs_ = runs;
    device_ms_ = device_ms;
  }
  void end(std::vector<pimg::Metric>& out, std::vector<std::string>&) override {
    out.push_back({"test.windows", "count", -1, static_cast<double>(begun_)});
    if (begun_ == 0) return;
    out.push_back({"test.window_runs", "runs", -1, static_cast<double>(runs_)});
    out.push_back({"test.window_device_ms", "ms", -1, device_ms_});
    out.push_back({"test.window_s", "s", -1, seconds_});
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  int begun_ = 0;
  std::int64_t runs_ = 0;
  double device_ms_ = 0, seconds_ = 0;
};

class Quiet final : public pimg::RunObserver {};

pimg::DeviceInfo device(const std::string& backend) {
  pimg::DeviceInfo d;
  d.backend = backend;
  d.name = backend;
  d.caps.host_cores = backend != "cuda";  // as the backends set it
  return d;
}

const pimg::Metric* find_summary(const std::vector<pimg::Metric>& ms, const std::string& name) {
  auto it = std::find_if(ms.begin(), ms.end(), [&](const pimg::Metric& m) { return m.name == name && m.seq == -1; });
  return it == ms.end() ? nullptr : &*it;
}

std::vector<pimg::Metric> observe(pimg::Observer& o, int runs, const std::function<void()>& work) {
  std::vector<pimg::Metric> out;
  std::vector<std::string> flags;
  o.begin();
  for (int i = 0; i < runs; ++i) {
    o.before_run(i);
    work();
    o.after_run(i, out);
  }
  if (o.counts_region()) {
    o.region_begin();
    work();
    o.region_end();
  }
  o.end(out, flags);
  return out;
}

std::string write_space(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(Observers, ANewObserverIsOneFileAndOneRegistryLine) {
  const auto dir = e2e::temp_dir("new-observer");
  const std::string space_file = write_space(
      dir, "space.yaml",
      "family: conv\nproblems:\n  - filter: sharpen3\n    sizes: [64x48]\n    channels: 1\nbackends:\n  host: {}\n"
      "variants:\n  serial: {}\nmeasure: {warmups: 1, repeats: 4, max_repeats: 4, timeout_s: 30, confirm: {top: 0}}\n");
  std::unique_ptr<pimg::Registry> reg = pimg::Registry::make_builtin();
  reg->add_observer(run_counter_observer());  // the one registry line
  const pimg::Space space = pimg::load_space(space_file, *reg);
  pimg::TuneOptions opt;
  opt.isolation = false;  // this process's registry, with the observer, evaluates
  Quiet quiet;
  const std::string db = (dir / "t.db").string();
  {
    pimg::Store store(db);
    pimg::Tuner tuner(*reg, space, opt, quiet);
    EXPECT_EQ(tuner.run(store, quiet).ok, 1u);
  }
  EXPECT_EQ(e2e::query(db, "SELECT value FROM metrics WHERE name = 'test.timed_runs'"), std::vector<std::string>{"4.0"});
  EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM metrics WHERE name = 'test.run_seen'"), std::vector<std::string>{"4"});
  std::filesystem::remove_all(dir);
}

// The back-to-back window: with measure.energy_s, an observer that wants it sees at least that long of runs one
// after another (the runs counted, the device's time in them), the evaluation stays ok and its samples are the
// timed runs' only; without energy_s no window runs.
TEST(Observers, BackToBackWindowForObserversThatAskForIt) {
  const auto dir = e2e::temp_dir("window");
  std::unique_ptr<pimg::Registry> reg = pimg::Registry::make_builtin();
  reg->add_observer({"window_watcher", "records the back-to-back window",
                     [](const pimg::DeviceInfo& d, std::string& why) -> std::unique_ptr<pimg::Observer> {
                       if (d.backend != "host") {
                         why = "host only";
                         return nullptr;
                       }
                       return std::make_unique<WindowWatcher>();
                     }});
  for (const double seconds : {0.0, 0.3}) {
    const std::string space_file = write_space(
        dir, "space.yaml",
        "family: conv\nproblems:\n  - filter: sharpen3\n    sizes: [256x128]\n    channels: 1\nbackends:\n  host: {}\n"
        "variants:\n  serial: {}\nmeasure: {warmups: 1, repeats: 4, max_repeats: 4, timeout_s: 30, confirm: {top: 0}, "
        "energy_s: " + std::to_string(seconds) + "}\n");
    const pimg::Space space = pimg::load_space(space_file, *reg);
    EXPECT_DOUBLE_EQ(space.measure.energy_s, seconds);
    pimg::TuneOptions opt;
    opt.isolation = false;
    Quiet quiet;
    const std::string db = (dir / ("w" + std::to_string(seconds) + ".db")).string();
    {
      pimg::Store store(db);
      pimg::Tuner tuner(*reg, space, opt, quiet);
      EXPECT_EQ(tuner.run(store, quiet).ok, 1u);
    }
    auto metric = [&](const std::string& name) {
      const auto v = e2e::query(db, "SELECT value FROM metrics WHERE name = '" + name + "'");
      return v.empty() ? -1.0 : std::stod(v.at(0));
    };
    EXPECT_EQ(e2e::query(db, "SELECT count(*) FROM samples"), std::vector<std::string>{"4"});
    if (seconds == 0) {
      EXPECT_EQ(metric("test.windows"), 0);
      continue;
    }
    EXPECT_EQ(metric("test.windows"), 1);
    EXPECT_GE(metric("test.window_s"), seconds);
    EXPECT_GT(metric("test.window_runs"), 4);  // a serial 256x128 sharpen takes well under 0.3 s / 4
    EXPECT_GT(metric("test.window_device_ms"), 0);
    EXPECT_LE(metric("test.window_device_ms"), metric("test.window_s") * 1000 * 1.01);
  }
  std::filesystem::remove_all(dir);
}

TEST(Observers, EveryRegisteredObserverSaysWhetherItApplies) {
  const pimg::Registry& reg = pimg::Registry::builtin();
  ASSERT_GE(reg.observers().size(), 5u);
  pimg::DeviceInfo gpu = device("cuda");
  for (const pimg::ObserverInfo* o : reg.observers()) {
    EXPECT_FALSE(o->name.empty());
    EXPECT_FALSE(o->description.empty()) << o->name;
    for (const pimg::DeviceInfo& d : {device("host"), device("openmp"), gpu}) {
      std::string why;
      auto made = o->make(d, why);
      EXPECT_TRUE(made || !why.empty()) << o->name << " on " << d.backend << " neither applies nor says why";
    }
  }
}

TEST(PerfObserver, CountsTheCountedRegionOrSaysWhyNot) {
  std::string why;
  auto o = pimg::Registry::builtin().observer("perf")->make(device("openmp"), why);
  if (!o) GTEST_SKIP() << "perf_event_open is not permitted here: " << why;
  EXPECT_TRUE(o->counts_region());
  volatile double sink = 0;
  const auto m = observe(*o, 2, [&] {
    constexpr std::size_t kBytes = 8u << 20;  // fresh pages: a page fault each
    void* fresh = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(fresh, MAP_FAILED);
    for (std::size_t i = 0; i < kBytes; i += 4096) static_cast<volatile char*>(fresh)[i] = 1;
    ::munmap(fresh, kBytes);
    for (int i = 0; i < 2000000; ++i) sink = sink + i * 0.5;
  });
  ASSERT_NE(find_summary(m, "perf.task_clock_ms"), nullptr);
  EXPECT_GT(find_summary(m, "perf.task_clock_ms")->value, 0);
  ASSERT_NE(find_summary(m, "perf.page_faults"), nullptr);
  EXPECT_GT(find_summary(m, "perf.page_faults")->value, 100);  // 2048 pages touched in the counted run
  ASSERT_NE(find_summary(m, "perf.hardware"), nullptr);
  const std::string refused = pimg::perf_hardware_refusal();
  EXPECT_EQ(find_summary(m, "perf.hardware")->value, refused.empty() ? 1.0 : 0.0);
  if (!refused.empty()) {
    EXPECT_EQ(find_summary(m, "perf.instructions"), nullptr);
    GTEST_SKIP() << "software counters checked; hardware counters not permitted here: " << refused;
  }
  ASSERT_NE(find_summary(m, "perf.instructions"), nullptr);
  EXPECT_GT(find_summary(m, "perf.instructions")->value, 2e6);  // the loop alone, in the counted run only
  EXPECT_LT(find_summary(m, "perf.instructions")->value, 1e9);
  ASSERT_NE(find_summary(m, "perf.ipc"), nullptr);
  EXPECT_GT(find_summary(m, "perf.ipc")->value, 0);
}

TEST(FootprintObserver, PeakSeesMemoryHeldDuringTheEvaluation) {
  std::string why;
  auto o = pimg::Registry::builtin().observer("footprint")->make(device("host"), why);
  ASSERT_NE(o, nullptr) << why;
  constexpr std::size_t kBytes = 64u << 20;
  const auto m = observe(*o, 1, [&] {
    std::vector<char> big(kBytes);
    for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = 1;
  });
  ASSERT_NE(find_summary(m, "memory.host_peak_bytes"), nullptr);
  ASSERT_NE(find_summary(m, "memory.host_rss_begin_bytes"), nullptr);
  EXPECT_GE(find_summary(m, "memory.host_peak_bytes")->value, find_summary(m, "memory.host_rss_begin_bytes")->value + 0.9 * kBytes);
  ASSERT_NE(find_summary(m, "memory.host_peak_reset"), nullptr);
}

TEST(RaplObserver, EnergyWhereReadableElseSaysWhy) {
  std::string why;
  auto o = pimg::Registry::builtin().observer("rapl")->make(device("openmp"), why);
  const std::string refused = pimg::rapl_refusal();
  if (!o) {
    EXPECT_EQ(why, refused);
    EXPECT_FALSE(why.empty());
    GTEST_SKIP() << "RAPL is not readable here: " << why;
  }
  const auto m = observe(*o, 3, [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); });
  ASSERT_NE(find_summary(m, "energy.avg_w"), nullptr);
  EXPECT_GT(find_summary(m, "energy.timed_s")->value, 0.05);
  EXPECT_GE(find_summary(m, "energy.timed_j")->value, 0);
}

TEST(EnergyWindow, JoulesOverTheTimedRunsAndWraps) {
  pimg::EnergyWindow w;
  std::vector<pimg::Metric> none;
  w.put(none);
  EXPECT_TRUE(none.empty());  // never started
  w.start(100.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  w.sample(102.5);
  std::vector<pimg::Metric> out;
  w.put(out);
  ASSERT_NE(find_summary(out, "energy.timed_j"), nullptr);
  EXPECT_DOUBLE_EQ(find_summary(out, "energy.timed_j")->value, 2.5);
  EXPECT_NEAR(find_summary(out, "energy.avg_w")->value, 2.5 / find_summary(out, "energy.timed_s")->value, 1e-9);
  pimg::EnergyWindow wrapped;
  wrapped.start(250.0);
  wrapped.sample(10.0);  // the counter passed its range of 262.144 J
  std::vector<pimg::Metric> after;
  wrapped.put(after, 262.144);
  ASSERT_NE(find_summary(after, "energy.timed_j"), nullptr);
  EXPECT_NEAR(find_summary(after, "energy.timed_j")->value, 22.144, 1e-9);
  // A counter that never moved measured nothing: no 0 W row for the energy ranking to put first.
  pimg::EnergyWindow still;
  still.start(40.0);
  still.sample(40.0);
  std::vector<pimg::Metric> unresolved;
  still.put(unresolved);
  EXPECT_EQ(find_summary(unresolved, "energy.avg_w"), nullptr);
  EXPECT_EQ(find_summary(unresolved, "energy.timed_j"), nullptr);
  EXPECT_NE(find_summary(unresolved, "energy.unresolved_s"), nullptr);
  // Over a back-to-back window: its runs, one run's energy and the device's busy share besides.
  pimg::EnergyWindow runs;
  runs.start(10.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  runs.sample(14.0);
  runs.set_runs(200, 10.0);
  std::vector<pimg::Metric> per_run;
  runs.put(per_run);
  ASSERT_NE(find_summary(per_run, "energy.run_j"), nullptr);
  EXPECT_DOUBLE_EQ(find_summary(per_run, "energy.run_j")->value, 0.02);
  EXPECT_DOUBLE_EQ(find_summary(per_run, "energy.window_runs")->value, 200);
  EXPECT_NEAR(find_summary(per_run, "energy.busy_share")->value, 10.0 / (find_summary(per_run, "energy.timed_s")->value * 1000), 1e-12);
  EXPECT_EQ(find_summary(out, "energy.run_j"), nullptr);  // the timed runs' window has no count of its own
  // A window shorter than the counter resolves (NVML's: 1 s) stores no energy either.
  std::vector<pimg::Metric> short_window;
  w.put(short_window, 0, 1.0);
  EXPECT_EQ(find_summary(short_window, "energy.avg_w"), nullptr);
  EXPECT_NE(find_summary(short_window, "energy.unresolved_s"), nullptr);
}

TEST(ColdRun, ReadsNsightComputeCsv) {
  const std::string csv =
      "==PROF== Connected to process 123\n"
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\","
      "\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
      "\"0\",\"123\",\"pimg-tune\",\"h\",\"conv\",\"1\",\"7\",\"(32, 4, 1)\",\"(64, 256, 1)\",\"0\",\"9.0\",\"Command line "
      "profiler metrics\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\",\"%\",\"71.25\"\n"
      "\"0\",\"123\",\"pimg-tune\",\"h\",\"conv\",\"1\",\"7\",\"(32, 4, 1)\",\"(64, 256, 1)\",\"0\",\"9.0\",\"Command line "
      "profiler metrics\",\"gpu__time_duration.sum\",\"nsecond\",\"12,345\"\n"
      "\"0\",\"123\",\"pimg-tune\",\"h\",\"conv\",\"1\",\"7\",\"(32, 4, 1)\",\"(64, 256, 1)\",\"0\",\"9.0\",\"Command line "
      "profiler metrics\",\"launch__registers_per_thread\",\"register/thread\",\"32\"\n"
      "\"1\",\"123\",\"pimg-tune\",\"h\",\"pimg_check\",\"1\",\"7\",\"(256, 1, 1)\",\"(9, 1, 1)\",\"0\",\"9.0\",\"Command "
      "line profiler metrics\",\"launch__registers_per_thread\",\"register/thread\",\"30\"\n"
      "\"2\",\"123\",\"pimg-tune\",\"h\",\"hist\",\"1\",\"7\",\"(256, 1, 1)\",\"(528, 1, 1)\",\"0\",\"9.0\",\"Command line "
      "profiler metrics\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"%\",\"n/a\"\n"
      "\"2\",\"123\",\"pimg-tune\",\"h\",\"hist\",\"1\",\"7\",\"(256, 1, 1)\",\"(528, 1, 1)\",\"0\",\"9.0\",\"Command line "
      "profiler metrics\",\"sm__inst_issued.avg.pct_of_peak_sustained_active\",\"%\",\"40.5\"\n";
  const std::vector<pimg::Metric> m = pimg::parse_ncu_csv(csv);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].name, "ncu.dram_throughput_pct");
  EXPECT_EQ(m[0].seq, 0);
  EXPECT_DOUBLE_EQ(m[0].value, 71.25);
  EXPECT_EQ(m[1].name, "ncu.duration_ns");
  EXPECT_DOUBLE_EQ(m[1].value, 12345);
  EXPECT_EQ(m[2].name, "ncu.registers_per_thread");
  EXPECT_EQ(m[3].name, "ncu.issue_slots_busy_pct");
  EXPECT_EQ(m[3].seq, 1);
  EXPECT_TRUE(pimg::parse_ncu_csv("no profile\n").empty());
}

// The CPU check in small: OpenMP and the host backend tuned with the whole-program stage on.
TEST(Measurements, StoredReportedAndExportedOnTheCpu) {
  const auto dir = e2e::temp_dir("measurements");
  const std::string space = write_space(
      dir, "space.yaml",
      "family: conv\nproblems:\n  - filter: sharpen3\n    border: valid\n    sizes: [96x64, 192x128]\n    channels: 1\n"
      "backends:\n  openmp: {}\n  host: {}\nvariants:\n  omp_rows: {threads: [1, 2], schedule: static, chunk: 4, "
      "unroll: 1, arith: mul, simd: 1}\n  serial: {}\n"
      "measure: {warmups: 1, repeats: 3, max_repeats: 3, timeout_s: 30, cache: hot, confirm: {top: 0}, cold: {top: 1}}\n");
  const std::string db = (dir / "t.db").string();
  const e2e::Ran r = e2e::run("conv --quiet --space " + space + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  auto count = [&](const std::string& where) {
    return e2e::query(db, "SELECT count(*) FROM evaluations e WHERE " + where).at(0);
  };
  auto with_metric = [&](const std::string& stage, const std::string& name) {
    return count("e.stage = '" + stage + "' AND e.status = 'ok' AND EXISTS (SELECT 1 FROM metrics m WHERE "
                 "m.evaluation_id = e.id AND m.name = '" + name + "')");
  };
  // 2 problems x (2 omp_rows + 1 serial) search rows; one cold run per problem and device.
  EXPECT_EQ(count("e.stage = 'search' AND e.status = 'ok'"), "6");
  EXPECT_EQ(count("e.stage = 'cold'"), "4");
  for (const char* name : {"transfer.h2d_gbs", "transfer.d2h_gbs", "transfer.h2d_ms", "memory.device_bytes",
                           "memory.host_peak_bytes"})
    EXPECT_EQ(with_metric("search", name), "6") << name;
  for (const char* name : {"cold.total_ms", "cold.process_start_ms", "cold.device_open_ms", "cold.input_ms",
                           "cold.build_ms", "cold.alloc_ms", "cold.upload_ms", "cold.run_ms", "cold.download_ms",
                           "cold.release_ms", "cold.startup_share", "cold.footprint_program_bytes"})
    EXPECT_EQ(with_metric("cold", name), "4") << name;
  // The parts add up to the total, and the OpenMP build from source without caches is not free.
  const auto sums = e2e::query(
      db, "SELECT abs((SELECT sum(value) FROM metrics p WHERE p.evaluation_id = m.evaluation_id AND p.name LIKE "
          "'cold.%_ms' AND p.name != 'cold.total_ms') - m.value) < 1e-6 * m.value FROM metrics m WHERE m.name = "
          "'cold.total_ms'");
  EXPECT_EQ(sums, std::vector<std::string>(4, "1"));
  const auto build = e2e::query(db, "SELECT min(m.value) FROM metrics m JOIN evaluations e ON e.id = m.evaluation_id "
                                    "JOIN devices d ON d.id = e.device_id WHERE d.backend = 'openmp' AND "
                                    "m.name = 'cold.build_ms'");
  EXPECT_GT(std::stod(build.at(0)), 10.0) << "an OpenMP kernel compiled with the caches off";
  std::string why;
  if (pimg::Registry::builtin().observer("perf")->make(device("openmp"), why)) {
    EXPECT_EQ(with_metric("search", "perf.task_clock_ms"), "6");
    EXPECT_EQ(with_metric("search", "perf.page_faults"), "6");
    if (pimg::perf_hardware_refusal().empty()) EXPECT_EQ(with_metric("search", "perf.instructions"), "6");
  } else {
    std::cout << "[  NOTE    ] counters not stored: perf_event_open is not permitted here: " << why << "\n";
  }

  const std::string report = (dir / "r.md").string();
  ASSERT_EQ(e2e::run("report --db " + db + " --out " + report).code, 0);
  const std::string md = e2e::slurp(report);
  for (const char* section : {"## Whole program and start-up", "### Crossover with start-up included",
                              "## Transfers", "## Memory footprint", "## Counters", "## Energy",
                              "- [Whole program and start-up](#whole-program-and-start-up)"})
    EXPECT_NE(md.find(section), std::string::npos) << section;
  EXPECT_NE(md.find("fastest program"), std::string::npos);

  const e2e::Ran json = e2e::run("best conv --json --db " + db);
  ASSERT_EQ(json.code, 0) << json.out;
  EXPECT_NE(json.out.find("\"transfer.h2d_gbs\":"), std::string::npos);
  EXPECT_NE(json.out.find("\"cold\":[{\"variant\":"), std::string::npos);
  EXPECT_NE(json.out.find("\"cold.startup_share\":"), std::string::npos);
  const e2e::Ran e2e_time = e2e::run("best conv --objective end-to-end --db " + db);
  ASSERT_EQ(e2e_time.code, 0) << e2e_time.out;
  EXPECT_NE(e2e_time.out.find("end-to-end ms"), std::string::npos) << e2e_time.out;
  const e2e::Ran energy = e2e::run("best conv --objective energy --json --db " + db);
  ASSERT_EQ(energy.code, 0) << energy.out;
  EXPECT_NE(energy.out.find("\"objective\":\"energy\""), std::string::npos) << energy.out;
  const e2e::Ran t4 = e2e::run("export --family conv --format t4-all --db " + db);
  ASSERT_EQ(t4.code, 0);
  EXPECT_NE(t4.out.find("{\"name\":\"transfer.d2h_gbs\",\"value\":"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Measurements, ColdTopMustBeACount) {
  const auto dir = e2e::temp_dir("cold-bad");
  const std::string space = write_space(
      dir, "space.yaml",
      "family: conv\nproblems:\n  - filter: sharpen3\n    sizes: [64x48]\n    channels: 1\nbackends:\n  host: {}\n"
      "variants:\n  serial: {}\nmeasure: {cold: {top: -1}}\n");
  const std::string db = (dir / "t.db").string();
  const e2e::Ran r = e2e::run("conv --quiet --space " + space + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("measure.cold.top"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(db));
  std::filesystem::remove_all(dir);
}

// The cold program reads its request from standard input, or from the file PIMG_COLD_REQUEST names (how it
// is started under Nsight Compute); without a request it says so and exits 3.
TEST(Measurements, ColdProgramReadsItsRequestFromStdinOrTheNamedFile) {
  const auto dir = e2e::temp_dir("cold-request");
  const e2e::Ran none = e2e::run("cold </dev/null");
  EXPECT_EQ(none.code, 3) << none.out;
  EXPECT_NE(none.out.find("no request (0 bytes read)"), std::string::npos) << none.out;
  const std::string file = write_space(dir, "request", "not a request");
  const e2e::Ran named = e2e::run("cold </dev/null", "PIMG_COLD_REQUEST=" + file);
  EXPECT_EQ(named.code, 3) << named.out;
  EXPECT_NE(named.out.find("no request (13 bytes read)"), std::string::npos) << named.out;
  std::filesystem::remove_all(dir);
}

// Issue 18's NVML energy on a GPU: over a back-to-back second of a CUDA sharpen3 at 4096^2 the energy counter
// resolves the power, which must be that of a working GPU (above idle-ish 30 W, under 1.5x any NVIDIA board's
// limit), with the window's runs, one run's energy and a busy device stored; skipped without a CUDA device and NVML.
TEST(NvmlObserver, EnergyOverABackToBackSecondIsAWorkingGpusPower) {
  const pimg::Backend* cuda = pimg::Registry::builtin().backend("cuda");
  if (!cuda || cuda->devices().empty()) GTEST_SKIP() << "no CUDA device";
  std::string why;
  if (!pimg::Registry::builtin().observer("nvml")->make(cuda->devices()[0], why)) GTEST_SKIP() << why;
  const auto dir = e2e::temp_dir("nvml-energy");
  const std::string space = write_space(
      dir, "space.yaml",
      "family: conv\nproblems:\n  - {filter: sharpen3, channels: 1, border: valid, sizes: [4096]}\nbackends:\n  cuda: {}\n"
      "variants:\n  cuda_direct: {block_x: 128, block_y: 2, items_x: 1, items_y: 4, filter_mem: private, arith: mul}\n"
      "measure: {warmups: 1, repeats: 5, timeout_s: 10, confirm: {top: 0}, energy_s: 1}\n");
  const std::string db = (dir / "t.db").string();
  const e2e::Ran r = e2e::run("conv --quiet --space " + space + " --db " + db);
  ASSERT_EQ(r.code, 0) << r.out;
  auto metric = [&](const std::string& name) {
    const auto v = e2e::query(db, "SELECT m.value FROM metrics m JOIN evaluations e ON e.id = m.evaluation_id WHERE "
                                  "e.status = 'ok' AND m.name = '" + name + "'");
    return v.empty() ? -1.0 : std::stod(v.at(0));
  };
  const double watts = metric("energy.avg_w");
  EXPECT_GT(watts, 30) << r.out;
  EXPECT_LT(watts, 1500);
  EXPECT_GE(metric("energy.timed_s"), 1.0);
  EXPECT_GT(metric("energy.window_runs"), 100);
  EXPECT_GT(metric("energy.busy_share"), 0.5);
  EXPECT_NEAR(metric("energy.run_j"), metric("energy.timed_j") / metric("energy.window_runs"), 1e-9);
  EXPECT_EQ(metric("energy.unresolved_s"), -1);
  std::filesystem::remove_all(dir);
}
