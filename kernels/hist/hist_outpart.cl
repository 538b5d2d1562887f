/* hist_outpart for OpenCL C: the shared text of hist_outpart_gpu.h. */
#include "hist/hist_outpart_gpu.h"
