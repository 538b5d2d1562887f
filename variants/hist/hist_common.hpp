// Shared by the hist variants: the text knobs' choice index, device limits, and the factories
// register_hist() registers.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "conv/openmp_variants.hpp"
#include "hist_family.hpp"
#include "pimg/registry.hpp"
#include "register.hpp"

namespace pimg::hist {

// The index of the text knob `name`'s value (PlanContext::text_knob) among its declared choices.
int choice_index(const PlanContext& x, const std::string& name);
// A named device limit, or `fallback` when the backend does not report it or reports 0 or less (unlike
// PlanContext::limit, which takes a stated 0: hist's groups were always checked so).
double limit(const DeviceInfo& d, const std::string& name, double fallback);
// Throws PlanError when a group of `threads` items or `local_bytes` of local memory exceed the device.
void check_group(const DeviceInfo& d, std::size_t threads, std::size_t local_bytes);
inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The OpenMP knobs of hist_omp.cpp and histeq_omp.cpp alike: threads, schedule, chunk.
std::vector<ParamDecl> omp_parallel_params();
// THREADS, SCHED, CHUNK defines from a configuration of omp_parallel_params().
void add_omp_parallel_defines(LaunchPlan& plan, const PlanContext& x);

}  // namespace pimg::hist
