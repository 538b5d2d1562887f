// The semblance search on the CPU, compiled by the OpenMP backend once per configuration. Problem
// sizes (PIMG_NA..PIMG_NE, PIMG_NTR, PIMG_NS, PIMG_TAU, PIMG_W) and knobs arrive as -D defines:
// SCHED, CHUNK, THREADS, COLLAPSE (loops of the A..E nest shared out), VEC_E (1: the E points of one
// (A, B, C, D) computed together in a '#pragma omp simd' loop inside the trace loop), PRECOMP (1:
// per-trace geometry from the host; 0: from the raw headers, as the seed did), INLINE (0: helpers are
// real calls, as in the seed's separate files), INTERP (0: the seed's interpol_linear; 1: simplified),
// WINDOW (0: num and den arrays per window sample; 1: den folded into one sum).
#include <cstdint>

#include "semblance/semblance_core.h"

#if !defined(SCHED) || !defined(CHUNK) || !defined(THREADS) || !defined(COLLAPSE) || !defined(VEC_E) || \
    !defined(PRECOMP) || !defined(INTERP) || !defined(WINDOW)
#error "semblance_omp.cpp needs SCHED, CHUNK, THREADS, COLLAPSE, VEC_E, PRECOMP, INTERP and WINDOW defined"
#endif

#include "common/omp_schedule.h"

#if COLLAPSE < 1 || COLLAPSE > (VEC_E ? 4 : 5)
#error "COLLAPSE must be 1..5 (1..4 with VEC_E)"
#endif

namespace {

constexpr int kNtr = PIMG_NTR, kNs = PIMG_NS, kTau = PIMG_TAU, kW = PIMG_W;
constexpr int kNa = PIMG_NA, kNb = PIMG_NB, kNc = PIMG_NC, kNd = PIMG_ND, kNe = PIMG_NE;
constexpr long kPoints = (long)kNa * kNb * kNc * kNd * kNe;

struct Args {
  const float* samples;
  const float* geom;         // SEMB_GEOM_STRIDE floats per trace: dm, dh, dm2, dh2, dmdh
  const std::int32_t* hdr;   // SEMB_HDR_STRIDE ints per trace: scalco, sy, gy
  const float* axes;         // A's values, then B's, ... E's
  float* sem;
  float* stk;
  float t0, m0, h0, idt;
};

inline semb_geom trace_geometry(const Args& a, int i) {
#if PRECOMP
  const float* g = a.geom + i * SEMB_GEOM_STRIDE;
  semb_geom out;
  out.dm = g[0];
  out.dh = g[1];
  out.dm2 = g[2];
  out.dh2 = g[3];
  out.dmdh = g[4];
  return out;
#else
  const std::int32_t* h = a.hdr + i * SEMB_HDR_STRIDE;
  return semb_geometry(h[0], h[1], h[2], a.m0, a.h0);
#endif
}

inline float interp(const float* tr, int k, float x, int j, float f) {
#if INTERP == 0
  (void)f;
  return semb_interp_seed(tr[k], tr[k + 1], x, j, kTau, k);
#else
  (void)x;
  (void)j;
  return semb_interp_simplified(tr[k], tr[k + 1], f);
#endif
}

#if !VEC_E
// One grid point, the seed's semblance_2d.
void point(const Args& a, int ia, int ib, int ic, int id, int ie) {
  const float A = a.axes[ia], B = a.axes[kNa + ib], C = a.axes[kNa + kNb + ic];
  const float D = a.axes[kNa + kNb + kNc + id], E = a.axes[kNa + kNb + kNc + kNd + ie];
  float num[kW] = {};
#if WINDOW == 0
  float den[kW] = {};
#else
  float den = 0;
#endif
  float stack = 0;
  int m = 0;
  for (int i = 0; i < kNtr; ++i) {
    const semb_geom g = trace_geometry(a, i);
    const float x = semb_position(semb_quadratic(A, B, C, D, a.t0, g), E, a.idt, g);
    if (!semb_inside(x, kTau, kNs)) continue;
    const int it = (int)x;
    const float f = x - (float)it;
    const float* tr = a.samples + (long)i * kNs;
    for (int j = 0; j < kW; ++j) {
      const float v = interp(tr, it - kTau + j, x, j, f);
      num[j] += v;
#if WINDOW == 0
      den[j] += v * v;
#else
      den += v * v;
#endif
      stack += v;
    }
    ++m;
  }
  float sn = 0, sd = 0;
  for (int j = 0; j < kW; ++j) {
    sn += num[j] * num[j];
#if WINDOW == 0
    sd += den[j];
#endif
  }
#if WINDOW == 1
  sd = den;
#endif
  const long idx = ((((long)ia * kNb + ib) * kNc + ic) * kNd + id) * kNe + ie;
  a.sem[idx] = semb_finish(sn, sd, m, kNtr);
  a.stk[idx] = semb_stack(stack, m, kW, kNtr);
}
#else
// Every E point of one (A, B, C, D): the trace's geometry and quadratic once, the E points side by
// side in a simd loop (window accumulators laid out [j][e]).
void point_row(const Args& a, int ia, int ib, int ic, int id) {
  const float A = a.axes[ia], B = a.axes[kNa + ib], C = a.axes[kNa + kNb + ic];
  const float D = a.axes[kNa + kNb + kNc + id];
  const float* E = a.axes + kNa + kNb + kNc + kNd;
  float num[kW][kNe] = {};
#if WINDOW == 0
  float den[kW][kNe] = {};
#else
  float den[kNe] = {};
#endif
  float stack[kNe] = {};
  int m[kNe] = {};
  for (int i = 0; i < kNtr; ++i) {
    const semb_geom g = trace_geometry(a, i);
    const float q = semb_quadratic(A, B, C, D, a.t0, g);
    const float* tr = a.samples + (long)i * kNs;
#pragma omp simd
    for (int e = 0; e < kNe; ++e) {
      const float x = semb_position(q, E[e], a.idt, g);
      if (semb_inside(x, kTau, kNs)) {
        const int it = (int)x;
        const float f = x - (float)it;
        for (int j = 0; j < kW; ++j) {
          const float v = interp(tr, it - kTau + j, x, j, f);
          num[j][e] += v;
#if WINDOW == 0
          den[j][e] += v * v;
#else
          den[e] += v * v;
#endif
          stack[e] += v;
        }
        ++m[e];
      }
    }
  }
  const long row = ((((long)ia * kNb + ib) * kNc + ic) * kNd + id) * kNe;
  for (int e = 0; e < kNe; ++e) {
    float sn = 0, sd = 0;
    for (int j = 0; j < kW; ++j) {
      sn += num[j][e] * num[j][e];
#if WINDOW == 0
      sd += den[j][e];
#endif
    }
#if WINDOW == 1
    sd = den[e];
#endif
    a.sem[row + e] = semb_finish(sn, sd, m[e], kNtr);
    a.stk[row + e] = semb_stack(stack[e], m[e], kW, kNtr);
  }
}
#endif

}  // namespace

// buffers: samples, geom, hdr, axes, out; reals: t0, m0, h0, idt.
extern "C" void semblance_omp(void* const* buffers, const std::int64_t*, const double* reals) {
  float* out = static_cast<float*>(buffers[4]);
  const Args a{static_cast<const float*>(buffers[0]),
               static_cast<const float*>(buffers[1]),
               static_cast<const std::int32_t*>(buffers[2]),
               static_cast<const float*>(buffers[3]),
               out + SEMB_HEADER_FLOATS,
               out + SEMB_HEADER_FLOATS + kPoints,
               (float)reals[0],
               (float)reals[1],
               (float)reals[2],
               (float)reals[3]};
#if VEC_E
#pragma omp parallel for collapse(COLLAPSE) schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int ia = 0; ia < kNa; ++ia)
    for (int ib = 0; ib < kNb; ++ib)
      for (int ic = 0; ic < kNc; ++ic)
        for (int id = 0; id < kNd; ++id) point_row(a, ia, ib, ic, id);
#else
#pragma omp parallel for collapse(COLLAPSE) schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS
  for (int ia = 0; ia < kNa; ++ia)
    for (int ib = 0; ib < kNb; ++ib)
      for (int ic = 0; ic < kNc; ++ic)
        for (int id = 0; id < kNd; ++id)
          for (int ie = 0; ie < kNe; ++ie) point(a, ia, ib, ic, id, ie);
#endif
  const std::int32_t header[SEMB_HEADER_FLOATS] = {SEMB_TAG_GRID, -1, 0, 0};
  __builtin_memcpy(out, header, sizeof header);
}
