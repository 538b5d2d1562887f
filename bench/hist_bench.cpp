// hist and histeq on the CPU: OpenMP configurations against OpenCV's calcHist and equalizeHist,
// measured in the same run at 2048^2 and 4096^2 (the CPU bar: the best OpenMP configuration at
// least as fast as OpenCV). Each case plans, compiles and uploads once through the registry's
// backends, then times device launches (manual time = the backend's kernel time); the output is
// validated against the family's reference after the timed loop.
#include <benchmark/benchmark.h>

#include "pimg/registry.hpp"

namespace {

using namespace pimg;

Device& device(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Device>> open;
  auto& d = open[backend];
  if (!d) {
    const Backend* b = Registry::builtin().backend(backend);
    d = b->open(b->devices().at(0));
  }
  return *d;
}

void run_case(benchmark::State& state, const std::string& family, const std::string& variant,
              std::initializer_list<std::pair<const char*, Value>> knobs, int channels) {
  const Registry& reg = Registry::builtin();
  const Variant* v = reg.variant(family, variant);
  if (!v) {
    state.SkipWithError((variant + " is not registered in this build").c_str());
    return;
  }
  const Family& f = *reg.family(family);
  const int size = static_cast<int>(state.range(0));
  const Problem p = f.make_problem(size, size, channels, {});
  const Workload w = f.make_workload(p);
  Config c;
  for (const auto& [k, value] : knobs) c.set(k, value);
  Device& dev = device(v->backend());
  const LaunchPlan plan = v->plan(p, w, c, dev.info());
  KernelSource builtin{v->source(), "", v->source()};
  const KernelSource* src = v->source().rfind("builtin:", 0) == 0 ? &builtin : kernel_source(v->source());
  CompileResult compiled = dev.compile(*src, plan);
  if (!compiled.program) {
    state.SkipWithError(compiled.log.c_str());
    return;
  }
  auto in = dev.alloc(w.input("in").bytes.size());
  dev.upload(*in, w.input("in").bytes);
  auto out = dev.alloc(w.output_bytes);
  const std::map<std::string, DeviceBuffer*> buffers{{"in", in.get()}, {"out", out.get()}};
  for (auto _ : state) {
    const LaunchResult r = dev.launch(*compiled.program, plan, buffers);
    if (!r.ok) {
      state.SkipWithError(r.error.c_str());
      return;
    }
    state.SetIterationTime(r.kernel_ms / 1e3);
  }
  std::vector<std::uint8_t> got(w.output_bytes);
  dev.download(*out, got);
  if (!f.compare(p, f.reference(p, w), got).ok) state.SkipWithError("output differs from the reference");
}

void BM_HistOpenmp(benchmark::State& s) {
  run_case(s, "hist", "omp_private", {{"merge", std::string("reduction")}, {"copies", std::int64_t{4}}}, 1);
}
void BM_HistOpencv(benchmark::State& s) { run_case(s, "hist", "opencv_calchist", {}, 1); }
void BM_Hist3Openmp(benchmark::State& s) {
  run_case(s, "hist", "omp_private", {{"merge", std::string("critical")}, {"copies", std::int64_t{4}}}, 3);
}
void BM_Hist3Opencv(benchmark::State& s) { run_case(s, "hist", "opencv_calchist", {}, 3); }
void BM_HisteqOpenmp(benchmark::State& s) {
  run_case(s, "histeq", "omp_histeq", {{"schedule", std::string("dynamic")}, {"chunk", std::int64_t{8}}}, 1);
}
void BM_HisteqOpencv(benchmark::State& s) { run_case(s, "histeq", "opencv_equalizehist", {}, 1); }

#define PIMG_HIST_BENCH(fn) BENCHMARK(fn)->UseManualTime()->Unit(benchmark::kMillisecond)->Arg(2048)->Arg(4096)
PIMG_HIST_BENCH(BM_HistOpenmp);
PIMG_HIST_BENCH(BM_HistOpencv);
PIMG_HIST_BENCH(BM_Hist3Openmp);
PIMG_HIST_BENCH(BM_Hist3Opencv);
PIMG_HIST_BENCH(BM_HisteqOpenmp);
PIMG_HIST_BENCH(BM_HisteqOpencv);

}  // namespace

BENCHMARK_MAIN();
