/* flip kernels for OpenCL C: the shared text of flip_gpu.h. */
#include "flip/flip_gpu.h"
