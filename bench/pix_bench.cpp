// bgr2rgba and flip on the CPU: OpenMP configurations against OpenCV's cvtColor (COLOR_BGR2RGBA) and
// flip (about the vertical axis), measured in the same run at 2048^2 and 4096^2, 3 interleaved
// channels (the CPU bar: the best OpenMP configuration at least as fast as OpenCV). maxpool
// has no OpenCV counterpart. Cases go through bench_case.hpp: every run poisoned and validated.
#include "bench_case.hpp"

namespace {

using namespace pimg;
using pimg::bench::run_case;

const Value kDynamic = std::string("dynamic");
const Value kStatic = std::string("static");

void BM_Bgr2RgbaOmpRows(benchmark::State& s) {
  run_case(s, "bgr2rgba", "omp_rows", {{"threads", std::int64_t{2}}, {"schedule", kStatic}, {"shuffle", std::int64_t{1}}},
           3);
}
void BM_Bgr2RgbaOmpRowsDynamic(benchmark::State& s) {
  run_case(s, "bgr2rgba", "omp_rows",
           {{"threads", std::int64_t{2}}, {"schedule", kDynamic}, {"chunk", std::int64_t{16}}, {"shuffle", std::int64_t{1}}},
           3);
}
// Rows in chunks of 16 on 2 threads with the AVX-512 VBMI kernel (shuffle 3: one vpermb per sixteen
// pixels, aligned stores) or the AVX2 one (shuffle 2), with or without non-temporal stores.
void bgr2rgba_rows16(benchmark::State& s, const Value& schedule, std::int64_t shuffle, std::int64_t stream) {
  run_case(s, "bgr2rgba", "omp_rows",
           {{"threads", std::int64_t{2}}, {"schedule", schedule}, {"chunk", std::int64_t{16}}, {"shuffle", shuffle},
            {"stream", stream}},
           3);
}
void BM_Bgr2RgbaOmpVbmi(benchmark::State& s) { bgr2rgba_rows16(s, kStatic, 3, 0); }
void BM_Bgr2RgbaOmpVbmiDynamic(benchmark::State& s) { bgr2rgba_rows16(s, kDynamic, 3, 0); }
void BM_Bgr2RgbaOmpVbmiStream(benchmark::State& s) { bgr2rgba_rows16(s, kStatic, 3, 1); }
void BM_Bgr2RgbaOmpAvx2Stream(benchmark::State& s) { bgr2rgba_rows16(s, kStatic, 2, 1); }
void BM_Bgr2RgbaOpencv(benchmark::State& s) { run_case(s, "bgr2rgba", "opencv_cvtcolor", {}, 3); }
void BM_FlipOmpRows(benchmark::State& s) {
  run_case(s, "flip", "omp_rows", {{"threads", std::int64_t{2}}, {"schedule", kStatic}, {"shuffle", std::int64_t{1}}}, 3);
}
void BM_FlipOmpRowsDynamic(benchmark::State& s) {
  run_case(s, "flip", "omp_rows",
           {{"threads", std::int64_t{2}}, {"schedule", kDynamic}, {"chunk", std::int64_t{16}}, {"shuffle", std::int64_t{1}}},
           3);
}
void BM_FlipOpencv(benchmark::State& s) { run_case(s, "flip", "opencv_flip", {}, 3); }

#define PIMG_PIX_BENCH(fn) BENCHMARK(fn)->UseManualTime()->Unit(benchmark::kMillisecond)->Arg(2048)->Arg(4096)
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpRows);
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpRowsDynamic);
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpVbmi);
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpVbmiDynamic);
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpVbmiStream);
PIMG_PIX_BENCH(BM_Bgr2RgbaOmpAvx2Stream);
PIMG_PIX_BENCH(BM_Bgr2RgbaOpencv);
PIMG_PIX_BENCH(BM_FlipOmpRows);
PIMG_PIX_BENCH(BM_FlipOmpRowsDynamic);
PIMG_PIX_BENCH(BM_FlipOpencv);

}  // namespace

BENCHMARK_MAIN();
