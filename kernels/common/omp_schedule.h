/* The OpenMP schedule and thread-count spelling shared by host-compiled OpenMP kernels: SCHED names
   PIMG_SCHED_STATIC, _DYNAMIC or _GUIDED and becomes SCHED_KIND; THREADS > 0 becomes a num_threads
   clause (PIMG_NUM_THREADS), 0 leaves the count to OpenMP (OMP_NUM_THREADS, else one per core).
   Without a THREADS or CHUNK define, the value comes at run time instead: the library's variables
   pimg_threads and pimg_chunk, which the OpenMP backend sets before every launch (LaunchPlan::globals), so
   that configurations differing only in them share one compiled program. */
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

#if !defined(THREADS) || !defined(CHUNK)
#ifdef __cplusplus
extern "C" {
#endif
#ifndef THREADS
int pimg_threads = 0; /* set before every launch; 0: OpenMP's count */
#endif
#ifndef CHUNK
int pimg_chunk = 1; /* set before every launch */
#define CHUNK (pimg_chunk > 0 ? pimg_chunk : 1)
#endif
#ifdef __cplusplus
}
#endif
#endif

#ifndef THREADS
#include <omp.h>
#define PIMG_NUM_THREADS num_threads(pimg_threads > 0 ? pimg_threads : omp_get_max_threads())
#elif THREADS > 0
#define PIMG_NUM_THREADS num_threads(THREADS)
#else
#define PIMG_NUM_THREADS
#endif

#endif
