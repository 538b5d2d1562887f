// Reports are pure functions of the store: stored rows in, markdown and SVG plots out.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "pimg/picture.hpp"
#include "pimg/replay.hpp"
#include "pimg/store.hpp"

namespace pimg {

struct ReportOptions {
  std::string family;        // empty: every family in the store
  int top = 10;              // rows of each top-N table
  std::string plot_prefix;   // file name prefix of the plots, e.g. "report" -> report-conv-sweep.svg
  std::vector<RunRecord> runs;  // the store's runs: the provenance of the rows (Store::runs())
  std::vector<ResultRow> cold;  // the whole-program runs (Store::stage_rows("cold")), with their metrics
  std::vector<LadderRow> ladders;  // the store's ladder steps (Store::ladder_rows()): the Ladders section
  std::vector<EvaluationTime> times;  // every evaluation's time (Store::evaluation_times()): time per run and device
  // The pictures beside the report (the manifest the tuner's picture stage wrote, pimg/picture.hpp), their
  // paths relative to the report's directory after `pictures_prefix` ("pictures/"): the Output pictures section.
  std::vector<PictureEntry> pictures;
  std::string pictures_prefix;
};

struct Report {
  std::string markdown;
  std::map<std::string, std::string> files;  // plot file name -> SVG text
};

// `rows`: search and confirmation rows (Store::ranking_rows()); the summary's winners come from
// rank_all() (pimg/ranking.hpp), every other section from the search rows; rows with metrics
// (Store::add_metrics) and opt.cold add the sections on transfers, footprint, counters, energy and whole programs.
Report make_report(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bandwidths,
                   const ReportOptions& opt);

// The Ladders section (ladder.cpp) of one family's report ("" for every family): per ladder and problem,
// each step's time, interval, speed-ups over the previous and the first step, and method; "" when none.
std::string ladder_section(const std::vector<LadderRow>& rows, const std::string& family);

// The Output pictures section (pictures.cpp) of one family's report ("" for every family): per problem a
// table of thumbnails (`prefix` + thumb) linked to the full pictures; "" when there are none.
std::string pictures_section(const std::vector<PictureEntry>& entries, const std::string& family,
                             const std::string& prefix);

// The report as one self-contained HTML page: the markdown's headings, paragraphs, lists and tables,
// each plot's SVG inlined from `files`, a little CSS for a readable page.
std::string report_html(const Report& report, const std::string& title);

// The ranked terminal table and the JSON of `pimg-tune best`, from the same rows.
std::string best_table(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top);
std::string best_json(const std::vector<ResultRow>& rows, const std::vector<BandwidthRow>& bw, int top,
                      const std::vector<ResultRow>& cold = {});
// `best --objective end-to-end|energy`: the ok search rows of each (problem, device) that have what the
// objective needs (docs/observers.md), ranked by it, as a table or as JSON.
std::string best_objective_table(const std::vector<ResultRow>& rows, const std::string& objective, int top);
std::string best_objective_json(const std::vector<ResultRow>& rows, const std::string& objective, int top);

// `pimg-tune strategies`: the replay comparison as a terminal table, and as a markdown section with
// a convergence plot per replay space (plot files named from plot_prefix).
std::string strategies_table(const std::vector<ReplayComparison>& comparisons);
// The same as JSON (`strategies --json`): per space its size, optimum, objective, priors and seeds, and per strategy
// the evaluations to 5% and 1%, the fraction of the optimum at each budget (mean, sd, worst, 10th percentile) and
// the time-based score with its interval.
std::string strategies_json(const std::vector<ReplayComparison>& comparisons);
Report strategies_report(const std::vector<ReplayComparison>& comparisons, const std::string& plot_prefix);

// `pimg-tune export`: the winner (pimg/ranking.hpp) of each device and problem as JSON or as a C++
// header selecting by target device with a default (as Kernel Tuner's create_device_targets), and
// rows in the T4 results format the way Kernel Tuner writes it (times in milliseconds,
// `metadata.timeunit`), with the T4 metadata file (hardware and software) beside it.
std::string export_json(const std::vector<ResultRow>& rows);
std::string export_header(const std::vector<ResultRow>& rows);
// Every row given (every stage, variant, device and problem) in one T4 document, `variant` among each
// configuration's parameters: what `import` restores as stored (`--format t4-all`).
std::string export_t4(const std::vector<ResultRow>& rows);
// One T4 file as Kernel Tuner writes one: a kernel (variant) on a device for a problem, its search rows only, the
// configuration its parameters only (`--format t4`). Named <family>_<variant>_<backend>-<device>_<W>x<H>_<8 hex
// digits of the problem and driver>_T4.json; in the order of (problem, device, variant).
struct T4File {
  std::string name;
  std::string label;  // "omp_rows on openmp:AMD EPYC 7B13, conv 256x192 ..." for what the command prints
  std::size_t rows = 0;
  std::string text;
};
std::vector<T4File> export_t4_files(const std::vector<ResultRow>& rows);
std::string export_t4_metadata(const std::vector<ResultRow>& rows, const std::vector<RunRecord>& runs);

}  // namespace pimg

namespace pimg {

// `pimg-tune watch`: one screen about a run in progress, from the store alone: the run (host, command,
// start), how many evaluations it stored and how fast, when the last one came, the best so far per
// problem and device (rank_all over the run's rows), and its failures by status with the latest ones.
std::string watch_screen(const RunRecord& run, const std::vector<ResultRow>& run_rows, const std::string& now_utc);
// The same as one JSON object (`watch --json`): the run, its counts by status, the best so far of each (problem,
// device) and the latest failures.
std::string watch_json(const RunRecord& run, const std::vector<ResultRow>& run_rows);

}  // namespace pimg
