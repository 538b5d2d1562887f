// NPP as a built-in of the CUDA backend: the filter a plan describes (from the conv problem's defines),
// with the kernel flipped because NPP's FilterBorder convolves (coefficients in reverse order), and the
// nppiFilterBorder_8u_C1R/C3R calls for interleaved, planar and valid-border images.
#pragma once
#include <string>
#include <vector>

#include "cuda_api.hpp"
#include "pimg/backend.hpp"

namespace pimg::cuda {

// The source path of NPP programs: compile() turns it into an NppProgram without NVRTC.
inline constexpr const char* kNppFilterSource = "builtin:npp_filter_border";

struct NppFilter {
  int k = 0, channels = 1, border = 0, divisor = 1;
  bool planar = false;
  std::vector<int> flipped;  // the K*K weights in reverse order, as NPP expects them
};

// From the plan's PIMG_K, PIMG_WEIGHTS, PIMG_DIVISOR, PIMG_CHANNELS, PIMG_PLANAR and PIMG_BORDER.
// Throws std::runtime_error naming a missing or malformed define, or a border NPP cannot do.
NppFilter npp_filter_from_plan(const LaunchPlan& plan);

// Filters `in` into `out` (device pointers) on the stream of `ctx`; `kernel` holds NppFilter::flipped on
// the device. Replicate borders use NPP_BORDER_REPLICATE over the whole image; the valid border filters
// the inner ROI, where no tap leaves the image. Throws std::runtime_error with the NPP status.
void run_npp_filter(const NppApi& npp, const NppStreamContext& ctx, const NppFilter& f, CUdeviceptr kernel,
                    CUdeviceptr in, CUdeviceptr out, int width, int height, int out_width, int out_height);

}  // namespace pimg::cuda
