// The report's time per run and device (a part of its Provenance): where each run's time went, from the
// stored evaluations alone (docs/measurement.md, "Where a run's time went").
#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "pimg/store.hpp"

namespace pimg::report_detail {

// Per run of `run_ids` and device: the search's contenders and the configurations the race dropped, the
// confirmation stage, ladders, whole programs and the rest of the device's span (set-up), each as a count,
// seconds and a share; and, where the race dropped any, what it saved by estimate. "" when `times` holds
// no evaluation of those runs. `device_name` labels a device as the rest of the report does.
std::string time_spent_section(const std::vector<EvaluationTime>& times, const std::vector<RunRecord>& runs,
                               const std::set<std::int64_t>& run_ids,
                               const std::function<std::string(const DeviceInfo&)>& device_name);

}  // namespace pimg::report_detail
