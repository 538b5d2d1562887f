/* conv_cuda_tiled for CUDA (NVRTC): the portable body of conv_tiled_gpu.h (see there), entry conv_cuda_tiled. */
#define CONV_TILED_ENTRY conv_cuda_tiled
#include "conv/conv_tiled_gpu.h"
