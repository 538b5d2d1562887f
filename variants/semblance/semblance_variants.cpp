// The semblance variants' shared pieces (semblance_variants.hpp): parameter reading, scalar
// arguments, and the OpenCL/CUDA knobs and plan of kernels/semblance/semblance_device.h.
#include "semblance_variants.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cstring>

extern "C" {
#include "semblance/semblance_core.h"
}

namespace pimg::semblance {
namespace {

constexpr std::size_t kCudaStaticShared = 48 * 1024;
constexpr std::size_t kCudaConstant = 64 * 1024;

std::size_t round_up(std::size_t a, std::size_t b) { return (a + b - 1) / b * b; }
bool pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

double limit(const DeviceInfo& d, const std::string& name, double fallback) {
  auto it = d.limits.find(name);
  return it == d.limits.end() || it->second <= 0 ? fallback : it->second;
}

// A buffer's values as a C initializer list (floats as exact hex literals).
std::string float_list(const HostBuffer& b) {
  std::vector<float> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), v.size() * 4);
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{}{:a}f", i ? "," : "", v[i]);
  return out;
}

std::string int_list(const HostBuffer& b) {
  std::vector<std::int32_t> v(b.bytes.size() / 4);
  std::memcpy(v.data(), b.bytes.data(), v.size() * 4);
  return fmt::format("{}", fmt::join(v, ","));
}

}  // namespace

void add_real_args(LaunchPlan& plan, const SembSpec& s) {
  for (float v : {s.t0, s.m0, s.h0, s.idt}) plan.args.push_back(KernelArg::real(v));
}

void add_host_grid_args(LaunchPlan& plan, const SembSpec& s) {
  plan.args = {KernelArg::buf("samples"), KernelArg::buf("geom"), KernelArg::buf("hdr"), KernelArg::buf("axes"),
               KernelArg::buf("out")};
  add_real_args(plan, s);
}

void add_problem_defines(LaunchPlan& plan, const Workload& w) {
  for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
}

std::vector<ParamDecl> device_params(DeviceApi api, bool argmax) {
  std::vector<ParamDecl> p = {
      int_choice("dims", 3, "1: the whole grid on one axis; 2: x over (D, E), y over (A, B, C); 3: x over (D, E), y over C, z over "
       "(A, B) (the seed's 3-D NDRange)", {1, 2, 3}),
      int_range("block_x", 32, "work-group / block size along x", 1, 1024),
      int_range("block_y", 1, "work-group / block size along y (1 when dims is 1)", 1, 1024),
      int_range("block_z", 1, "work-group / block size along z (1 unless dims is 3)", 1, 64),
      int_range("ppi", 1, "grid points per work item along E (they share the trace's geometry and quadratic term)", 1, 64),
      {"precompute", true, {"host", "kernel"}, std::string("host"),
       "per-trace midpoint, half-offset and their products from the host (the seed's hoisting) or computed "
       "from the raw headers in the kernel"},
      int_choice("inline", 1, "1: helpers forced inline (the seed's manual inlining); 0: called", {0, 1}),
      {"interp", true, {"seed", "simplified"}, std::string("seed"),
       "seed: interpol_linear as the seed wrote it; simplified: its algebraic simplification with the "
       "fraction hoisted out of the window loop"},
      {"geom_mem", true, {"global", "constant"}, std::string("global"),
       "where the per-trace geometry, headers and grid axes live"},
      {"window", true, {"private", "local"}, std::string("private"),
       "private: num and den arrays per item; local: the seed's register-pressure rewrite, num in "
       "local/shared memory and den folded into one sum"},
  };
  p.push_back({"map", true, {"grid", "seed"}, std::string("grid"),
               "grid: the mappings of dims; seed: seed 004's own, x over A (dims 1), y over B (dims 2), z over C "
               "(dims 3), the other dimensions looped inside each item"});
  p.push_back({"math", true, {"default", "mad", "fast"}, std::string("default"),
               "build options (seed 004 tried them): default; mad: -cl-mad-enable (CUDA --fmad=true); fast: "
               "-cl-fast-relaxed-math (CUDA --use_fast_math)"});
  if (api == DeviceApi::cuda) {
    p.push_back(int_choice("ldg", 1, "1: samples through the read-only data cache (__ldg)", {0, 1}));
    p.push_back(int_range("launch_bounds", 0, "0: no __launch_bounds__; N: at least N resident blocks per multiprocessor", 0, 32));
  }
  if (argmax)
    p.push_back(int_choice("final_block", 256, "work-group size of the final reduction over the groups' best points (a power of two)", {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  return p;
}

DeviceKnobs read_device_knobs(const PlanContext& x, DeviceApi api, bool argmax) {
  const std::vector<ParamDecl>& decls = x.params;
  DeviceKnobs k;
  k.dims = x.int_knob("dims");
  k.block_x = x.int_knob("block_x");
  k.block_y = x.int_knob("block_y");
  k.block_z = x.int_knob("block_z");
  k.ppi = x.int_knob("ppi");
  k.precomp = x.text_knob("precompute") == "host";
  k.inline_helpers = x.int_knob("inline");
  k.interp = x.text_knob("interp") == "simplified";
  k.geom_mem = x.text_knob("geom_mem") == "constant";
  k.window = x.text_knob("window") == "local";
  if (std::any_of(decls.begin(), decls.end(), [](const ParamDecl& d) { return d.name == "map"; }))
    k.seed_map = x.text_knob("map") == "seed";
  if (std::any_of(decls.begin(), decls.end(), [](const ParamDecl& d) { return d.name == "math"; })) {
    const std::string math = x.text_knob("math");
    k.math = math == "fast" ? 2 : math == "mad" ? 1 : 0;
  }
  if (api == DeviceApi::cuda) {
    k.ldg = x.int_knob("ldg");
    k.launch_bounds = x.int_knob("launch_bounds");
  }
  if (argmax) {
    k.final_block = x.int_knob("final_block");
    if (!pow2(k.block_x * k.block_y * k.block_z))
      throw PlanError(fmt::format("the arg-max reduction needs a power-of-two work-group, got {}x{}x{}", k.block_x,
                                  k.block_y, k.block_z));
  }
  if (k.dims < 3 && k.block_z != 1) throw PlanError(fmt::format("block_z must be 1 when dims is {}", k.dims));
  if (k.dims < 2 && k.block_y != 1) throw PlanError("block_y must be 1 when dims is 1");
  return k;
}

namespace {

// The knobs' define names, in the order knob_defines writes them, and where each lives in DeviceKnobs.
struct KnobName {
  const char* name;
  int DeviceKnobs::*field;
};
constexpr KnobName kKnobNames[] = {
    {"DIMS", &DeviceKnobs::dims},         {"BLOCK_X", &DeviceKnobs::block_x},
    {"BLOCK_Y", &DeviceKnobs::block_y},   {"BLOCK_Z", &DeviceKnobs::block_z},
    {"PPI", &DeviceKnobs::ppi},           {"PRECOMP", &DeviceKnobs::precomp},
    {"INLINE", &DeviceKnobs::inline_helpers}, {"INTERP", &DeviceKnobs::interp},
    {"GEOM_MEM", &DeviceKnobs::geom_mem}, {"WINDOW", &DeviceKnobs::window}};
constexpr KnobName kFinalBlock = {"FINAL_BLOCK", &DeviceKnobs::final_block};
constexpr KnobName kCudaKnobNames[] = {{"LDG", &DeviceKnobs::ldg}, {"LAUNCH_BOUNDS", &DeviceKnobs::launch_bounds}};

}  // namespace

std::vector<std::pair<std::string, std::string>> knob_defines(const DeviceKnobs& k, DeviceApi api, bool argmax) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const KnobName& n : kKnobNames) out.emplace_back(n.name, std::to_string(k.*n.field));
  out.emplace_back("ARGMAX", argmax ? "1" : "0");
  out.emplace_back(kFinalBlock.name, std::to_string(k.final_block));
  if (api == DeviceApi::cuda)
    for (const KnobName& n : kCudaKnobNames) out.emplace_back(n.name, std::to_string(k.*n.field));
  return out;
}

DeviceKnobs knobs_from_defines(const std::map<std::string, std::string>& defines, DeviceApi api) {
  DeviceKnobs k;
  auto read = [&](const KnobName& n) {
    auto it = defines.find(n.name);
    if (it == defines.end()) throw PlanError(fmt::format("no define {}", n.name));
    int v = 0;
    const char* end = it->second.data() + it->second.size();
    if (std::from_chars(it->second.data(), end, v).ptr != end || it->second.empty())
      throw PlanError(fmt::format("{} must be an integer, got '{}'", n.name, it->second));
    k.*n.field = v;
  };
  for (const KnobName& n : kKnobNames) read(n);
  read(kFinalBlock);
  if (api == DeviceApi::cuda)
    for (const KnobName& n : kCudaKnobNames) read(n);
  return k;
}

LaunchPlan device_plan(const SembSpec& s, const Workload& w, const DeviceKnobs& k, const DeviceInfo& d, DeviceApi api,
                       bool argmax) {
  const bool cuda = api == DeviceApi::cuda;
  const std::size_t group = static_cast<std::size_t>(k.block_x) * k.block_y * k.block_z;
  if (d.max_work_group_size > 0 && group > static_cast<std::size_t>(d.max_work_group_size))
    throw PlanError(fmt::format("work-group of {} items exceeds the device's {}", group, d.max_work_group_size));
  if (argmax && d.max_work_group_size > 0 && k.final_block > d.max_work_group_size)
    throw PlanError(fmt::format("final_block {} exceeds the device's {}", k.final_block, d.max_work_group_size));
  std::size_t shared = (k.window ? group * k.ppi * s.w * 4 : 0) + (argmax ? group * 12 : 0);
  if (argmax) shared = std::max<std::size_t>(shared, static_cast<std::size_t>(k.final_block) * 12);
  const std::size_t shared_limit =
      cuda ? kCudaStaticShared : (d.local_mem_bytes ? static_cast<std::size_t>(d.local_mem_bytes) : 32768);
  if (shared > shared_limit)
    throw PlanError(fmt::format("{} bytes of local memory exceed the device's {}", shared, shared_limit));
  const std::size_t small = w.input("geom").bytes.size() + w.input("hdr").bytes.size() + w.input("axes").bytes.size();
  if (k.geom_mem) {
    const std::size_t constant_limit =
        cuda ? kCudaConstant : static_cast<std::size_t>(limit(d, "max_constant_buffer_size", 65536));
    if (small > constant_limit)
      throw PlanError(fmt::format("{} bytes of geometry and axes exceed {} bytes of constant memory", small, constant_limit));
  }

  LaunchPlan plan;
  plan.entry = "semb_grid";
  add_problem_defines(plan, w);
  for (auto& define : knob_defines(k, api, argmax)) plan.defines.push_back(std::move(define));
  if (cuda) {
    if (k.geom_mem) {
      plan.defines.emplace_back("PIMG_GEOM_LIST", float_list(w.input("geom")));
      plan.defines.emplace_back("PIMG_HDR_LIST", int_list(w.input("hdr")));
      plan.defines.emplace_back("PIMG_AXES_LIST", float_list(w.input("axes")));
    }
  }

  // Items: x over (D, E blocks) (dims 2, 3) or everything (dims 1); with the seed's mappings x over A, y over
  // B, z over C.
  const std::size_t neg = (static_cast<std::size_t>(s.n[4]) + k.ppi - 1) / k.ppi;
  std::array<std::size_t, 3> items{1, 1, 1};
  if (k.seed_map) {
    items = {static_cast<std::size_t>(s.n[0]), k.dims >= 2 ? static_cast<std::size_t>(s.n[1]) : 1,
             k.dims >= 3 ? static_cast<std::size_t>(s.n[2]) : 1};
    plan.defines.emplace_back("SEED_MAP", "1");
  } else if (k.dims == 1) {
    items[0] = static_cast<std::size_t>(s.n[0]) * s.n[1] * s.n[2] * s.n[3] * neg;
  } else if (k.dims == 2) {
    items = {static_cast<std::size_t>(s.n[3]) * neg, static_cast<std::size_t>(s.n[0]) * s.n[1] * s.n[2], 1};
  } else {
    items = {static_cast<std::size_t>(s.n[3]) * neg, static_cast<std::size_t>(s.n[2]),
             static_cast<std::size_t>(s.n[0]) * s.n[1]};
  }
  plan.dims = k.dims;
  plan.local = {static_cast<std::size_t>(k.block_x), static_cast<std::size_t>(k.block_y),
                static_cast<std::size_t>(k.block_z)};
  std::size_t groups = 1;
  for (int dim = 0; dim < 3; ++dim) {
    plan.global[dim] = round_up(items[dim], plan.local[dim]);
    const std::size_t g = plan.global[dim] / plan.local[dim];
    if (cuda && dim > 0 && g > 65535)
      throw PlanError(fmt::format("{} blocks along {} exceed CUDA's 65535", g, dim == 1 ? "y" : "z"));
    if (g > 0x7fffffffu) throw PlanError(fmt::format("{} work-groups along dimension {}", g, dim));
    groups *= g;
  }
  if (groups > 0x7fffffffu) throw PlanError(fmt::format("{} work-groups in all", groups));
  plan.args = {KernelArg::buf("samples"), KernelArg::buf("geom"), KernelArg::buf("hdr"), KernelArg::buf("axes")};
  if (k.math == 1) plan.options.push_back(cuda ? "--fmad=true" : "-cl-mad-enable");
  if (k.math == 2) plan.options.push_back(cuda ? "--use_fast_math" : "-cl-fast-relaxed-math");
  if (argmax) {
    for (const char* name : {"part_idx", "part_sem", "part_stk"}) {
      plan.args.push_back(KernelArg::buf(name));
      plan.scratch.push_back({name, groups * 4});
    }
    LaunchStep final_step;
    final_step.entry = "semb_argmax_final";
    final_step.dims = 1;
    final_step.global = {static_cast<std::size_t>(k.final_block), 1, 1};
    final_step.local = {static_cast<std::size_t>(k.final_block), 1, 1};
    final_step.args = {KernelArg::buf("part_idx"), KernelArg::buf("part_sem"), KernelArg::buf("part_stk"),
                       KernelArg::buf("out"), KernelArg::integer(static_cast<std::int64_t>(groups))};
    plan.steps.push_back(std::move(final_step));
  } else {
    plan.args.push_back(KernelArg::buf("out"));
  }
  add_real_args(plan, s);
  return plan;
}

std::unique_ptr<Variant> make_device_variant(DeviceVariantSpec spec) {
  return make_variant({spec.name, "semblance", spec.backend, spec.source, spec.help, device_params(spec.api, spec.argmax),
                       [api = spec.api, argmax = spec.argmax](const PlanContext& x) {
                         const DeviceKnobs k = read_device_knobs(x, api, argmax);
                         return device_plan(spec_of(x.problem), x.workload, k, x.device, api, argmax);
                       }});
}

}  // namespace pimg::semblance
