/* flip kernels for CUDA (NVRTC): the shared text of flip_gpu.h. */
#include "flip/flip_gpu.h"
