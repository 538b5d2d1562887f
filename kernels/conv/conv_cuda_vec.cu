/* conv_cuda_vec for CUDA (NVRTC): the portable body of conv_vec_body.h (see there), entry conv_cuda_vec. */
#define CONV_VEC_ENTRY conv_cuda_vec
#include "conv/conv_vec_body.h"
