// Shared by the semblance tests of every backend: small synthetic problems (a non-cubic grid, so a
// swapped index shows) and one validated evaluation of a configuration through pimg::evaluate
// (output poisoned with 0xA5, downloaded, compared by the family's rule).
#pragma once
#include <gtest/gtest.h>

#include "common/variant_matrix.hpp"
#include "pimg/evaluator.hpp"
#include "pimg/registry.hpp"

namespace pimg::sembtest {

inline const Family& family() { return *Registry::builtin().family("semblance"); }

inline const Variant& variant(const std::string& name) {
  const Variant* v = Registry::builtin().variant("semblance", name);
  if (!v) throw std::runtime_error("no variant semblance/" + name);
  return *v;
}

using testcommon::config;

// 40 traces of 700 samples, grid 3x4x5x4x7 (E odd, so blocks of points along E leave a remainder).
inline Problem small_problem(const std::string& grid = "3,4,5,4,7", const std::string& truth = "1,2,3,1,4") {
  return family().make_problem(40, 700, 1, {{"data", "synthetic"}, {"params", "synth"}, {"grid", grid},
                                            {"truth", truth}});
}

struct Prepared {
  Problem problem;
  Workload workload;
  std::vector<std::uint8_t> expected;
};

inline Prepared prepare(const Problem& p) {
  Workload w = family().make_workload(p);
  std::vector<std::uint8_t> expected = family().reference(p, w);
  return {p, std::move(w), std::move(expected)};
}

// One warm-up and one timed run, both validated.
inline EvalResult evaluate_on(Device& dev, const Prepared& prep, const std::string& name, const Config& c) {
  MeasureSpec measure = MeasureSpec::fixed(1, 1, 10);
  EvalContext ctx{family(), prep.problem, prep.workload, prep.expected, dev, measure};
  return evaluate(ctx, variant(name), c);
}

}  // namespace pimg::sembtest
