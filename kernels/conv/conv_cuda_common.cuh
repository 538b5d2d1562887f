/* Shared by the CUDA conv kernels (compiled by NVRTC, no system headers): the exact rule, the border
   centre, and the knobs as macros. FILTER_MEM 0 global / 1 __constant__ (compile-time data in constant
   memory) / 2 literal weights; UNROLL 1 full / 0 none; LAUNCH_BOUNDS N>0 __launch_bounds__(threads, N);
   INLINE 1 __forceinline__ / 0 __noinline__ per-pixel (wide: per-vector) helper. */
#include "conv/conv_layout.h"

#define TAPS (PIMG_K * PIMG_K)

#if UNROLL
#define TAP_LOOP _Pragma("unroll")
#else
#define TAP_LOOP _Pragma("unroll 1")
#endif

#if LAUNCH_BOUNDS > 0
#define PIMG_BOUNDS __launch_bounds__(BLOCK_X * BLOCK_Y, LAUNCH_BOUNDS)
#else
#define PIMG_BOUNDS
#endif

#if INLINE
#define PIMG_HELPER static __device__ __forceinline__
#else
#define PIMG_HELPER static __device__ __noinline__
#endif

typedef unsigned char uchar;

/* The filter as every kernel reads it: W(t) the weight of tap t, T(t) its distinct-weight index and
   L(i) the table entry lut[d * 256 + v] = weight_d * v. Helpers take FILTER_ARGS and declare
   FILTER_LOCALS first; with FILTER_MEM 0 the arguments are read, otherwise they go unused. */
#define FILTER_PARAMS const int* __restrict__ weights, const int* __restrict__ taps, const int* __restrict__ lut
#define FILTER_ARGS weights, taps, lut

#if defined(ARITH) && ARITH == 1
#define PIMG_USE_LUT 1
#else
#define PIMG_USE_LUT 0
#endif

#if FILTER_MEM == 1
__constant__ int c_weights[TAPS] = {PIMG_WEIGHTS};
__constant__ int c_taps[TAPS] = {PIMG_TAPS};
#if PIMG_USE_LUT
struct PimgLut {
  int v[PIMG_NDISTINCT * 256];
};
/* The table computed by the compiler from the literal weights and tap indices. */
constexpr PimgLut pimg_make_lut() {
  PimgLut l{};
  const int w[TAPS] = {PIMG_WEIGHTS};
  const int t[TAPS] = {PIMG_TAPS};
  for (int i = 0; i < TAPS; ++i)
    for (int v = 0; v < 256; ++v) l.v[t[i] * 256 + v] = w[i] * v;
  return l;
}
__constant__ PimgLut c_lut = pimg_make_lut();
#endif
#define FILTER_LOCALS
#define W(t) c_weights[t]
#define T(t) c_taps[t]
#define L(i) c_lut.v[i]
#elif FILTER_MEM == 2
#define FILTER_LOCALS                                \
  const int lit_weights[TAPS] = {PIMG_WEIGHTS};      \
  const int lit_taps[TAPS] = {PIMG_TAPS};
#define W(t) lit_weights[t]
#define T(t) lit_taps[t]
#define L(i) __ldg(lut + (i))
#else
#define FILTER_LOCALS
#define W(t) __ldg(weights + (t))
#define T(t) __ldg(taps + (t))
#define L(i) __ldg(lut + (i))
#endif

/* What tap t adds for input value v: weight * v, or the table entry with ARITH 1. */
#if PIMG_USE_LUT
#define TAP_TERM(t, v) L(T(t) * 256 + (v))
#else
#define TAP_TERM(t, v) (W(t) * (v))
#endif
