// The builtin registry's first device of a backend, opened once per test process and kept open: what the
// tests that evaluate on the host or OpenMP device share.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "pimg/registry.hpp"

namespace pimg::test {

inline Device& first_device(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Device>> open;
  std::unique_ptr<Device>& d = open[backend];
  if (!d) {
    const Backend* b = Registry::builtin().backend(backend);
    d = b->open(b->devices().at(0));
  }
  return *d;
}

}  // namespace pimg::test
