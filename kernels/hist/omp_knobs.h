/* The OpenMP knobs hist_omp.cpp and histeq_omp.cpp share, from -D defines: SCHED (PIMG_SCHED_STATIC,
 * _DYNAMIC or _GUIDED) as SCHED_KIND for schedule(), CHUNK, and THREADS as PIMG_NUM_THREADS (0 leaves
 * the count to OpenMP). */
#ifndef PIMG_HIST_OMP_KNOBS_H
#define PIMG_HIST_OMP_KNOBS_H

#if !defined(SCHED) || !defined(CHUNK) || !defined(THREADS)
#error "needs SCHED, CHUNK and THREADS defined"
#endif

#define PIMG_SCHED_STATIC 0
#define PIMG_SCHED_DYNAMIC 1
#define PIMG_SCHED_GUIDED 2
#if SCHED == PIMG_SCHED_STATIC
#define SCHED_KIND static
#elif SCHED == PIMG_SCHED_DYNAMIC
#define SCHED_KIND dynamic
#elif SCHED == PIMG_SCHED_GUIDED
#define SCHED_KIND guided
#else
#error "SCHED must be PIMG_SCHED_STATIC, PIMG_SCHED_DYNAMIC or PIMG_SCHED_GUIDED"
#endif

#if THREADS > 0
#define PIMG_NUM_THREADS num_threads(THREADS)
#else
#define PIMG_NUM_THREADS
#endif

#endif
