/* hist_global for OpenCL C: the shared text of hist_global_gpu.h. */
#include "hist/hist_global_gpu.h"
