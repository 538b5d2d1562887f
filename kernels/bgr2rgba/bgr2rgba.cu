/* bgr2rgba kernels for CUDA (NVRTC): the shared text of bgr2rgba_gpu.h. */
#include "bgr2rgba/bgr2rgba_gpu.h"
