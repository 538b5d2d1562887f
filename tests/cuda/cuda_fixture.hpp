// Shared by the CUDA tests: a registry holding the conv family and the CUDA variants (independent of
// what the built-in registry lists), the problem matrix, and per-variant samples of configurations in
// which every knob value appears at least once.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/h100.hpp"
#include "common/variant_matrix.hpp"
#include "conv/conv_family.hpp"
#include "conv/cuda_common.hpp"
#include "pimg/registry.hpp"

namespace pimg::cudatest {

inline const Registry& registry() {
  static const Registry& reg = *[] {
    auto* r = new Registry;
    r->add_family(std::make_unique<conv::ConvFamily>());
    conv::register_cuda_variants(*r);
    return r;
  }();
  return reg;
}
// The first CUDA device, opened once; null without one.
inline Device* gpu() {
  static const std::unique_ptr<Device> dev = []() -> std::unique_ptr<Device> {
    const Backend* b = Registry::builtin().backend("cuda");
    if (!b || !b->status().available || b->devices().empty()) return nullptr;
    return b->open(b->devices().front());
  }();
  return dev.get();
}
inline const Family& conv_family() { return *registry().family("conv"); }
inline const Variant& variant(const std::string& name) {
  const Variant* v = registry().variant("conv", name);
  if (!v) throw std::runtime_error("no variant conv/" + name);
  return *v;
}

// What the CUDA backend reports for an H100 (compute capability 9.0), as far as plans read it.
inline DeviceInfo sm90_device() {
  DeviceInfo d = testcommon::h100_device(
      "NVIDIA H100 (test description)",
      {{"max_work_group_size", 1024},   {"max_threads_per_block", 1024},  {"shared_mem_per_block", 49152},
       {"local_mem_size", 49152},       {"compute_capability", 90},       {"max_constant_buffer_size", 65536},
       {"max_work_item_size_0", 1024},  {"max_work_item_size_1", 1024},   {"max_work_item_size_2", 64},
       {"max_grid_size_1", 65535},      {"image_support", 1},             {"image2d_max_width", 131072},
       {"image2d_max_height", 65536}},
      132, 49152);
  d.platform = "CUDA sm_90";
  return d;
}

using testcommon::config;
using testcommon::kBorders;
using testcommon::kFilters;
using testcommon::kShapes;
using testcommon::Shape;

inline Problem make_problem(const Shape& shape, const char* border, const char* filter, int width = 37,
                            int height = 23) {
  return conv_family().make_problem(width, height, shape.channels,
                                    {{"layout", shape.layout}, {"border", border}, {"filter", filter}});
}

// cuda_direct: filter_mem, unroll, arith, launch_bounds, maxrregcount, inline, wide and host_mem each
// take every value; items 1 and 2 in both directions; several block shapes.
inline std::vector<Config> direct_configs() {
  return {
      config({{"block_x", 32}, {"block_y", 4}, {"items_x", 1}, {"items_y", 1}, {"filter_mem", "global"}, {"unroll", 1},
              {"arith", "mul"}, {"launch_bounds", 0}, {"maxrregcount", 0}, {"inline", 1}, {"wide", 0},
              {"host_mem", "pageable"}}),
      config({{"block_x", 16}, {"block_y", 8}, {"items_x", 2}, {"items_y", 2}, {"filter_mem", "constant"}, {"unroll", 0},
              {"arith", "lut"}, {"launch_bounds", 2}, {"maxrregcount", 32}, {"inline", 0}, {"wide", 0},
              {"host_mem", "pinned"}}),
      config({{"block_x", 64}, {"block_y", 2}, {"items_x", 1}, {"items_y", 2}, {"filter_mem", "private"}, {"unroll", 1},
              {"arith", "lut"}, {"launch_bounds", 0}, {"maxrregcount", 0}, {"inline", 0}, {"wide", 0},
              {"host_mem", "pageable"}}),
      config({{"block_x", 32}, {"block_y", 4}, {"items_x", 1}, {"items_y", 1}, {"filter_mem", "constant"}, {"unroll", 1},
              {"arith", "mul"}, {"launch_bounds", 1}, {"maxrregcount", 0}, {"inline", 1}, {"wide", 1},
              {"host_mem", "pinned"}}),
      config({{"block_x", 8}, {"block_y", 8}, {"items_x", 2}, {"items_y", 2}, {"filter_mem", "private"}, {"unroll", 0},
              {"arith", "lut"}, {"launch_bounds", 0}, {"maxrregcount", 64}, {"inline", 0}, {"wide", 1},
              {"host_mem", "pageable"}}),
      config({{"block_x", 16}, {"block_y", 2}, {"items_x", 1}, {"items_y", 2}, {"filter_mem", "global"}, {"unroll", 1},
              {"arith", "lut"}, {"launch_bounds", 4}, {"maxrregcount", 0}, {"inline", 1}, {"wide", 1},
              {"host_mem", "pageable"}}),
  };
}

// cuda_tiled and cuda_texture (no arith, no wide).
inline std::vector<Config> knob_configs() {
  return {
      config({{"block_x", 32}, {"block_y", 4}, {"items_x", 1}, {"items_y", 1}, {"filter_mem", "global"}, {"unroll", 1},
              {"launch_bounds", 0}, {"maxrregcount", 0}, {"inline", 1}, {"host_mem", "pageable"}}),
      config({{"block_x", 16}, {"block_y", 8}, {"items_x", 2}, {"items_y", 2}, {"filter_mem", "constant"}, {"unroll", 0},
              {"launch_bounds", 2}, {"maxrregcount", 32}, {"inline", 0}, {"host_mem", "pinned"}}),
      config({{"block_x", 8}, {"block_y", 8}, {"items_x", 2}, {"items_y", 1}, {"filter_mem", "private"}, {"unroll", 1},
              {"launch_bounds", 1}, {"maxrregcount", 0}, {"inline", 0}, {"host_mem", "pageable"}}),
  };
}

inline std::vector<Config> configs_for(const std::string& variant) {
  if (variant == "cuda_direct") return direct_configs();
  if (variant == "npp_filter")
    return {config({{"host_mem", "pageable"}}), config({{"host_mem", "pinned"}})};
  return knob_configs();
}

}  // namespace pimg::cudatest
