// A minimal SVG writer: a standalone document of shapes and escaped text in pixel coordinates, and
// the scales (linear, log) with their tick choices that the charts build axes from.
// Coordinates are written with one fixed decimal so the same data always gives the same bytes.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pimg::svg {

std::string escape(std::string_view text);  // for XML text and attribute values
std::string num(double v);                  // a coordinate: fixed, one decimal
std::string color(std::size_t i);           // the i-th colour of a fixed palette (cycles)
double text_width(std::string_view text, double font_size);  // estimate, for layout

enum class Anchor { start, middle, end };

class Document {
 public:
  Document(double width, double height);
  void rect(double x, double y, double w, double h, const std::string& fill);
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            bool dashed = false);
  void polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                double width, bool dashed = false);
  void circle(double cx, double cy, double r, const std::string& fill);
  void text(double x, double y, std::string_view s, double size, Anchor anchor = Anchor::start,
            double rotate = 0, bool bold = false);
  std::string str() const;

 private:
  double width_, height_;
  std::string body_;
};

// Maps data values to pixels, [lo, hi] -> [p0, p1]. Log scales are widened to whole powers of
// their base so the end ticks are round numbers; linear scales start at zero and end on a nice step.
class Scale {
 public:
  static Scale linear_from_zero(double max, double p0, double p1);
  static Scale log(double min, double max, double base, double p0, double p1);
  Scale with_ticks(std::vector<double> ticks) const;  // the same mapping, other ticks
  double operator()(double v) const;
  const std::vector<double>& ticks() const { return ticks_; }
  static std::string tick_label(double v);

 private:
  bool log_ = false;
  double lo_ = 0, hi_ = 1, p0_ = 0, p1_ = 1;
  std::vector<double> ticks_;
};

}  // namespace pimg::svg
