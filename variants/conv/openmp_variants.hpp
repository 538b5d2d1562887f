// What the OpenMP conv variants share: the knobs of kernels/conv/conv_omp.cpp common to both
// decompositions (threads, schedule, chunk, unroll, arith, simd), the plan they build on, and the
// factories register_openmp_variants() (openmp_variants.cpp) registers.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "pimg/variant.hpp"

namespace pimg::conv {

// The parameters omp_rows and omp_tiles both declare.
std::vector<ParamDecl> omp_shared_parameters();

// The value of parameter `name` in c, else its default in decls, checked against its declaration
// (pimg::int_value, text_value); PlanError for a value outside it or of the wrong type.
Value omp_param(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);
std::int64_t omp_int_param(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);

// conv_omp's plan for decomposition `decomp` (0 rows, 1 tiles): entry, the problem's defines,
// DECOMP and the shared knobs, buffers in, out, weights, taps, lut and the four sizes.
// Throws PlanError for knob values outside their declarations.
LaunchPlan omp_conv_plan(const Workload& w, const Config& c, const std::vector<ParamDecl>& decls, int decomp);

std::unique_ptr<Variant> make_omp_rows();
std::unique_ptr<Variant> make_omp_tiles();
std::unique_ptr<Variant> make_omp_selftest();
// A self-test kernel with selftest_wrong_result_omp's arguments (in, out, weights, sizes).
std::unique_ptr<Variant> make_omp_selftest_variant(std::string name, std::string source, std::string entry,
                                                   std::string help);
std::unique_ptr<Variant> make_selftest_hang_omp();
std::unique_ptr<Variant> make_selftest_crash_omp();
std::unique_ptr<Variant> make_selftest_memory_omp();
std::unique_ptr<Variant> make_selftest_harness_omp();

}  // namespace pimg::conv
