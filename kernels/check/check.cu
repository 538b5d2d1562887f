/* The check kernels for CUDA (NVRTC): the shared text of check_gpu.h. */
#include "check/check_gpu.h"
