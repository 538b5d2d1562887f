/* Seed 002's scatter rotation for OpenCL C: the shared text of rotate_scatter_gpu.h. */
#include "rotate/rotate_scatter_gpu.h"
