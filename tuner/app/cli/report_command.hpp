// `pimg-tune report`: the markdown report with its plots, and the same as one HTML file beside it, written from the
// store (write_report, which a tuning run's --report also uses).
#pragma once
#include <CLI/CLI.hpp>

#include <cstddef>
#include <string>

#include "pimg/registry.hpp"
#include "pimg/store.hpp"

namespace pimg::cli {

// The pictures of `tune --report DIR/X.md` go to DIR/pictures (pimg/picture.hpp).
inline constexpr const char* kPicturesDir = "pictures";

// Writes the report, its plots beside it and the same as one self-contained HTML file (the markdown's
// name with .html); returns the plot count.
std::size_t write_report(Store& store, const std::string& family, const std::string& out_path, int top,
                         bool all_builds = false);

class ReportCommand {
 public:
  ReportCommand(CLI::App& app, const std::string& default_db, const std::string& all_builds_help);
  bool parsed() const { return cmd_->parsed(); }
  // Writes the report and says where; returns 0. Throws UsageError for bad input.
  int run(const Registry& reg) const;

 private:
  CLI::App* cmd_;
  std::string db_, family_, out_ = "report/pimg-report.md";
  int top_ = 10;
  bool all_builds_ = false;
};

}  // namespace pimg::cli
