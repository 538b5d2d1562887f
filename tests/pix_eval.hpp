// Shared by the bgr2rgba, flip and maxpool tests: a problem of any registered family, and one
// evaluation of a variant configuration through pimg::evaluate (output poisoned with 0xA5 before the
// run, downloaded and compared exactly with the family's reference after it).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "common/variant_matrix.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"

namespace pimg::pixtest {

inline const Registry& registry() { return Registry::builtin(); }

inline Problem problem(const std::string& family, int width, int height, int channels,
                       std::map<std::string, std::string> attrs = {}) {
  return registry().family(family)->make_problem(width, height, channels, std::move(attrs));
}

using testcommon::config;

// The first device of a built-in backend, opened on first use and kept for the whole process.
inline Device& open_device(const std::string& backend) {
  static std::map<std::string, std::unique_ptr<Device>> devices;
  auto& d = devices[backend];
  if (!d) {
    const Backend* b = registry().backend(backend);
    d = b->open(b->devices().at(0));
  }
  return *d;
}

// One warm-up and one timed run, both validated.
inline EvalResult evaluate_variant(Device& device, const Problem& p, const std::string& variant, const Config& c) {
  const Family& family = *registry().family(p.family);
  const Workload w = family.make_workload(p);
  const Variant* v = registry().variant(p.family, variant);
  if (!v) throw std::runtime_error("no variant " + p.family + "/" + variant);
  const std::vector<std::uint8_t> expected = family.reference(p, w, v->validation_rule());
  MeasureSpec measure = MeasureSpec::fixed(1, 1, 10);
  EvalContext ctx{family, p, w, expected, device, measure};
  return evaluate(ctx, *v, c);
}

}  // namespace pimg::pixtest
