// Shared by the rotate variants: the problem's defines, the launch geometry of the work-item kernels and the registration entry points.
#pragma once
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "common/portable_target.hpp"
#include "pimg/registry.hpp"
#include "pimg/variant.hpp"
#include "rotate_family.hpp"

namespace pimg::rotate {


// The knobs of the work-item kernels (OpenCL and CUDA).
struct GridKnobs {
  int block_x = 32, block_y = 8;  // work-group / thread block
  int items_x = 1, items_y = 1;   // output pixels per work item
  int spread = 0;                 // 0: neighbouring pixels; 1: BLOCK_X (BLOCK_Y) apart
};
std::vector<ParamDecl> grid_params();
// Throws PlanError when the block exceeds `max_group` items or the device's dimensions.
GridKnobs read_grid(const PlanContext& x, double max_group);
// The problem's defines, then BLOCK_X, BLOCK_Y, ITEMS_X, ITEMS_Y, SPREAD.
void add_grid_defines(LaunchPlan& plan, const Workload& w, const GridKnobs& k);
// dims 2; global = ceil(size / items) rounded up to the block; args in, out, width, height.
void set_grid(LaunchPlan& plan, const RotateSpec& s, const GridKnobs& k);

// The plan of kernels/rotate/rotate_omp.cpp: decomp 0 rows, 1 tiles (tile_x, tile_y).
std::vector<ParamDecl> omp_params();
LaunchPlan omp_plan(const PlanContext& x, int decomp);

// The host functions' arguments: in, out, then width, height, channels, planar, interp, fill, cos, sin.
std::vector<KernelArg> host_args(const RotateSpec& s);
// The spec a host function receives through those integer arguments.
RotateSpec spec_from_args(const std::int64_t* ints);

// The input as a 2-D image of 1-byte texels (interleaved rows w*channels wide, planes stacked vertically);
// PlanError when the device has no images (limit `support`, if named) or they are too small.
KernelArg image_arg(const RotateSpec& s, const PlanContext& x, const std::string& support);
// The plan of kernels/rotate/rotate_direct.cl (cl_direct; cl_image with image=1). Throws PlanError.
LaunchPlan cl_plan(const PlanContext& x, bool image);
// cuda_direct's and cuda_texture's parameters: the grid's, ldg (with_ldg), incr and pack.
std::vector<ParamDecl> cuda_params(bool with_ldg);
// The plan of kernels/rotate/rotate_cuda.cu (cuda_direct; cuda_texture with texture=1: the input as a
// texture object, no ldg knob). Throws PlanError.
LaunchPlan cuda_plan(const PlanContext& x, bool texture);

// The plan of the native call npp_rotate (the CUDA backend's native/npp_rotate.cpp) for samples of `depth`
// bytes (1: the family's images; 2: the probe's 16-bit index images): args in, out, width, height, planes,
// samples per pixel, interp, fill, depth, then the angle, shift x and shift y (npp_shift) as reals, then
// fill_timed (1: the nppiSet of the fill inside the timed region; 0: just before it).
// PlanError for a depth other than 1 or 2.
LaunchPlan npp_plan(const RotateSpec& s, int depth, bool fill_timed = true);

void register_serial(Registry& reg);
void register_opencv(Registry& reg);
std::unique_ptr<Variant> make_cl_direct();
std::unique_ptr<Variant> make_cl_image();
std::unique_ptr<Variant> make_omp_rows();
std::unique_ptr<Variant> make_omp_tiles();
std::unique_ptr<Variant> make_cuda_direct();
std::unique_ptr<Variant> make_cuda_texture();
std::unique_ptr<Variant> make_npp_rotate();
std::unique_ptr<Variant> make_gpu_scatter(const pix::PortableTarget& gpu);
std::unique_ptr<Variant> make_omp_scatter();
// The scatter variants' shared checks: PlanError unless nearest; the scratch of source numbers per pixel.
void check_nearest(const RotateSpec& s, const std::string& variant);
ScratchBuffer owner_buffer(const RotateSpec& s);

}  // namespace pimg::rotate
