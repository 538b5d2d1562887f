/* conv_direct for OpenCL C: the portable body of conv_direct_gpu.h (see there), entry conv_direct. */
#define CONV_DIRECT_ENTRY conv_direct
#include "conv/conv_direct_gpu.h"
