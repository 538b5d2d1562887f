// The synthetic data generator: a regular midpoint x offset layout, one Ricker reflection along the
// traveltime of a chosen grid point, seeded Gaussian noise (Box-Muller over mt19937, which the C++
// standard fixes, so the data is the same with every standard library).
#include <cmath>
#include <numbers>
#include <random>

#include "semblance_family.hpp"

namespace pimg::semblance {
namespace {

constexpr int kOffsets = 8;           // half-offsets per midpoint
constexpr double kMidSpan = 200;      // midpoints m0 - 200 .. m0 + 200 (metres)
constexpr double kOffsetSpan = 100;   // half-offsets h0 - 100 .. h0 + 100
constexpr double kPeakHz = 25;        // Ricker wavelet's peak frequency
constexpr std::int16_t kScalco = -10; // coordinates stored in decimetres

double ricker(double t) {
  const double a = std::numbers::pi * kPeakHz * t;
  return (1 - 2 * a * a) * std::exp(-a * a);
}

}  // namespace

SuData synthetic_data(const SembSpec& s) {
  const std::vector<float> ax = axes(s);
  double p[5];
  for (int d = 0; d < 5; ++d) p[d] = ax[s.axis_offset(d) + s.truth[d]];
  const int mids = (s.traces + kOffsets - 1) / kOffsets;
  const double dt = s.dt_us * 1e-6;

  std::mt19937 rng(s.seed);
  const auto uniform = [&] { return (static_cast<double>(rng()) + 0.5) / 4294967296.0; };
  SuData out;
  out.ns = static_cast<std::uint16_t>(s.ns);
  out.dt = static_cast<std::uint16_t>(s.dt_us);
  for (int i = 0; i < s.traces; ++i) {
    const int mi = i / kOffsets, oi = i % kOffsets;
    const double dm = mids > 1 ? -kMidSpan + 2 * kMidSpan * mi / (mids - 1) : 0;
    const double dh = -kOffsetSpan + 2 * kOffsetSpan * oi / (kOffsets - 1);
    const double m = s.params.m0 + dm, h = s.params.h0 + dh;
    SuTrace t;
    t.header.scalco = kScalco;
    t.header.sy = static_cast<std::int32_t>(std::lround((m - h) * -kScalco));
    t.header.gy = static_cast<std::int32_t>(std::lround((m + h) * -kScalco));
    t.header.ns = out.ns;
    t.header.dt = out.dt;
    const double l = s.params.t0 + p[0] * dm + p[1] * dh;
    const double t2 = l * l + p[2] * dh * dh + p[3] * dm * dm + p[4] * dh * dm;
    const double arrival = t2 > 0 ? std::sqrt(t2) : -1;
    t.samples.resize(s.ns);
    for (int k = 0; k < s.ns; ++k) {
      const double u1 = uniform(), u2 = uniform();
      const double gauss = std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
      t.samples[k] = static_cast<float>((arrival > 0 ? ricker(k * dt - arrival) : 0) + s.noise * gauss);
    }
    out.traces.push_back(std::move(t));
  }
  return out;
}

}  // namespace pimg::semblance
