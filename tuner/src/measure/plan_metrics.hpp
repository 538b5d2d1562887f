// What a prepared plan measures besides kernel time (docs/observers.md): the device memory it allocated,
// the inputs' upload and the output's download as medians and GB/s, stored as metrics of the evaluation.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "pimg/result.hpp"

namespace pimg {

struct PlanMemory {
  std::size_t input_bytes = 0, output_bytes = 0, scratch_bytes = 0;  // output and scratch with their canaries
  double alloc_ms = 0;  // every allocation of the plan (and its planning between them), uploads excluded
};

// Sets the whole-evaluation metric `name` (seq -1), replacing an earlier value of it.
void set_metric(std::vector<Metric>& out, const std::string& name, const std::string& unit, double value);

void record_memory(std::vector<Metric>& out, const PlanMemory& m);
// `pass_ms`: each pass of uploading every input (the first one as a program would do it).
void record_uploads(std::vector<Metric>& out, std::size_t bytes, const std::vector<double>& pass_ms);
// `run_ms`: each run's download of the output so far.
void record_downloads(std::vector<Metric>& out, std::size_t bytes, const std::vector<double>& run_ms);

}  // namespace pimg
