// The libraries of the native calls (NativeCall::library), by name and version, so a baseline's stored
// identity changes with the library it called: OpenCV as this build was compiled against, and the CUDA
// toolkit whose NPP and CUB the CUDA backend loads (sonames of its major version).
#pragma once
#if PIMG_HAVE_OPENCV
#include <opencv2/core/version.hpp>
#endif

namespace pimg::native {

#if PIMG_HAVE_OPENCV
inline constexpr const char* kOpenCv = "OpenCV " CV_VERSION;
#endif
#ifdef PIMG_CUDA_TOOLKIT_VERSION
inline constexpr const char* kCudaLibraries = "CUDA " PIMG_CUDA_TOOLKIT_VERSION " NPP/CUB";
#else
inline constexpr const char* kCudaLibraries = "CUDA NPP/CUB";
#endif

}  // namespace pimg::native
