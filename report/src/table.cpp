// Markdown and plain-text rendering of report tables.
#include "table.hpp"

#include <algorithm>

#include "pimg/errors.hpp"

namespace pimg::report_detail {
namespace {

std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, std::size_t width, Table::Align align) {
  const std::string fill(width - std::min(width, display_width(s)), ' ');
  return align == Table::Align::left ? s + fill : fill + s;
}

}  // namespace

std::string md_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '\\': case '`': case '*': case '<': case '>': case '[': case ']': case '|':
        out += '\\';
        out += c;
        break;
      case '\n': case '\r': case '\t':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string md_unescape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add(std::vector<std::string> cells) {
  PIMG_CHECK(cells.size() == columns_.size(), "table row has the wrong number of cells");
  rows_.push_back(std::move(cells));
}

std::string Table::markdown() const {
  std::string out = "|";
  for (const auto& c : columns_) out += " " + md_escape(c.header) + " |";
  out += "\n|";
  for (const auto& c : columns_) out += c.align == Align::left ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : rows_) {
    out += "|";
    for (const auto& cell : row) out += " " + md_escape(cell) + " |";
    out += "\n";
  }
  return out;
}

std::string Table::text(const std::string& indent) const {
  std::vector<std::size_t> widths;
  for (const auto& c : columns_) widths.push_back(display_width(c.header));
  for (const auto& row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], display_width(row[i]));
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s = indent;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) s += "  ";
      s += pad(cells[i], widths[i], columns_[i].align);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::vector<std::string> headers;
  for (const auto& c : columns_) headers.push_back(c.header);
  std::string out = line(headers);
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace pimg::report_detail
