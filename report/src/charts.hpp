// The three plot kinds of the report, drawn with svg::Document: a log-log line chart (size sweep),
// a horizontal bar chart (ranked configurations) and small multiples of bar panels (parameter
// sensitivity). Each returns a standalone SVG file.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace pimg::charts {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y); non-positive values are left out
  bool dashed = false;                             // baselines
};

struct LineChart {
  std::string title, x_label, y_label;
  std::vector<Series> series;
};

// x on a log2 axis (ticks at the data's x values when there are few), y on a log10 axis, one
// polyline with markers per series, legend on the right.
std::string line_chart(const LineChart& c);

struct Bar {
  std::string label;
  double value = 0;
  std::string value_text;
  std::size_t color = 0;  // index into the legend
  double low = 0, high = 0;  // an error bar (the median's 95% interval) when high > low > 0
};

struct BarChart {
  std::string title, x_label;
  std::vector<Bar> bars;            // drawn top to bottom
  std::vector<std::string> legend;  // the name of each colour
};

// Horizontal bars on a linear axis from zero, with error bars where given; the canvas is at least as
// wide as the title.
std::string bar_chart(const BarChart& c);

struct Panel {
  std::string title;
  std::vector<std::pair<std::string, double>> bars;  // category, value
};

struct PanelChart {
  std::string title, y_label;
  std::vector<Panel> panels;
};

// One panel per entry, laid out in rows of up to three, sharing one linear y scale; the lowest bar
// of each panel is highlighted.
std::string panel_chart(const PanelChart& c);

}  // namespace pimg::charts
