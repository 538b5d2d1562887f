// Internal to `pimg-tune report` (report.cpp, report_overview.cpp, report_results.cpp, report_failures.cpp): one
// family's part of the report, written section by section into the report's markdown and plots.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics.hpp"
#include "observations.hpp"
#include "pimg/ranking.hpp"
#include "pimg/report.hpp"

namespace pimg::report_detail {

class FamilyReport {
 public:
  FamilyReport(std::string family, std::vector<const ResultRow*> rows, std::vector<Ranking> rankings,
               const BandwidthTable& bw, const ReportOptions& opt, Report& out);
  void write();

 private:
  void summary();
  void contents();
  void provenance();
  void devices();
  void sweeps();
  void problems();
  void problem_on_device(const Problem& problem, const DeviceKey& dk, const std::vector<const ResultRow*>& rows,
                         bool plot);
  void top_chart(const Problem& problem, const std::string& device, const std::vector<const ResultRow*>& shown,
                 const Ranking* ranking);
  const Ranking* ranking_of(const Problem& problem, const DeviceKey& dk) const;
  std::string problem_heading(const Problem& problem, const DeviceKey& dk) const;
  std::string device_name(const DeviceInfo& d) const {
    auto it = labels_.find(device_key(d));
    return it == labels_.end() ? device_label(d) : it->second;
  }
  void sensitivity();
  ObservationInput observed() const {
    return {rows_, rankings_, opt_.cold, problem_labels_, [this](const DeviceInfo& d) { return device_name(d); }, opt_.top};
  }
  void failures();
  void how_to_read();
  std::string add_plot(const std::string& kind, const std::string& detail, std::string svg);
  std::optional<double> serial_ms(const Problem& p) const;
  std::size_t top_count(std::size_t n) const { return opt_.top > 0 ? std::min<std::size_t>(n, opt_.top) : n; }

  std::string family_;
  std::vector<const ResultRow*> rows_;  // search-stage rows, in sorted_rows() order
  std::vector<Ranking> rankings_;       // per (problem, device), from both stages
  ProblemLabels problem_labels_;
  const BandwidthTable& bw_;
  const ReportOptions& opt_;
  Report& out_;
  std::string& md_;
  std::map<DeviceKey, DeviceInfo> devices_;
  std::map<DeviceKey, std::string> labels_;
  std::string unit_;
};

}  // namespace pimg::report_detail
