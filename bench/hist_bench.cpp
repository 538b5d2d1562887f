// hist and histeq on the CPU: OpenMP configurations against OpenCV's calcHist and equalizeHist,
// measured in the same run at 2048^2 and 4096^2 (the CPU bar: the best OpenMP configuration at
// least as fast as OpenCV). Each case plans, compiles and uploads once through the registry's
// backends, then times device launches (manual time = the backend's kernel time); the output is
// validated against the family's reference after the timed loop.
#include "bench_case.hpp"

namespace {

using namespace pimg;
using pimg::bench::run_case;

void BM_HistOpenmp(benchmark::State& s) {
  run_case(s, "hist", "omp_private", {{"merge", std::string("reduction")}, {"copies", std::int64_t{4}}}, 1);
}
void BM_HistOpencv(benchmark::State& s) { run_case(s, "hist", "opencv_calchist", {}, 1); }
void BM_Hist3Openmp(benchmark::State& s) {
  run_case(s, "hist", "omp_private", {{"merge", std::string("critical")}, {"copies", std::int64_t{4}}}, 3);
}
void BM_Hist3Opencv(benchmark::State& s) { run_case(s, "hist", "opencv_calchist", {}, 3); }
// The best configuration found (bench/results/2026-11-23-cpu-histeq/): the AVX-512 VBMI map; and the
// same with the portable 64-bit-word map, to show what the permutes buy.
void BM_HisteqOpenmp(benchmark::State& s) {
  run_case(s, "histeq", "omp_histeq",
           {{"schedule", std::string("static")}, {"chunk", std::int64_t{8}}, {"copies", std::int64_t{4}},
            {"wide", std::int64_t{1}}, {"map", std::string("vbmi")}},
           1);
}
void BM_HisteqOpenmpWords(benchmark::State& s) {
  run_case(s, "histeq", "omp_histeq",
           {{"schedule", std::string("static")}, {"chunk", std::int64_t{8}}, {"copies", std::int64_t{4}},
            {"wide", std::int64_t{1}}, {"map", std::string("words")}},
           1);
}
void BM_HisteqOpencv(benchmark::State& s) { run_case(s, "histeq", "opencv_equalizehist", {}, 1); }

#define PIMG_HIST_BENCH(fn) BENCHMARK(fn)->UseManualTime()->Unit(benchmark::kMillisecond)->Arg(2048)->Arg(4096)
PIMG_HIST_BENCH(BM_HistOpenmp);
PIMG_HIST_BENCH(BM_HistOpencv);
PIMG_HIST_BENCH(BM_Hist3Openmp);
PIMG_HIST_BENCH(BM_Hist3Opencv);
PIMG_HIST_BENCH(BM_HisteqOpenmp);
PIMG_HIST_BENCH(BM_HisteqOpenmpWords);
PIMG_HIST_BENCH(BM_HisteqOpencv);

}  // namespace

BENCHMARK_MAIN();
