/* bgr2rgba kernels for OpenCL C: the shared text of bgr2rgba_gpu.h. */
#include "bgr2rgba/bgr2rgba_gpu.h"
