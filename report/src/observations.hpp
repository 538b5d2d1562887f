// What the observers and the whole-program stage stored (docs/observers.md), for the report's sections
// (whole program and crossover, transfers, memory footprint, counters, energy), `best --json` and
// `best --objective`: read from each row's metrics and from the rows of stage "cold".
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "metrics.hpp"
#include "pimg/ranking.hpp"
#include "pimg/store.hpp"

namespace pimg::report_detail {

// A whole-evaluation metric (seq -1) of a row, nullopt when not stored.
std::optional<double> metric_value(const ResultRow& r, const std::string& name);

// What `best --objective` ranks by: the median kernel time; end-to-end (the median kernel time plus the
// median upload and download, which is how host_mem is judged); the energy of one run (the timed runs'
// average watts times the median time); the time the result's writer ranked by (writer_objective_ms(),
// else the median). nullopt where a row lacks what the objective needs.
enum class Objective { time, end_to_end, energy, writer };
Objective objective_from_string(const std::string& s);  // throws std::invalid_argument
std::optional<double> objective_value(const ResultRow& r, Objective o);
const char* objective_unit(Objective o);

struct ObservationInput {
  const std::vector<const ResultRow*>& rows;  // the family's search rows
  const std::vector<Ranking>& rankings;       // per (problem, device)
  const std::vector<ResultRow>& cold;         // the family's whole-program rows (stage "cold")
  const ProblemLabels& labels;
  std::function<std::string(const DeviceInfo&)> device_name;
  int top = 10;
};

// The headings of the sections observation_sections() writes for this input (none when nothing was
// observed: rows of older stores give the report they gave before).
std::vector<std::string> observation_headings(const ObservationInput& in);
std::string observation_sections(const ObservationInput& in);

}  // namespace pimg::report_detail
