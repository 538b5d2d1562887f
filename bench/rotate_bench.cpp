// rotate on the 2-core CPU: OpenMP configurations against OpenCV's cv::warpAffine (and the serial
// reference), measured in the same run through pimg::evaluate (poisoned, validated runs; kernel time on
// the host clock), for nearest on one channel at 2048^2 and bilinear on three interleaved channels at
// 1024^2, 30 degrees. Manual time = the evaluation's median kernel time; counter MPix/s.
#include <memory>
#include <string>
#include <vector>

#include "bench_case.hpp"
#include "pimg/evaluator.hpp"

using namespace pimg;

namespace {

using pimg::bench::device;

// Evaluations per case (each the median of 7 timed runs); 3 in the first run of 2026-11-23 was noisy.
constexpr int kIterations = 10;

struct Case {
  std::string variant;
  Config config;
};

void run_case(benchmark::State& state, const Problem& p, const Case& c) {
  const Registry& reg = Registry::builtin();
  const Family& family = *reg.family("rotate");
  const Variant* v = reg.variant("rotate", c.variant);
  const Workload w = family.make_workload(p);
  const std::vector<std::uint8_t> expected = family.reference(p, w, v->validation_rule());
  EvalContext ctx{family, p, w, expected, device(v->backend()), MeasureSpec::fixed(2, 7, 60)};
  for (auto _ : state) {
    const EvalResult r = evaluate(ctx, *v, c.config);
    if (r.status != Status::ok) {
      state.SkipWithError((std::string(to_string(r.status)) + ": " + r.log).c_str());
      return;
    }
    state.SetIterationTime(r.kernel.median / 1e3);
  }
  state.counters["MPix/s"] = benchmark::Counter(family.work(p) / 1e6, benchmark::Counter::kIsIterationInvariantRate);
}

Config config(std::initializer_list<std::pair<const char*, Value>> values) {
  Config c;
  for (const auto& [name, value] : values) c.set(name, value);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const Family& family = *Registry::builtin().family("rotate");
  const std::vector<Problem> problems = {
      family.make_problem(2048, 2048, 1, {{"angle", "30"}, {"interp", "nearest"}}),
      family.make_problem(1024, 1024, 3, {{"angle", "30"}, {"interp", "bilinear"}, {"layout", "interleaved"}})};
  std::vector<Case> cases = {
      {"omp_rows", config({{"threads", 2}, {"schedule", "static"}, {"chunk", 1}})},
      {"omp_rows", config({{"threads", 2}, {"schedule", "dynamic"}, {"chunk", 8}})},
      {"omp_tiles", config({{"tile_x", 128}, {"tile_y", 8}, {"threads", 2}, {"schedule", "static"}, {"chunk", 1}})},
      {"omp_tiles", config({{"tile_x", 512}, {"tile_y", 32}, {"threads", 2}, {"schedule", "dynamic"}, {"chunk", 1}})},
      // simd=2: the unchecked interior in 8-pixel AVX2 steps (32-bit gathers)
      {"omp_rows", config({{"threads", 2}, {"schedule", "dynamic"}, {"chunk", 8}, {"simd", 2}})},
      {"omp_rows", config({{"threads", 2}, {"schedule", "dynamic"}, {"chunk", 1}, {"simd", 2}})},
      {"omp_tiles", config({{"tile_x", 512}, {"tile_y", 32}, {"threads", 2}, {"schedule", "dynamic"}, {"chunk", 1}, {"simd", 2}})},
      {"serial", Config{}},
  };
  if (Registry::builtin().variant("rotate", "opencv_warp")) cases.push_back({"opencv_warp", Config{}});
  for (const Problem& p : problems)
    for (const Case& c : cases)
      benchmark::RegisterBenchmark(("rotate/" + p.size() + "c" + std::to_string(p.channels) + "_" + p.attr("interp") +
                                    "/" + c.variant + "/" + c.config.brief())
                                       .c_str(),
                                   [p, c](benchmark::State& st) { run_case(st, p, c); })
          ->UseManualTime()
          ->Iterations(kIterations)
          ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
