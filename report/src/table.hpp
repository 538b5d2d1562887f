// A table of text cells rendered two ways: GitHub markdown (cells escaped) for the report, and
// padded columns for the terminal (`pimg-tune best`).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace pimg::report_detail {

// Escapes text for markdown prose and table cells: characters that start markup or end a cell are
// backslash-escaped and line breaks become spaces.
std::string md_escape(std::string_view text);
std::string md_unescape(std::string_view text);  // backslash escapes as plain text

class Table {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit Table(std::vector<Column> columns);
  void add(std::vector<std::string> cells);  // one cell per column
  bool empty() const { return rows_.empty(); }
  std::string markdown() const;
  std::string text(const std::string& indent = "") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace pimg::report_detail
