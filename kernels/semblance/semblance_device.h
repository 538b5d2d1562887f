/* The semblance kernels' body, shared by OpenCL (semblance.cl) and CUDA (semblance.cu), which define
   the spelling macros: SEMB_KERNEL, SEMB_KERNEL_MAIN (the search kernel, with launch bounds where they apply), SEMB_GMEM (address space of buffers), SEMB_GEOM_AS (of the
   geometry, header and axes arguments), SEMB_LOCAL(type, name, count), SEMB_BARRIER, SEMB_GID(d),
   SEMB_LID(d), SEMB_GROUP(d), SEMB_NGROUPS(d), SEMB_LOAD(pointer) (a sample read), and GEOM(i, f),
   HDR(i, f), AXIS(k) (reads of the small inputs, from arguments or constant memory).
   Knobs: DIMS (1: one item per E block of the whole grid; 2: x over (D, E blocks), y over (A, B, C);
   3: x over (D, E blocks), y over C, z over (A, B)), SEED_MAP (1: seed 004's own mappings instead: x over
   A, y over B (DIMS >= 2), z over C (DIMS 3), the other dimensions looped inside each item in grid
   order), BLOCK_X/Y/Z, PPI (grid points per item along E),
   PRECOMP, INLINE, INTERP (semblance_core.h), WINDOW (0: num and den arrays per item in registers;
   1: the seed's register-pressure rewrite, num in local/shared memory and den one sum), ARGMAX (0:
   write every point's semblance and stack; 1: reduce to one best point per work-group into the
   part_* scratch buffers, then semb_argmax_final reduces those into the header). */
#include "semblance/semblance_core.h"

#ifndef SEED_MAP
#define SEED_MAP 0
#endif

#define SEMB_GROUP_SIZE (BLOCK_X * BLOCK_Y * BLOCK_Z)
#define SEMB_NEG ((PIMG_NE + PPI - 1) / PPI)
#define SEMB_NPOINTS ((long)PIMG_NA * PIMG_NB * PIMG_NC * PIMG_ND * PIMG_NE)
#define SEMB_OFF_B PIMG_NA
#define SEMB_OFF_C (PIMG_NA + PIMG_NB)
#define SEMB_OFF_D (PIMG_NA + PIMG_NB + PIMG_NC)
#define SEMB_OFF_E (PIMG_NA + PIMG_NB + PIMG_NC + PIMG_ND)

#if WINDOW == 0
#define SEMB_NUM(p, j) num[(p) * PIMG_W + (j)]
#else
#define SEMB_NUM(p, j) lnum[((p) * PIMG_W + (j)) * SEMB_GROUP_SIZE + lid]
#endif

/* b is better than a: higher semblance, or equal and earlier in the grid (the reference's choice). */
#define SEMB_BETTER(bs, bi, as, ai) ((bs) > (as) || ((bs) == (as) && (bi) < (ai)))

SEMB_KERNEL_MAIN void SEMB_ENTRY(SEMB_GMEM const float* restrict samples, SEMB_GEOM_AS const float* restrict geom,
                            SEMB_GEOM_AS const int* restrict hdr, SEMB_GEOM_AS const float* restrict axes,
#if ARGMAX
                            SEMB_GMEM int* restrict part_idx, SEMB_GMEM float* restrict part_sem,
                            SEMB_GMEM float* restrict part_stk,
#else
                            SEMB_GMEM float* restrict out,
#endif
                            float t0, float m0, float h0, float idt) {
  const int lid = (int)(SEMB_LID(0) + BLOCK_X * (SEMB_LID(1) + BLOCK_Y * SEMB_LID(2)));
  (void)lid;
  /* This item's grid coordinates (E block ieg) and whether it lies inside the grid. */
  int ia, ib, ic, id, ieg, active;
#if SEED_MAP
  /* The item's A (and B, C) from its ids; its loops below walk the rest. An item outside walks nothing. */
  const int ga = (int)SEMB_GID(0), gb = DIMS >= 2 ? (int)SEMB_GID(1) : 0, gc = DIMS >= 3 ? (int)SEMB_GID(2) : 0;
  active = ga < PIMG_NA && gb < PIMG_NB && gc < PIMG_NC;
  ia = active ? ga : 0;
  const int b0 = DIMS >= 2 ? gb : 0, b1 = !active ? b0 : DIMS >= 2 ? b0 + 1 : PIMG_NB;
  const int c0 = DIMS >= 3 ? gc : 0, c1 = DIMS >= 3 ? c0 + 1 : PIMG_NC;
#elif DIMS == 1
  {
    long r = (long)SEMB_GID(0);
    active = r < (long)PIMG_NA * PIMG_NB * PIMG_NC * PIMG_ND * SEMB_NEG;
    if (!active) r = 0;
    ieg = (int)(r % SEMB_NEG);
    r /= SEMB_NEG;
    id = (int)(r % PIMG_ND);
    r /= PIMG_ND;
    ic = (int)(r % PIMG_NC);
    r /= PIMG_NC;
    ib = (int)(r % PIMG_NB);
    ia = (int)(r / PIMG_NB);
  }
#elif DIMS == 2
  {
    int x = (int)SEMB_GID(0), y = (int)SEMB_GID(1);
    active = x < PIMG_ND * SEMB_NEG && y < PIMG_NA * PIMG_NB * PIMG_NC;
    if (!active) x = y = 0;
    ieg = x % SEMB_NEG;
    id = x / SEMB_NEG;
    ic = y % PIMG_NC;
    ib = (y / PIMG_NC) % PIMG_NB;
    ia = y / (PIMG_NC * PIMG_NB);
  }
#elif DIMS == 3
  {
    int x = (int)SEMB_GID(0), y = (int)SEMB_GID(1), z = (int)SEMB_GID(2);
    active = x < PIMG_ND * SEMB_NEG && y < PIMG_NC && z < PIMG_NA * PIMG_NB;
    if (!active) x = y = z = 0;
    ieg = x % SEMB_NEG;
    id = x / SEMB_NEG;
    ic = y;
    ib = z % PIMG_NB;
    ia = z / PIMG_NB;
  }
#else
#error "DIMS must be 1, 2 or 3"
#endif
#if WINDOW == 1
  SEMB_LOCAL(float, lnum, SEMB_GROUP_SIZE * PPI * PIMG_W);
#endif
#if ARGMAX
  float best_sem = -1.0f, best_stk = 0.0f;
  int best_idx = 0x7fffffff;
#endif
#if SEED_MAP
  for (ib = b0; ib < b1; ++ib)
    for (ic = c0; ic < c1; ++ic)
      for (id = 0; id < PIMG_ND; ++id)
        for (ieg = 0; ieg < SEMB_NEG; ++ieg)
#endif
  {
    const int ie0 = ieg * PPI;
    const float A = AXIS(ia), B = AXIS(SEMB_OFF_B + ib), C = AXIS(SEMB_OFF_C + ic), D = AXIS(SEMB_OFF_D + id);
    float Ev[PPI];
    for (int p = 0; p < PPI; ++p) Ev[p] = AXIS(SEMB_OFF_E + (ie0 + p < PIMG_NE ? ie0 + p : PIMG_NE - 1));

#if WINDOW == 0
    float num[PPI * PIMG_W];
    float den[PPI * PIMG_W];
#else
    float den[PPI];
#endif
    float stk[PPI];
    int mcount[PPI];
    for (int p = 0; p < PPI; ++p) {
      for (int j = 0; j < PIMG_W; ++j) {
        SEMB_NUM(p, j) = 0.0f;
#if WINDOW == 0
        den[p * PIMG_W + j] = 0.0f;
#endif
      }
#if WINDOW == 1
      den[p] = 0.0f;
#endif
      stk[p] = 0.0f;
      mcount[p] = 0;
    }

    for (int i = 0; active && i < PIMG_NTR; ++i) {
      semb_geom g;
#if PRECOMP
      g.dm = GEOM(i, 0);
      g.dh = GEOM(i, 1);
      g.dm2 = GEOM(i, 2);
      g.dh2 = GEOM(i, 3);
      g.dmdh = GEOM(i, 4);
#else
      g = semb_geometry(HDR(i, 0), HDR(i, 1), HDR(i, 2), m0, h0);
#endif
      const float q = semb_quadratic(A, B, C, D, t0, g);
      SEMB_GMEM const float* tr = samples + (long)i * PIMG_NS;
      for (int p = 0; p < PPI; ++p) {
        const float x = semb_position(q, Ev[p], idt, g);
        if (!semb_inside(x, PIMG_TAU, PIMG_NS)) continue;
        const int it = (int)x;
        const int base = it - PIMG_TAU;
#if INTERP == 1
        const float f = x - (float)it;
#endif
        for (int j = 0; j < PIMG_W; ++j) {
          const int k = base + j;
          const float d0 = SEMB_LOAD(tr + k), d1 = SEMB_LOAD(tr + k + 1);
#if INTERP == 0
          const float v = semb_interp_seed(d0, d1, x, j, PIMG_TAU, k);
#else
          const float v = semb_interp_simplified(d0, d1, f);
#endif
          SEMB_NUM(p, j) += v;
#if WINDOW == 0
          den[p * PIMG_W + j] += v * v;
#else
          den[p] += v * v;
#endif
          stk[p] += v;
        }
        mcount[p] += 1;
      }
    }

    const long row = ((((long)ia * PIMG_NB + ib) * PIMG_NC + ic) * PIMG_ND + id) * PIMG_NE;
    for (int p = 0; p < PPI; ++p) {
      if (!active || ie0 + p >= PIMG_NE) break;
      float sn = 0.0f, sd = 0.0f;
      for (int j = 0; j < PIMG_W; ++j) {
        sn += SEMB_NUM(p, j) * SEMB_NUM(p, j);
#if WINDOW == 0
        sd += den[p * PIMG_W + j];
#endif
      }
#if WINDOW == 1
      sd = den[p];
#endif
      const float sem = semb_finish(sn, sd, mcount[p], PIMG_NTR);
      const float st = semb_stack(stk[p], mcount[p], PIMG_W, PIMG_NTR);
      const long idx = row + ie0 + p;
#if ARGMAX
      if (sem > best_sem) { /* points of one item come in grid order: strictly better only */
        best_sem = sem;
        best_stk = st;
        best_idx = (int)idx;
      }
#else
      out[SEMB_HEADER_FLOATS + idx] = sem;
      out[SEMB_HEADER_FLOATS + SEMB_NPOINTS + idx] = st;
      if (idx == 0) {
        ((SEMB_GMEM int*)out)[0] = SEMB_TAG_GRID;
        ((SEMB_GMEM int*)out)[1] = -1;
        out[2] = 0.0f;
        out[3] = 0.0f;
      }
#endif
    }
  } /* the point (or, with SEED_MAP, each point of the item's loops) */

#if ARGMAX
/* Tree reduction of (rsem, ridx, rstk)[0..size) into element 0 by SEMB_BETTER; size a power of two,
   every item of the group arriving with its own entry written. */
#define SEMB_REDUCE_BEST(size)                                                                   \
  SEMB_BARRIER;                                                                                  \
  for (int s = (size) / 2; s > 0; s >>= 1) {                                                     \
    if (lid < s && SEMB_BETTER(rsem[lid + s], ridx[lid + s], rsem[lid], ridx[lid])) {            \
      rsem[lid] = rsem[lid + s];                                                                 \
      rstk[lid] = rstk[lid + s];                                                                 \
      ridx[lid] = ridx[lid + s];                                                                 \
    }                                                                                            \
    SEMB_BARRIER;                                                                                \
  }

  /* The work-group's best point: a tree over a power-of-two group (the variant checks the size). */
  SEMB_LOCAL(float, rsem, SEMB_GROUP_SIZE);
  SEMB_LOCAL(float, rstk, SEMB_GROUP_SIZE);
  SEMB_LOCAL(int, ridx, SEMB_GROUP_SIZE);
  rsem[lid] = best_sem;
  rstk[lid] = best_stk;
  ridx[lid] = best_idx;
  SEMB_REDUCE_BEST(SEMB_GROUP_SIZE);
  if (lid == 0) {
    const long group = (long)SEMB_GROUP(0) + (long)SEMB_NGROUPS(0) * ((long)SEMB_GROUP(1) + (long)SEMB_NGROUPS(1) * SEMB_GROUP(2));
    part_idx[group] = ridx[0];
    part_sem[group] = rsem[0];
    part_stk[group] = rstk[0];
  }
#endif
}

#if ARGMAX
/* One work-group of FINAL_BLOCK items (a power of two) reduces the groups' best points into the header. */
SEMB_KERNEL void semb_argmax_final(SEMB_GMEM const int* restrict part_idx, SEMB_GMEM const float* restrict part_sem,
                                   SEMB_GMEM const float* restrict part_stk, SEMB_GMEM float* restrict out, int groups) {
  SEMB_LOCAL(float, rsem, FINAL_BLOCK);
  SEMB_LOCAL(float, rstk, FINAL_BLOCK);
  SEMB_LOCAL(int, ridx, FINAL_BLOCK);
  const int lid = (int)SEMB_LID(0);
  float bs = -1.0f, bt = 0.0f;
  int bi = 0x7fffffff;
  for (int g = lid; g < groups; g += FINAL_BLOCK) {
    const float s = part_sem[g];
    const int i = part_idx[g];
    if (SEMB_BETTER(s, i, bs, bi)) {
      bs = s;
      bi = i;
      bt = part_stk[g];
    }
  }
  rsem[lid] = bs;
  rstk[lid] = bt;
  ridx[lid] = bi;
  SEMB_REDUCE_BEST(FINAL_BLOCK);
  if (lid == 0) {
    ((SEMB_GMEM int*)out)[0] = SEMB_TAG_BEST;
    ((SEMB_GMEM int*)out)[1] = ridx[0];
    out[2] = rsem[0];
    out[3] = rstk[0];
  }
}
#endif
