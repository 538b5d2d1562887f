// The SVG document writer and the scales behind every plot of the report.
#include "svg.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace pimg::svg {

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
        else out += ' ';
    }
  }
  return out;
}

std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  return s == "-0.0" ? "0.0" : s;
}

std::string color(std::size_t i) {
  static constexpr std::array<const char*, 10> palette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return palette[i % palette.size()];
}

double text_width(std::string_view text, double font_size) {
  std::size_t chars = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++chars;
  return 0.6 * font_size * static_cast<double>(chars);
}

Document::Document(double width, double height) : width_(width), height_(height) {}

void Document::rect(double x, double y, double w, double h, const std::string& fill) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", num(x), num(y), num(w),
                       num(h), fill);
}

void Document::line(double x1, double y1, double x2, double y2, const std::string& stroke, double width,
                    bool dashed) {
  body_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n",
                       num(x1), num(y1), num(x2), num(y2), stroke, num(width),
                       dashed ? " stroke-dasharray=\"6 4\"" : "");
}

void Document::polyline(const std::vector<std::pair<double, double>>& points, const std::string& stroke,
                        double width, bool dashed) {
  std::string pts;
  for (const auto& [x, y] : points) {
    if (!pts.empty()) pts += ' ';
    pts += num(x) + "," + num(y);
  }
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{}/>\n", pts, stroke,
                       num(width), dashed ? " stroke-dasharray=\"6 4\"" : "");
}

void Document::circle(double cx, double cy, double r, const std::string& fill) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", num(cx), num(cy), num(r), fill);
}

void Document::text(double x, double y, std::string_view s, double size, Anchor anchor, double rotate, bool bold) {
  const char* a = anchor == Anchor::start ? "start" : anchor == Anchor::middle ? "middle" : "end";
  std::string extra;
  if (rotate != 0) extra += fmt::format(" transform=\"rotate({} {} {})\"", num(rotate), num(x), num(y));
  if (bold) extra += " font-weight=\"bold\"";
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y),
                       num(size), a, extra, escape(s));
}

std::string Document::str() const {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n{2}</svg>\n",
      num(width_), num(height_), body_);
}

Scale Scale::linear_from_zero(double max, double p0, double p1) {
  Scale s;
  s.p0_ = p0;
  s.p1_ = p1;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  const double raw = max / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double n = raw / mag;
  const double step = (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
  const int steps = static_cast<int>(std::ceil(max / step - 1e-9));
  s.lo_ = 0;
  s.hi_ = steps * step;
  for (int i = 0; i <= steps; ++i) s.ticks_.push_back(i * step);
  return s;
}

Scale Scale::log(double min, double max, double base, double p0, double p1) {
  Scale s;
  s.log_ = true;
  s.p0_ = p0;
  s.p1_ = p1;
  if (!(max > 0) || !std::isfinite(max)) max = 1;
  if (!(min > 0) || min > max) min = max;
  const double lb = std::log(base);
  int a = static_cast<int>(std::floor(std::log(min) / lb + 1e-9));
  int b = static_cast<int>(std::ceil(std::log(max) / lb - 1e-9));
  if (a == b) {
    --a;
    ++b;
  }
  s.lo_ = std::pow(base, a);
  s.hi_ = std::pow(base, b);
  const int stride = (b - a + 7) / 8;
  for (int k = a; k <= b; k += stride) {
    const double p = std::pow(base, k);
    s.ticks_.push_back(p);
    if (base == 10 && b - a <= 2 && k < b) {
      s.ticks_.push_back(2 * p);
      s.ticks_.push_back(5 * p);
    }
  }
  return s;
}

Scale Scale::with_ticks(std::vector<double> ticks) const {
  Scale s = *this;
  s.ticks_ = std::move(ticks);
  return s;
}

double Scale::operator()(double v) const {
  double t = log_ ? (std::log(v) - std::log(lo_)) / (std::log(hi_) - std::log(lo_)) : (v - lo_) / (hi_ - lo_);
  return p0_ + t * (p1_ - p0_);
}

std::string Scale::tick_label(double v) { return fmt::format("{:g}", v); }

}  // namespace pimg::svg
