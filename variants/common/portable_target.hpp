// The backends that compile the portable GPU kernels (common/pix_portable.h: one kernel body in
// kernels/<family>/, compiled as its .cl and .cu): a family registers each portable formulation once per target,
// in the table's order. Each such backend adds its row (tuner/backends/<name>/register.cpp) and the registry
// (tuner/app/registry_builtin.cpp) gives the table, so that no family names a backend.
#pragma once
#include <string>
#include <vector>

namespace pimg::pix {

struct PortableTarget {
  std::string backend;    // the backend's registered name
  std::string prefix;     // the variant names' prefix: <prefix>_<stem>
  std::string extension;  // the kernel source's extension: kernels/<family>/<family><extension>
  // The compile options under which fp32 division and square root are correctly rounded, as a rule that must
  // match the host bit for bit needs (histeq_rule.h): OpenCL's -cl-fp32-correctly-rounded-divide-sqrt; none
  // where the compiler's default already is (NVRTC's -prec-div=true).
  std::vector<std::string> exact_fp32_options;
};
using PortableTargets = std::vector<PortableTarget>;

}  // namespace pimg::pix
