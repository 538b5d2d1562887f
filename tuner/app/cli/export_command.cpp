// `pimg-tune export`: the rows of the filters (cli/selection.hpp) through the exporters of pimg/report.hpp into
// files written beside and renamed into place (cli/output.hpp).
#include "cli/export_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <vector>

#include "cli/output.hpp"
#include "cli/selection.hpp"
#include "pimg/errors.hpp"
#include "pimg/report.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

namespace fs = std::filesystem;

ExportCommand::ExportCommand(CLI::App& app, const std::string& default_db, const std::string& device_help,
                             const std::string& all_builds_help)
    : db_(default_db) {
  cmd_ = app.add_subcommand(
      "export", "export the best configurations (json, header), or results in Kernel Tuner's T4 format: one file per "
                "variant, device and problem with its search rows, as Kernel Tuner writes them (t4), or every stored "
                "row in one file, which import restores as stored (t4-all)");
  cmd_->add_option("--db", db_, "SQLite database")->capture_default_str();
  cmd_->add_option("--family", family_, "kernel family")->required();
  cmd_->add_option("--format", format_, "json | header | t4 | t4-all")
      ->capture_default_str()
      ->check(CLI::IsMember({"json", "header", "t4", "t4-all"}));
  cmd_->add_option("--device", device_, device_help);
  cmd_->add_option("--size", size_, "image size WxH");
  cmd_->add_option("--out", out_,
                   "file to write (default: standard output); t4: a directory (ending in /, or one that exists) "
                   "for its files, needed when the selection holds more than one");
  cmd_->add_option("--metadata", metadata_, "t4, t4-all: also write the T4 metadata file (hardware and software)");
  cmd_->add_flag("--all-builds", all_builds_, all_builds_help);
}

int ExportCommand::run(const Registry& reg) const {
  check_family(reg, "export", family_);
  check_size("--size", size_);
  const bool t4 = format_ == "t4" || format_ == "t4-all";
  if (!metadata_.empty() && !t4) throw UsageError("--metadata: only with --format t4 or t4-all");
  const bool out_dir = format_ == "t4" && !out_.empty() && (out_.back() == '/' || fs::is_directory(out_));
  if (!out_.empty()) check_output_path("--out", out_dir ? (fs::path(out_) / "x").string() : out_);
  if (!metadata_.empty()) check_output_path("--metadata", metadata_);
  Store store(db_, Store::Mode::read_only);
  const Filters filters{family_, device_, size_, all_builds_};
  std::size_t older = 0;
  auto rows = select_rows(store, reg, filters, true, t4, "export", &older);
  if (format_ == "t4-all") {  // all results: the whole-program (cold) runs too, so that an import loses nothing
    RowFilter in_family;
    in_family.family = family_;
    in_family.all_builds = all_builds_;
    auto cold = filter_rows(store.stage_rows("cold", in_family, true), reg, filters);
    rows.insert(rows.end(), std::make_move_iterator(cold.begin()), std::make_move_iterator(cold.end()));
  }
  fmt::print(stderr, "{}", older_builds_note(older, all_builds_));
  if (format_ == "t4") {
    const std::vector<T4File> files = export_t4_files(rows);
    if (files.empty()) throw UsageError(fmt::format("export: family '{}' has no search rows here to export", family_));
    if (!out_dir && files.size() > 1) {
      std::string which;
      for (const T4File& f : files) which += "\n  " + f.label;
      throw UsageError(fmt::format(
          "export --format t4 writes one file per variant, device and problem, as Kernel Tuner does, and this "
          "selection holds {}: give --out DIRECTORY/, narrow it (--device, --size), or use --format t4-all for one "
          "file of everything{}",
          files.size(), which));
    }
    for (const T4File& f : files) {
      if (!out_dir) {
        if (out_.empty())
          fmt::print("{}", f.text);
        else
          write_file(out_, f.text);
        continue;
      }
      fs::create_directories(out_);
      write_file(fs::path(out_) / f.name, f.text);
      fmt::print("{}: {} rows ({})\n", (fs::path(out_) / f.name).string(), f.rows, f.label);
    }
    if (!metadata_.empty()) write_file(metadata_, export_t4_metadata(rows, store.runs()));
    return 0;
  }
  const std::string text = format_ == "t4-all"   ? export_t4(rows)
                           : format_ == "header" ? export_header(rows)
                                                 : export_json(rows);
  if (out_.empty())
    fmt::print("{}", text);
  else
    write_file(out_, text);
  if (!metadata_.empty()) write_file(metadata_, export_t4_metadata(rows, store.runs()));
  return 0;
}

}  // namespace pimg::cli
