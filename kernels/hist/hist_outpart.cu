/* hist_outpart for CUDA (NVRTC): the shared text of hist_outpart_gpu.h. */
#include "hist/hist_outpart_gpu.h"
