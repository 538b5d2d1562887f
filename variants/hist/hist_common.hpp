// Shared by the hist variants: parameter reading (the declared default when a configuration leaves a
// parameter out, PlanError for a value outside its declaration), device limits, and the
// factories register_hist() registers.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "conv/openmp_variants.hpp"
#include "hist_family.hpp"
#include "pimg/registry.hpp"
#include "register.hpp"

namespace pimg::hist {

// Integer parameter `name` of c (its declared default when absent), checked against its declaration
// (int_range, int_choice: pimg::int_value).
int int_in(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);
// Text parameter `name` of c (its declared default when absent), checked against its choices.
std::string text_of(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);
// The text choice's index among the declared choices.
int choice_index(const std::vector<ParamDecl>& decls, const std::string& name, const std::string& value);
// A named device limit, or `fallback` when the backend does not report it.
double limit(const DeviceInfo& d, const std::string& name, double fallback);
// Throws PlanError when a group of `threads` items or `local_bytes` of local memory exceed the device.
void check_group(const DeviceInfo& d, std::size_t threads, std::size_t local_bytes);
inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The OpenMP knobs of hist_omp.cpp and histeq_omp.cpp alike: threads, schedule, chunk.
std::vector<ParamDecl> omp_parallel_params();
// THREADS, SCHED, CHUNK defines from a configuration of omp_parallel_params().
void add_omp_parallel_defines(LaunchPlan& plan, const Config& c, const std::vector<ParamDecl>& decls);



}  // namespace pimg::hist
