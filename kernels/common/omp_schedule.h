/* The OpenMP schedule and thread-count spelling shared by host-compiled OpenMP kernels: SCHED names
   PIMG_SCHED_STATIC, _DYNAMIC or _GUIDED and becomes SCHED_KIND; THREADS > 0 becomes a num_threads
   clause (PIMG_NUM_THREADS), 0 leaves the count to OpenMP (OMP_NUM_THREADS, else one per core). */
#ifndef PIMG_OMP_SCHEDULE_H
#define PIMG_OMP_SCHEDULE_H

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
