// The OpenMP knobs of the bgr2rgba, flip and maxpool host kernels as compile-time defines: SCHED names
// one of PIMG_SCHED_* (common/omp_schedule.h), CHUNK its chunk, THREADS the num_threads clause (0: none), DECOMP 0 rows or
// 1 tiles (TILE_X x TILE_Y). PIX_PARALLEL_FOR opens the loop with those clauses.
#ifndef PIX_OMP_H
#define PIX_OMP_H

#if !defined(DECOMP) || !defined(SCHED) || !defined(CHUNK) || !defined(THREADS)
#error "pix OpenMP kernels need DECOMP, SCHED, CHUNK and THREADS defined"
#endif
#if DECOMP == 1 && (!defined(TILE_X) || !defined(TILE_Y))
#error "DECOMP=1 (tiles) needs TILE_X and TILE_Y"
#endif

#include "common/omp_schedule.h"

#define PIX_STR_(x) #x
#define PIX_PRAGMA(x) _Pragma(PIX_STR_(x))
#define PIX_PARALLEL_FOR PIX_PRAGMA(omp parallel for schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS)
#define PIX_PARALLEL_FOR2 PIX_PRAGMA(omp parallel for collapse(2) schedule(SCHED_KIND, CHUNK) PIMG_NUM_THREADS)

/* Calls body(y0, y1, x0, x1) over rows [0, rows) x columns [0, cols): one task per row (DECOMP 0) or
   per TILE_X x TILE_Y tile (DECOMP 1), with the configured schedule. */
template <class Body>
inline void pix_for_rows(int rows, int cols, Body body) {
#if DECOMP == 0
  PIX_PARALLEL_FOR
  for (int y = 0; y < rows; ++y) body(y, y + 1, 0, cols);
#else
  const int ty_n = (rows + TILE_Y - 1) / TILE_Y, tx_n = (cols + TILE_X - 1) / TILE_X;
  PIX_PARALLEL_FOR2
  for (int ty = 0; ty < ty_n; ++ty)
    for (int tx = 0; tx < tx_n; ++tx) {
      const int y0 = ty * TILE_Y, x0 = tx * TILE_X;
      body(y0, y0 + TILE_Y < rows ? y0 + TILE_Y : rows, x0, x0 + TILE_X < cols ? x0 + TILE_X : cols);
    }
#endif
}

#endif
