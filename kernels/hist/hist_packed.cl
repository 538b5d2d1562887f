/* hist_packed for OpenCL C: the shared text of hist_packed_gpu.h. */
#include "hist/hist_packed_gpu.h"
