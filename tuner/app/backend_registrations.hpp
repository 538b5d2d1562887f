// The backends' registrations (docs/design.md, "Adding a backend"): each folder tuner/backends/<name>/ defines
// register_<name>_backend() in its register.cpp, which adds the backend where it is built and, built or not, the
// language of the kernel sources it compiles and its portable GPU target. The table is generated from the folders
// (tuner/app/CMakeLists.txt), in the order each backend's CMakeLists.txt declares (PIMG_BACKEND_ORDER), so that
// the registry names no backend.
#pragma once
#include <string>
#include <vector>

#include "common/portable_target.hpp"
#include "pimg/registry.hpp"

namespace pimg {

struct BackendRegistration {
  std::string backend;  // its folder's name
  void (*add)(Registry& r, pix::PortableTargets& gpus);
};

// Every backend folder's registration, in the declared order.
const std::vector<BackendRegistration>& backend_registrations();

}  // namespace pimg
