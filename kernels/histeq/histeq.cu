/* histeq for CUDA (NVRTC): the shared text of histeq_gpu.h. */
#include "histeq/histeq_gpu.h"
