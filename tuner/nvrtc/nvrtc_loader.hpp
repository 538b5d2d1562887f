// NVRTC's C entry points, declared here as nvrtc.h declares them (the NVRTC C API is stable; the
// cubin calls exist since CUDA 11.1), and the library they come from, found and dlopen'ed at run time:
// $PIMG_NVRTC when set, else the newest libnvrtc.so[.N] in the loader's directories and the toolkit's.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace pimg::cuda {

// nvrtcResult: 0 is NVRTC_SUCCESS; other values are named by nvrtcGetErrorString.
using NvrtcStatus = int;
inline constexpr NvrtcStatus kNvrtcSuccess = 0;
inline constexpr NvrtcStatus kNvrtcErrorCompilation = 6;  // NVRTC_ERROR_COMPILATION
// nvrtcProgram: an opaque handle.
using NvrtcProgram = struct NvrtcProgramTag*;

struct NvrtcApi {
  const char* (*nvrtcGetErrorString)(NvrtcStatus) = nullptr;
  NvrtcStatus (*nvrtcVersion)(int* major, int* minor) = nullptr;
  NvrtcStatus (*nvrtcCreateProgram)(NvrtcProgram* prog, const char* src, const char* name, int num_headers,
                                    const char* const* headers, const char* const* include_names) = nullptr;
  NvrtcStatus (*nvrtcDestroyProgram)(NvrtcProgram* prog) = nullptr;
  NvrtcStatus (*nvrtcCompileProgram)(NvrtcProgram prog, int num_options, const char* const* options) = nullptr;
  NvrtcStatus (*nvrtcGetProgramLogSize)(NvrtcProgram prog, std::size_t* size) = nullptr;
  NvrtcStatus (*nvrtcGetProgramLog)(NvrtcProgram prog, char* log) = nullptr;
  NvrtcStatus (*nvrtcGetPTXSize)(NvrtcProgram prog, std::size_t* size) = nullptr;
  NvrtcStatus (*nvrtcGetPTX)(NvrtcProgram prog, char* ptx) = nullptr;
  NvrtcStatus (*nvrtcGetCUBINSize)(NvrtcProgram prog, std::size_t* size) = nullptr;
  NvrtcStatus (*nvrtcGetCUBIN)(NvrtcProgram prog, char* cubin) = nullptr;
  int major = 0, minor = 0;  // nvrtcVersion's answer
  std::string path;          // the file loaded
};

// Loaded once per process and kept. Null when no NVRTC loads, with `error` naming what was tried.
// PIMG_NVRTC=/path/libnvrtc.so.N loads exactly that file; otherwise every libnvrtc.so and
// libnvrtc.so.<version> of library_dirs() is opened and the one whose nvrtcVersion is highest is
// kept (the first found among equals).
const NvrtcApi* nvrtc_api(std::string& error);

// $CUDA_HOME/lib64, $CUDA_PATH/lib64 and /usr/local/cuda/lib64: where a toolkit's libraries live.
std::vector<std::string> toolkit_library_dirs();
// Where NVRTC is looked for, in order: $LD_LIBRARY_PATH, the directories of /etc/ld.so.conf (and its
// includes), the loader's defaults, then toolkit_library_dirs().
std::vector<std::string> library_dirs();

}  // namespace pimg::cuda
