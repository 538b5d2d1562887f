/* The check kernels for OpenCL C: the shared text of check_gpu.h. */
#include "check/check_gpu.h"
