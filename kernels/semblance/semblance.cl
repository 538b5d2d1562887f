/* The semblance search in OpenCL C: the spelling of semblance_device.h's macros for OpenCL. Knobs
   beyond the body's: GEOM_MEM (0: geometry, headers and axes in __global memory; 1: in __constant). */
#if GEOM_MEM == 1
#define SEMB_GEOM_AS __constant
#else
#define SEMB_GEOM_AS __global
#endif
#define SEMB_KERNEL __kernel
#define SEMB_KERNEL_MAIN __kernel
#define SEMB_GMEM __global
#define SEMB_DATA __global
#define SEMB_LOCAL(type, name, count) __local type name[count]
#define SEMB_BARRIER barrier(CLK_LOCAL_MEM_FENCE)
#define SEMB_GID(d) get_global_id(d)
#define SEMB_LID(d) get_local_id(d)
#define SEMB_GROUP(d) get_group_id(d)
#define SEMB_NGROUPS(d) get_num_groups(d)
#define SEMB_LOAD(p) (*(p))
#define GEOM(i, f) geom[(i) * SEMB_GEOM_STRIDE + (f)]
#define HDR(i, f) hdr[(i) * SEMB_HDR_STRIDE + (f)]
#define AXIS(k) axes[k]
#define SEMB_ENTRY semb_grid
#include "semblance/semblance_device.h"
