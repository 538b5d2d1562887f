/* hist_global for CUDA (NVRTC): the shared text of hist_global_gpu.h. */
#include "hist/hist_global_gpu.h"
