/* The semblance family's arithmetic, shared word for word by the CPU reference and the OpenMP, OpenCL
   and CUDA kernels (docs/families.md, "semblance"): per-trace geometry, the traveltime, the window
   test, the two interpolation forms and the final quotient. Everything is float and evaluated in the
   order written here, so backends differ only by what their compilers contract (FMA) or round (sqrt).
   Knobs read here: INLINE (1 or undefined: helpers forced inline; 0: helpers are real calls),
   SEMB_DATA (address space of sample pointers; empty outside OpenCL). */
#ifndef PIMG_SEMB_CORE_H
#define PIMG_SEMB_CORE_H

#if defined(__OPENCL_VERSION__)
#define SEMB_INL static inline
#define SEMB_NOINL static __attribute__((noinline))
#define SEMB_SQRT(x) sqrt(x)
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SEMB_INL static __host__ __device__ __forceinline__
#define SEMB_NOINL static __host__ __device__ __noinline__
#define SEMB_SQRT(x) sqrtf(x)
#else
#define SEMB_INL static inline
#define SEMB_NOINL static __attribute__((noinline))
#define SEMB_SQRT(x) __builtin_sqrtf(x)
#endif

#if !defined(INLINE) || INLINE
#define SEMB_HELPER SEMB_INL
#else
#define SEMB_HELPER SEMB_NOINL
#endif

#ifndef SEMB_DATA
#define SEMB_DATA
#endif

/* The output's 16-byte header: word 0 says which layout follows (docs/families.md). */
#define SEMB_TAG_GRID 0x44495247 /* "GRID": semblance[n] then stack[n] floats follow the header */
#define SEMB_TAG_BEST 0x54534542 /* "BEST": header words 1..3 hold best index, semblance, stack */
#define SEMB_HEADER_FLOATS 4
/* Floats per trace in the precomputed geometry buffer, ints per trace in the raw header buffer. */
#define SEMB_GEOM_STRIDE 8
#define SEMB_HDR_STRIDE 4

typedef struct {
  float dm, dh;           /* midpoint and half-offset relative to m0, h0 */
  float dm2, dh2, dmdh;   /* dm*dm, dh*dh, dm*dh */
} semb_geom;

/* A header coordinate with scalco applied (SEG-Y: > 0 multiplies, < 0 divides by |scalco|, 0 is 1). */
SEMB_INL float semb_scale(int v, int scalco) {
  return scalco > 0 ? (float)v * (float)scalco : (scalco < 0 ? (float)v / (float)(-scalco) : (float)v);
}

/* Midpoint and half-offset along y (the data is 2-D along y), relative to m0 and h0. */
SEMB_HELPER semb_geom semb_geometry(int scalco, int sy, int gy, float m0, float h0) {
  const float ys = semb_scale(sy, scalco), yg = semb_scale(gy, scalco);
  semb_geom g;
  g.dm = (ys + yg) * 0.5f - m0;
  g.dh = (yg - ys) * 0.5f - h0;
  g.dm2 = g.dm * g.dm;
  g.dh2 = g.dh * g.dh;
  g.dmdh = g.dm * g.dh;
  return g;
}

/* (t0 + A*dm + B*dh)^2 + C*dh^2 + D*dm^2: the part of t^2 that does not depend on E. */
SEMB_HELPER float semb_quadratic(float A, float B, float C, float D, float t0, semb_geom g) {
  const float l = t0 + A * g.dm + B * g.dh;
  return l * l + C * g.dh2 + D * g.dm2;
}

/* t * idt, the traveltime in samples, or -1 where t^2 < 0 (the trace is outside). */
SEMB_HELPER float semb_position(float q, float E, float idt, semb_geom g) {
  const float t2 = q + E * g.dmdh;
  return t2 >= 0.0f ? SEMB_SQRT(t2) * idt : -1.0f;
}

/* The window [floor(x) - tau, floor(x) + tau + 1] lies inside [0, ns). False for NaN. */
SEMB_INL int semb_inside(float x, int tau, int ns) { return x >= (float)tau && x < (float)(ns - tau - 1); }

/* The seed's interpol_linear(k, k+1, d0, d1, x + j - tau), divided by (k+1 - k) = 1. */
SEMB_HELPER float semb_interp_seed(float d0, float d1, float x, int j, int tau, int k) {
  const float xs = x + (float)(j - tau);
  return (d1 - d0) * (xs - (float)k) + d0;
}

/* The seed's algebraic simplification: f = x - floor(x) hoisted out of the window loop. */
SEMB_INL float semb_interp_simplified(float d0, float d1, float f) { return d1 * f + d0 * (1.0f - f); }

/* sum_j num_j^2 / (M * sum_j den_j); 0 when more than one trace is outside, none inside, or den is 0. */
SEMB_INL float semb_finish(float sn, float sd, int m, int ntr) {
  return (ntr - m > 1 || m == 0 || !(sd > 0.0f)) ? 0.0f : sn / ((float)m * sd);
}

/* The mean interpolated value over the M traces' windows; 0 where the semblance scores 0. */
SEMB_INL float semb_stack(float stk, int m, int w, int ntr) {
  return (ntr - m > 1 || m == 0) ? 0.0f : stk / (float)(m * w);
}

#endif
