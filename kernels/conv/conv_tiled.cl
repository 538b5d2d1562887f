/* conv_tiled for OpenCL C: the portable body of conv_tiled_gpu.h (see there), entry conv_tiled. */
#define CONV_TILED_ENTRY conv_tiled
#include "conv/conv_tiled_gpu.h"
