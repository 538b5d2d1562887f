// Layout of the report's plots: margins, axes, grid lines, marks and legends.
#include "charts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "svg.hpp"

namespace pimg::charts {
namespace {

using svg::Anchor;
using svg::Document;
using svg::Scale;

constexpr double kFont = 12;
constexpr double kSmall = 11;
constexpr const char* kGrid = "#e3e3e3";
constexpr const char* kAxis = "#333333";
constexpr std::size_t kMaxLabelChars = 72;
constexpr std::size_t kMaxDataTicks = 12;
constexpr double kPageWidth = 900;  // a rendered markdown page's text column, in CSS pixels  // up to this many x values, the ticks are the data's own

std::string shorten(const std::string& s, std::size_t max_chars = kMaxLabelChars) {
  if (s.size() <= max_chars) return s;
  std::size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\u2026";
}

// Horizontal grid lines and labels of a y scale spanning pixel rows [y_top, y_bottom].
void y_axis(Document& d, const Scale& ys, double x0, double x1, double y_top, double y_bottom) {
  for (double t : ys.ticks()) {
    const double y = ys(t);
    d.line(x0, y, x1, y, kGrid);
    d.text(x0 - 6, y + 4, Scale::tick_label(t), kSmall, Anchor::end);
  }
  d.line(x0, y_top, x0, y_bottom, kAxis);
}

// Vertical grid lines and labels of an x scale spanning pixel columns [x0, x1]; a label too close
// to the previous one is left out.
void x_axis(Document& d, const Scale& xs, double x0, double x1, double y_top, double y_bottom) {
  double last = -1e9;
  for (double t : xs.ticks()) {
    const double x = xs(t);
    d.line(x, y_top, x, y_bottom, kGrid);
    const std::string label = Scale::tick_label(t);
    if (x - last < svg::text_width(label, kSmall) + 8) continue;
    d.text(x, y_bottom + 16, label, kSmall, Anchor::middle);
    last = x;
  }
  d.line(x0, y_bottom, x1, y_bottom, kAxis);
}

double legend_width(const std::vector<std::string>& names) {
  double w = 0;
  for (const auto& n : names) w = std::max(w, svg::text_width(n, kFont));
  return names.empty() ? 0 : w + 44;
}

// A legend at (x, y): one row per name with a sample of its colour (a line or a square).
void legend(Document& d, double x, double y, const std::vector<std::string>& names,
            const std::vector<bool>& dashed, bool lines) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double cy = y + 20.0 * static_cast<double>(i);
    if (lines) {
      d.line(x, cy, x + 24, cy, svg::color(i), 2, i < dashed.size() && dashed[i]);
      d.circle(x + 12, cy, 3.5, svg::color(i));
    } else {
      d.rect(x + 6, cy - 6, 12, 12, svg::color(i));
    }
    d.text(x + 32, cy + 4, names[i], kFont);
  }
}

}  // namespace

std::string line_chart(const LineChart& c) {
  constexpr double left = 72, top = 44, pw = 560, ph = 320, bottom = 52;
  std::vector<std::string> names;
  std::vector<bool> dashed;
  std::set<double> xs_seen;
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool any = false;
  for (const auto& s : c.series) {
    names.push_back(s.name);
    dashed.push_back(s.dashed);
    for (const auto& [x, y] : s.points) {
      if (!(x > 0) || !(y > 0)) continue;
      xs_seen.insert(x);
      xmin = any ? std::min(xmin, x) : x;
      xmax = any ? std::max(xmax, x) : x;
      ymin = any ? std::min(ymin, y) : y;
      ymax = any ? std::max(ymax, y) : y;
      any = true;
    }
  }
  const double width = std::max(left + pw + 24 + legend_width(names), svg::text_width(c.title, 15) + 24);  // the title too
  const double height = std::max(top + ph + bottom, top + 20.0 * static_cast<double>(names.size()) + 20);
  Scale xs = Scale::log(any ? xmin : 1, any ? xmax : 1, 2, left, left + pw);
  if (!xs_seen.empty() && xs_seen.size() <= kMaxDataTicks) xs = xs.with_ticks({xs_seen.begin(), xs_seen.end()});
  const Scale ys = Scale::log(any ? ymin : 1, any ? ymax : 1, 10, top + ph, top);

  Document d(width, height);
  d.text(width / 2, 24, c.title, 15, Anchor::middle, 0, true);
  y_axis(d, ys, left, left + pw, top, top + ph);
  x_axis(d, xs, left, left + pw, top, top + ph);
  d.text(left + pw / 2, top + ph + 40, c.x_label, kFont, Anchor::middle);
  d.text(20, top + ph / 2, c.y_label, kFont, Anchor::middle, -90);
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    std::vector<std::pair<double, double>> pts;
    for (const auto& [x, y] : c.series[i].points)
      if (x > 0 && y > 0) pts.emplace_back(xs(x), ys(y));
    if (pts.size() > 1) d.polyline(pts, svg::color(i), 2, c.series[i].dashed);
    for (const auto& [x, y] : pts) d.circle(x, y, 3.5, svg::color(i));
  }
  legend(d, left + pw + 24, top + 10, names, dashed, true);
  return d.str();
}

std::string bar_chart(const BarChart& c) {
  constexpr double top = 44, row = 22, bar = 14, pw = 360, bottom = 52;
  constexpr std::size_t kBarLabelChars = 56;
  double label_w = 0, value_w = 0, vmax = 0;
  for (const auto& b : c.bars) {
    label_w = std::max(label_w, svg::text_width(shorten(b.label, kBarLabelChars), kSmall));
    value_w = std::max(value_w, svg::text_width(b.value_text, kSmall));
    vmax = std::max({vmax, b.value, b.high});
  }
  const double left = label_w + 16;
  const double rows_h = row * static_cast<double>(c.bars.size());
  // The legend goes below the axis label, so the plot stays within a page's width.
  const double legend_y = top + rows_h + bottom + 8;
  const double width = std::max({left + pw + value_w + 24, legend_width(c.legend) + 24, svg::text_width(c.title, 15) + 24});
  const double height = legend_y + 20.0 * static_cast<double>(c.legend.size());
  const Scale xs = Scale::linear_from_zero(vmax, left, left + pw);

  Document d(width, height);
  d.text(width / 2, 24, c.title, 15, Anchor::middle, 0, true);
  x_axis(d, xs, left, left + pw, top, top + rows_h);
  d.text(left + pw / 2, top + rows_h + 40, c.x_label, kFont, Anchor::middle);
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const Bar& b = c.bars[i];
    const double y = top + row * static_cast<double>(i) + (row - bar) / 2;
    const double w = std::max(0.0, xs(b.value) - left);
    d.rect(left, y, w, bar, svg::color(b.color));
    d.text(left - 6, y + bar - 3, shorten(b.label, kBarLabelChars), kSmall, Anchor::end);
    double text_x = left + w + 4;
    if (b.high > b.low && b.low > 0) {  // the 95% interval of the median
      const double cy = y + bar / 2, lo = xs(b.low), hi = xs(b.high);
      d.line(lo, cy, hi, cy, kAxis, 1.5);
      d.line(lo, cy - 4, lo, cy + 4, kAxis, 1.5);
      d.line(hi, cy - 4, hi, cy + 4, kAxis, 1.5);
      text_x = std::max(text_x, hi + 4);
    }
    d.text(text_x, y + bar - 3, b.value_text, kSmall);
  }
  d.line(left, top, left, top + rows_h, kAxis);
  legend(d, 12, legend_y, c.legend, {}, false);
  return d.str();
}

std::string panel_chart(const PanelChart& c) {
  constexpr double header = 62, pleft = 56, ptop = 30, ph = 150, slot = 36;
  std::size_t most = 1;
  double label_w = 0, vmax = 0;
  for (const auto& p : c.panels) {
    most = std::max(most, p.bars.size());
    for (const auto& [label, v] : p.bars) {
      label_w = std::max(label_w, svg::text_width(label, kSmall));
      vmax = std::max(vmax, v);
    }
  }
  const bool rotate = label_w > slot - 4;
  const double labels_h = rotate ? std::min(100.0, 0.72 * label_w + 14) : 22;
  const double pw = std::max(150.0, slot * static_cast<double>(most));
  const double panel_w = pleft + pw + 20;
  const double panel_h = ptop + ph + labels_h + 12;
  // As many panels per row as fit the page, so text keeps its size when the page scales the plot.
  const auto fit = static_cast<std::size_t>(std::max(1.0, std::floor(kPageWidth / panel_w)));
  const std::size_t cols = std::clamp<std::size_t>(c.panels.size(), 1, std::min<std::size_t>(fit, 3));
  const std::size_t rows = (c.panels.size() + cols - 1) / cols;
  const double width = std::max(panel_w * static_cast<double>(cols) + 10,
                                std::min(svg::text_width(c.title, 15) + 40, kPageWidth));
  const double height = header + panel_h * static_cast<double>(std::max<std::size_t>(rows, 1)) + 8;

  Document d(width, height);
  d.text(width / 2, 24, c.title, 15, Anchor::middle, 0, true);
  d.text(width / 2, 44, c.y_label, kFont, Anchor::middle);
  for (std::size_t i = 0; i < c.panels.size(); ++i) {
    const Panel& p = c.panels[i];
    const double ox = (width - panel_w * static_cast<double>(cols)) / 2 + panel_w * static_cast<double>(i % cols);
    const double oy = header + panel_h * static_cast<double>(i / cols);
    const double x0 = ox + pleft, y0 = oy + ptop, y1 = y0 + ph;
    const Scale ys = Scale::linear_from_zero(vmax, y1, y0);
    d.text(x0 + pw / 2, oy + 16, p.title, kFont, Anchor::middle, 0, true);
    y_axis(d, ys, x0, x0 + pw, y0, y1);
    d.line(x0, y1, x0 + pw, y1, kAxis);
    std::size_t best = 0;
    for (std::size_t j = 0; j < p.bars.size(); ++j)
      if (p.bars[j].second < p.bars[best].second) best = j;
    const double step = pw / static_cast<double>(std::max<std::size_t>(p.bars.size(), 1));
    for (std::size_t j = 0; j < p.bars.size(); ++j) {
      const auto& [label, v] = p.bars[j];
      const double cx = x0 + step * (static_cast<double>(j) + 0.5);
      const double bw = std::min(step * 0.7, 40.0);
      const double top = ys(v);
      d.rect(cx - bw / 2, top, bw, y1 - top, svg::color(j == best ? 1 : 0));
      d.text(cx, top - 3, fmt::format("{:.3g}", v), 9, Anchor::middle);
      if (rotate)
        d.text(cx + 3, y1 + 12, label, kSmall, Anchor::end, -40);
      else
        d.text(cx, y1 + 15, label, kSmall, Anchor::middle);
    }
  }
  return d.str();
}

}  // namespace pimg::charts
