/* maxpool kernels for CUDA (NVRTC): the shared text of maxpool_gpu.h. */
#include "maxpool/maxpool_gpu.h"
