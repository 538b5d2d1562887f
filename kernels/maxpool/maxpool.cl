/* maxpool kernels for OpenCL C: the shared text of maxpool_gpu.h. */
#include "maxpool/maxpool_gpu.h"
