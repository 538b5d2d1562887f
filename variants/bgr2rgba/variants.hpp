// The bgr2rgba variants' factories (one file each) and what their GPU plans share: the buffers and
// sizes every kernel of kernels/bgr2rgba/bgr2rgba_gpu.h takes, with its knob defines.
#pragma once
#include "common/pix_common.hpp"
#include "pimg/registry.hpp"

namespace pimg::bgr2rgba {

// in, out, width, height as the arguments, PIXELS, TEMP and GROUPS as defines (1, 0, 1 when absent).
void finish_gpu_plan(LaunchPlan& plan, const Problem& p, int pixels, int temp, int groups);

// kernels/bgr2rgba/bgr2rgba.cu for CUDA, .cl for OpenCL.
inline std::string gpu_source(const pix::PortableTarget& gpu) { return "bgr2rgba/bgr2rgba" + gpu.extension; }

// Each registers its OpenCL and CUDA form (cl_<stem>, cuda_<stem>).
void register_grid(Registry& reg, const pix::PortableTargets& gpus);
void register_staged(Registry& reg, const pix::PortableTargets& gpus);
void register_vec16(Registry& reg, const pix::PortableTargets& gpus);
void register_omp(Registry& reg);
void register_serial(Registry& reg);
void register_opencv(Registry& reg);
void register_npp(Registry& reg);

}  // namespace pimg::bgr2rgba
