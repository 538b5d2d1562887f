/* conv_vec for OpenCL C: the portable body of conv_vec_body.h (see there), entry conv_vec. */
#define CONV_VEC_ENTRY conv_vec
#include "conv/conv_vec_body.h"
