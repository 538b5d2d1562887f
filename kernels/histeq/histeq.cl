/* histeq for OpenCL C: the shared text of histeq_gpu.h. */
#include "histeq/histeq_gpu.h"
