// The report's Output pictures section (docs/families.md "Output pictures"): per problem, thumbnails of the
// input, each device's best output and failed outputs with their differences, linked to the full PNGs that
// the tuner's picture stage wrote beside the report, from its manifest's entries alone.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "pimg/report.hpp"
#include "table.hpp"

namespace pimg {

using namespace report_detail;

std::string pictures_section(const std::vector<PictureEntry>& entries, const std::string& family,
                             const std::string& prefix) {
  std::map<std::string, std::vector<const PictureEntry*>> by_problem;  // in the manifest's order
  for (const PictureEntry& e : entries)
    if (family.empty() || e.family == family) by_problem[e.problem].push_back(&e);
  if (by_problem.empty()) return "";
  std::string md = "## Output pictures\n\n"
                   "Written by the tuner beside this report (`--report`): each problem's input, each device's best "
                   "configuration's output, and the output of configurations that failed validation with its "
                   "difference from the reference (agreeing pixels in dim grey, differing ones in red). Each "
                   "output comes from one more run of its configuration in a fresh process. Thumbnails link to the "
                   "full PNG.\n\n";
  // The input first, then the outputs: best, wrong, difference (each in the manifest's order).
  auto rank = [](const std::string& kind) {
    return kind == "input" ? 0 : kind == "best" ? 1 : kind == "wrong" ? 2 : 3;
  };
  for (auto& [problem, list] : by_problem) {
    std::stable_sort(list.begin(), list.end(),
                     [&](const PictureEntry* a, const PictureEntry* b) { return rank(a->kind) < rank(b->kind); });
    md += fmt::format("### Pictures: {}\n\n", md_escape(problem));
    // Written by hand: a table's cells are escaped, and the picture cell is a link around an image.
    md += "| picture | what | device | variant | configuration | note |\n| --- | --- | --- | --- | --- | --- |\n";
    for (const PictureEntry* e : list)
      md += fmt::format("| [![{}]({})]({}) | {} | {} | {} | {} | {} |\n", e->kind, prefix + e->thumb, prefix + e->file,
                        e->kind, md_escape(e->device), md_escape(e->variant), md_escape(e->config), md_escape(e->note));
    md += "\n";
  }
  return md;
}

}  // namespace pimg
