// `pimg-tune report` and write_report (report_command.hpp): the store's rows, ladders, cold runs, times and
// pictures made into the markdown report, its plots and its HTML twin.
#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "cli/output.hpp"
#include "cli/selection.hpp"
#include "pimg/picture.hpp"
#include "pimg/report.hpp"

namespace fs = std::filesystem;

namespace pimg::cli {

std::size_t write_report(Store& store, const std::string& family, const std::string& out_path, int top,
                         bool all_builds) {
  RowFilter f;
  if (!family.empty()) f.family = family;
  f.all_builds = all_builds;
  ReportOptions opt;
  opt.family = family;
  opt.top = top;
  opt.plot_prefix = fs::path(out_path).stem().string();
  opt.runs = store.runs();
  std::size_t older = 0;
  opt.cold = store.stage_rows("cold", f);
  std::vector<ResultRow> rows = store.ranking_rows(f, false, &older);
  fmt::print(stderr, "{}", older_builds_note(older, all_builds));
  store.add_metrics(rows);
  opt.ladders = store.ladder_rows(f);
  opt.times = store.evaluation_times(f);
  fs::path dir = fs::path(out_path).parent_path();
  // The pictures a tuning run wrote beside the report (its picture stage), when there are any.
  if (std::ifstream manifest(dir / kPicturesDir / "pictures.tsv"); manifest) {
    opt.pictures = parse_pictures_manifest(std::string(std::istreambuf_iterator<char>(manifest), {}));
    opt.pictures_prefix = std::string(kPicturesDir) + "/";
  }
  Report r = make_report(rows, store.all_bandwidths(), opt);
  if (!dir.empty()) fs::create_directories(dir);
  write_file(out_path, r.markdown);
  for (const auto& [name, text] : r.files) write_file(dir / name, text);
  write_file(fs::path(out_path).replace_extension(".html"),
             report_html(r, "pimg-tune report" + (family.empty() ? std::string() : ": " + family)));
  return r.files.size();
}

ReportCommand::ReportCommand(CLI::App& app, const std::string& default_db, const std::string& all_builds_help)
    : db_(default_db) {
  cmd_ = app.add_subcommand(
      "report", "write the markdown report with plots from the database, and the same as one HTML file beside it");
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_option("--family", family_, "only this family");
  cmd_->add_option("--out", out_, "markdown file; plots and the .html are written beside it")->capture_default_str();
  cmd_->add_option("--top", top_, "rows of each top-N table")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd_->add_flag("--all-builds", all_builds_, all_builds_help);
}

int ReportCommand::run(const Registry& reg) const {
  check_family(reg, "report", family_);
  check_output_path("--out", out_);
  Store store(db_, Store::Mode::read_only);
  std::size_t plots = write_report(store, family_, out_, top_, all_builds_);
  fmt::print("report: {} and {} ({} plots)\n", out_, fs::path(out_).replace_extension(".html").string(), plots);
  return 0;
}

}  // namespace pimg::cli
