/* pimg-tune's HIP-to-CUDA mapping, kernel side: what a T1 kernel written for HIP (`#include "hip/hip_runtime.h"`,
   or Language "HIP") uses of HIP's names, as CUDA's, so NVRTC compiles it for an NVIDIA GPU. variants/user/t1_load.cpp
   puts this text in place of the include and refuses a kernel that uses a HIP name not defined here, naming it.
   HIP's own headers do the same on NVIDIA GPUs (__HIP_PLATFORM_NVIDIA__): its kernel language is CUDA's with these
   names. Host-side calls (hipMalloc, hipLaunchKernelGGL, ...) never reach a kernel file compiled alone. */
#ifndef PIMG_HIP_TO_CUDA
#define PIMG_HIP_TO_CUDA 1
#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define __HIPCC_RTC__ 1
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_SYMBOL(symbol) symbol
#endif
