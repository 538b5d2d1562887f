// The report as one self-contained HTML page, for readers without a markdown viewer: the subset of
// markdown the report writes (headings, paragraphs, lists, tables, links, images) with the SVG plots
// inlined, so the page needs no other file.
#include <fmt/format.h>

#include <map>
#include <sstream>

#include "metrics.hpp"
#include "pimg/report.hpp"
#include "svg.hpp"
#include "table.hpp"

namespace pimg {
namespace {

using namespace report_detail;

constexpr const char* kStyle =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5;"
    "color:#1f2328;max-width:980px;margin:0 auto;padding:32px 45px}"
    "h1,h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}h1{font-size:2em}h2{font-size:1.5em;margin-top:1.5em}"
    "h3{font-size:1.25em}table{border-collapse:collapse;display:block;overflow:auto;max-width:100%;margin:0 0 16px;"
    "font-size:14px}th,td{border:1px solid #d1d9e0;padding:4px 8px}th{font-weight:600;background:#f6f8fa}"
    "tr:nth-child(2n) td{background:#f6f8fa}td.r,th.r{text-align:right}"
    "figure{margin:0 0 16px}figure svg{max-width:100%;height:auto}img.thumb{max-width:192px;image-rendering:pixelated}a{color:#0969da;text-decoration:none}";

// Records on <body> where the summary's table and its first row end, in CSS pixels from the top, so a check with a
// headless browser (scripts/report-screenshots.sh, tests/e2e/report_screen_test.cpp) can tell
// whether the answer is on the first screen.
constexpr const char* kLayoutProbe =
    "(function(){var h=document.getElementById('summary');if(!h)return;var e=h.nextElementSibling;"
    "while(e&&e.tagName!=='TABLE'&&e.tagName!=='H2')e=e.nextElementSibling;if(!e||e.tagName!=='TABLE')return;"
    "var y=function(x){return Math.ceil(x.getBoundingClientRect().bottom+window.scrollY);};var b=document.body;"
    "b.setAttribute('data-summary-bottom',y(e));var r=e.querySelector('tbody tr');"
    "if(r)b.setAttribute('data-summary-first-row-bottom',y(r));})();";

std::string html_escape(std::string_view s) { return svg::escape(s); }  // XML escaping suits HTML text

// Inline markdown: `code` spans, [text](#anchor) links and escapes.
std::string inline_html(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '`') {  // a code span, its text as it is (no links or escapes inside)
      const auto close = s.find('`', i + 1);
      if (close != std::string_view::npos) {
        out += "<code>" + html_escape(s.substr(i + 1, close - i - 1)) + "</code>";
        i = close + 1;
        continue;
      }
    }
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += html_escape(s.substr(i + 1, 1));
      i += 2;
      continue;
    }
    if (s.substr(i, 3) == "[![") {  // a thumbnail linked to its picture: [![alt](thumb)](file)
      const auto alt_end = s.find("](", i + 3);
      const auto thumb_end = alt_end == std::string_view::npos ? alt_end : s.find(")](", alt_end);
      const auto end = thumb_end == std::string_view::npos ? thumb_end : s.find(')', thumb_end + 3);
      if (end != std::string_view::npos) {
        out += fmt::format("<a href=\"{}\"><img class=\"thumb\" src=\"{}\" alt=\"{}\"></a>",
                           html_escape(s.substr(thumb_end + 3, end - thumb_end - 3)),
                           html_escape(s.substr(alt_end + 2, thumb_end - alt_end - 2)),
                           html_escape(s.substr(i + 3, alt_end - i - 3)));
        i = end + 1;
        continue;
      }
    }
    if (s[i] == '[') {
      const auto close = s.find("](", i);
      const auto end = close == std::string_view::npos ? close : s.find(')', close);
      if (end != std::string_view::npos) {
        out += fmt::format("<a href=\"{}\">{}</a>", html_escape(s.substr(close + 2, end - close - 2)),
                           html_escape(md_unescape(s.substr(i + 1, close - i - 1))));
        i = end + 1;
        continue;
      }
    }
    out += html_escape(s.substr(i, 1));
    ++i;
  }
  return out;
}

// The cells of a table line, split on unescaped '|'.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      cell += line.substr(i, 2);
      ++i;
    } else if (line[i] == '|') {
      const auto b = cell.find_first_not_of(' ');
      out.push_back(b == std::string::npos ? "" : cell.substr(b, cell.find_last_not_of(' ') - b + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

std::string svg_inline(const std::string& svg) {
  const auto start = svg.find("<svg");
  return start == std::string::npos ? html_escape(svg) : svg.substr(start);
}

}  // namespace

std::string report_html(const Report& report, const std::string& title) {
  std::vector<std::string> lines;
  {
    std::istringstream in(report.markdown);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::string body;
  std::string paragraph;
  std::map<std::string, int> ids;  // GitHub's anchors: a repeated heading gets "-1", "-2", ...
  auto flush = [&] {
    if (!paragraph.empty()) body += "<p>" + inline_html(paragraph) + "</p>\n";
    paragraph.clear();
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty()) {
      flush();
    } else if (l[0] == '#') {
      flush();
      const auto level = l.find_first_not_of('#');
      const std::string text = l.substr(level + 1);
      std::string id = gfm_anchor(md_unescape(text));
      if (const int n = ids[id]++; n > 0) id += fmt::format("-{}", n);
      body += fmt::format("<h{0} id=\"{1}\">{2}</h{0}>\n", level, html_escape(id), inline_html(text));
    } else if (l[0] == '|') {
      flush();
      const auto header = cells(l);
      std::vector<bool> right;
      if (i + 1 < lines.size())
        for (const auto& c : cells(lines[i + 1])) right.push_back(c.size() > 1 && c.back() == ':');
      auto cls = [&](std::size_t c) { return c < right.size() && right[c] ? " class=\"r\"" : ""; };
      body += "<table>\n<thead><tr>";
      for (std::size_t c = 0; c < header.size(); ++c) body += fmt::format("<th{}>{}</th>", cls(c), inline_html(header[c]));
      body += "</tr></thead>\n<tbody>\n";
      for (i += 2; i < lines.size() && !lines[i].empty() && lines[i][0] == '|'; ++i) {
        body += "<tr>";
        const auto row = cells(lines[i]);
        for (std::size_t c = 0; c < row.size(); ++c) body += fmt::format("<td{}>{}</td>", cls(c), inline_html(row[c]));
        body += "</tr>\n";
      }
      body += "</tbody>\n</table>\n";
      --i;
    } else if (l.rfind("- ", 0) == 0) {
      flush();
      body += "<ul>\n";
      for (; i < lines.size() && (lines[i].rfind("- ", 0) == 0 || lines[i].rfind("  - ", 0) == 0); ++i) {
        const bool nested = lines[i][0] == ' ';
        const bool next_nested = i + 1 < lines.size() && lines[i + 1].rfind("  - ", 0) == 0;
        if (nested && (i == 0 || lines[i - 1][0] != ' ')) body += "<ul>\n";
        body += "<li>" + inline_html(lines[i].substr(nested ? 4 : 2));
        if (!next_nested) body += "</li>\n";
        if (nested && !next_nested) body += "</ul></li>\n";
      }
      body += "</ul>\n";
      --i;
    } else if (l.rfind("![", 0) == 0) {
      flush();
      const auto close = l.find("](");
      std::string file = l.substr(close + 2, l.rfind(')') - close - 2);
      if (file.size() > 1 && file.front() == '<') file = file.substr(1, file.size() - 2);
      auto it = report.files.find(file);
      body += "<figure>" + (it == report.files.end() ? html_escape(file) : svg_inline(it->second)) + "</figure>\n";
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + l;
    }
  }
  flush();
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<style>{}</style>\n</head>\n"
      "<body>\n{}<script>{}</script>\n</body>\n</html>\n",
      html_escape(title), kStyle, body, kLayoutProbe);
}

}  // namespace pimg
