// libpimg_cub.so's own part (pimg_cub.h): the default stream's wait and the CUDA error text. The families'
// CUB code (variants/<family>/cuda/native/*.cu) is compiled into the same library beside it.
#include <cuda_runtime.h>

#include "pimg_cub.h"

extern "C" int pimg_cub_synchronize(void) { return static_cast<int>(cudaDeviceSynchronize()); }

extern "C" const char* pimg_cub_error(int code) { return cudaGetErrorString(static_cast<cudaError_t>(code)); }
