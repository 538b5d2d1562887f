// Shared by the OpenCL conv variants (cl_*.cpp): their parameter declarations, the knobs read from a
// configuration and checked against the device (PlanError when they cannot run there), and the
// launch geometry and scalar arguments every conv kernel takes.
#pragma once
#include <memory>
#include <vector>

#include "conv_family.hpp"
#include "variant_base.hpp"

namespace pimg::conv {

// A configuration's compile-time knobs, as the kernels' defines take them.
struct ClKnobs {
  int block_x = 16, block_y = 8;  // work-group size
  int items_x = 1, items_y = 1;   // output pixels per work item
  int filter_mem = 1;             // FILTER_MEM: 0 global, 1 constant, 2 private literals
  int unroll = 1;                 // UNROLL: #pragma unroll on the tap loops
  int arith = 0;                  // ARITH: 0 multiply, 1 lookup table (cl_direct only)
};

// block_x and block_y only (the self-test variants).
std::vector<ParamDecl> cl_block_params();
// block_x, block_y, items_x, items_y, filter_mem, unroll, and arith when with_arith.
std::vector<ParamDecl> cl_knob_params(bool with_arith);

// The knobs of the configuration (declared defaults for parameters it leaves out), checked for range and
// against the device's work-group limits (PlanContext::check_group). Throws PlanError.
ClKnobs cl_read_knobs(const PlanContext& x);
// Throws PlanError when `bytes` of __constant arguments exceed max_constant_buffer_size.
void cl_check_constant_bytes(std::size_t bytes, const PlanContext& x);

// The problem's defines, then BLOCK_X, BLOCK_Y, ITEMS_X, ITEMS_Y, FILTER_MEM, UNROLL (and ARITH).
void cl_add_defines(LaunchPlan& plan, const Workload& w, const ClKnobs& k, bool with_arith);
// dims 2; global = ceil(out / ITEMS) rounded up to the block; local = the block. PlanError for a batch.
void cl_set_geometry(LaunchPlan& plan, const ConvSpec& s, const ClKnobs& k);
// cl_direct's: the same in x and y, the batch's images in z (get_group_id(2)), with channel_z 1 the
// channels in the work-group's z (get_local_id(2)); PlanError past max_group items (0: unchecked).
void cl_set_direct_geometry(LaunchPlan& plan, const ConvSpec& s, const ClKnobs& k, int channel_z, double max_group);

std::unique_ptr<Variant> make_cl_direct();
std::unique_ptr<Variant> make_cl_tiled();
std::unique_ptr<Variant> make_cl_image();
std::unique_ptr<Variant> make_cl_vec();
// A self-test kernel with cl_selftest's arguments (in, weights, out, sizes), one pixel per item.
std::unique_ptr<Variant> make_cl_selftest(std::string name, std::string source, std::string entry, std::string help);
std::unique_ptr<Variant> make_selftest_compile_error();
std::unique_ptr<Variant> make_selftest_hang();
std::unique_ptr<Variant> make_selftest_crash();
std::unique_ptr<Variant> make_selftest_memory();
std::unique_ptr<Variant> make_selftest_wrong_result();

}  // namespace pimg::conv
