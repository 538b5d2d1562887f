// Reports are pure functions of the store: stored rows in, markdown and SVG plots out.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "pimg/replay.hpp"
#include "pimg/store.hpp"

namespace pimg {

struct ReportOptions {
  std::string family;        // empty: every family in the store
  int top = 10;              // rows of each top-N table
  std::string plot_prefix;   // file name prefix of the plots, e.g. "report" -> report-conv-sweep.svg
};

struct Report {
  std::string markdown;
  std::map<std::string, std::string> files;  // plot file name -> SVG text
};

Report make_report(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bandwidths,
                   const ReportOptions& opt);

// The ranked terminal table and the JSON of `pimg-tune best`, from the same rows.
std::string best_table(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top);
std::string best_json(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top);

// `pimg-tune strategies`: the replay comparison as a terminal table, and as a markdown section with
// a convergence plot per replay space (plot files named from plot_prefix).
std::string strategies_table(const std::vector<ReplayComparison>& comparisons);
Report strategies_report(const std::vector<ReplayComparison>& comparisons, const std::string& plot_prefix);

// `pimg-tune export`: the best ok configuration of a tuned variant per device and problem as JSON or
// as a C++ header of #defines, and every row in the T4 results format (rows with samples).
std::string export_json(const std::vector<ResultRow>& rows);
std::string export_header(const std::vector<ResultRow>& rows);
std::string export_t4(const std::vector<ResultRow>& rows);

}  // namespace pimg
