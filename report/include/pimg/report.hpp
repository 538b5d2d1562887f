// Reports are pure functions of the store: stored rows in, markdown and SVG plots out.
#pragma once
#include <map>
#include <string>
#include <vector>

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

}  // namespace pimg
