/* The OpenMP knobs hist_omp.cpp and histeq_omp.cpp share, from -D defines: SCHED (PIMG_SCHED_STATIC,
 * _DYNAMIC or _GUIDED) as SCHED_KIND for schedule(), CHUNK, and THREADS as PIMG_NUM_THREADS (0 leaves
 * the count to OpenMP). */
#ifndef PIMG_HIST_OMP_KNOBS_H
#define PIMG_HIST_OMP_KNOBS_H

#if !defined(SCHED) || !defined(CHUNK) || !defined(THREADS)
#error "needs SCHED, CHUNK and THREADS defined"
#endif

#include "common/omp_schedule.h"

#endif
