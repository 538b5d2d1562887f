/* hist_packed for CUDA (NVRTC): the shared text of hist_packed_gpu.h. */
#include "hist/hist_packed_gpu.h"
