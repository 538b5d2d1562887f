// The semblance family (seed 004): for every point (A, B, C, D, E) of a 5-D grid, the semblance of
// the traces of a 2-D prestack data set along t = sqrt((t0 + A dm + B dh)^2 + C dh^2 + D dm^2 + E dh dm)
// over a window of 2 tau + 1 samples; the search returns the best point, its semblance and stack.
// The arithmetic is kernels/semblance/semblance_core.h; the output layout and the validation rule are
// in docs/families.md.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/family_contract.hpp"
#include "pimg/family.hpp"
#include "pimg/su.hpp"

namespace pimg::semblance {

// M0 H0 T0 TAU and the start and end of A..E (the seed's command line, counts aside).
struct ParamSet {
  std::string name;
  double m0 = 0, h0 = 0, t0 = 0, tau = 0;
  std::array<double, 5> p0{}, p1{};
};

// The seed's three sets (param1..3) and `synth`, sized so each grid step of the synthetic data moves
// the outer traces by several samples (so a search can recover the generating point).
const std::vector<ParamSet>& param_sets();
const ParamSet& param_set(const std::string& name);  // throws AttrError("params") when unknown

struct SembSpec {
  std::string data;           // SU file path, or "synthetic"
  ParamSet params;
  std::array<int, 5> n{};     // grid points per dimension
  std::array<int, 5> truth{}; // synthetic: the grid point the reflection follows
  std::uint32_t seed = 0;     // synthetic noise seed
  double noise = 0;           // synthetic noise standard deviation (the wavelet's peak is 1)
  int traces = 0, ns = 0;     // data dimensions (problem width x height)
  int dt_us = 0;              // sample interval (microseconds)
  int tau = 0, w = 0;         // window half-width and width in samples
  float t0 = 0, m0 = 0, h0 = 0, idt = 0;  // as the kernels take them
  std::int64_t points() const;
  int axis_offset(int dim) const;  // start of dimension dim in the axes buffer
};

SembSpec spec_of(const Problem& p);

// The grid values p0 + (i / n) * (p1 - p0), in float as every kernel takes them, dimension after
// dimension (A's n[0] values, then B's, ...).
std::vector<float> axes(const SembSpec& s);

// Output layout: a 16-byte header, then semblance[points] and stack[points] floats (tag GRID), or
// the header alone meaningful (tag BEST: int32 best index, float semblance, float stack).
std::size_t output_bytes(const SembSpec& s);

// The data a problem names: the SU file, or the synthetic generator's output.
SuData problem_data(const SembSpec& s);

// Synthetic data: traces on a regular midpoint x offset layout around (m0, h0) (coordinates x10,
// scalco -10), a Ricker wavelet (25 Hz) along the traveltime of grid point `truth`, plus seeded
// Gaussian noise.
SuData synthetic_data(const SembSpec& s);

// The reference over the whole grid: writes output_bytes(s) bytes (tag GRID). The seed's sequential
// loop with threads = 1 (the `serial` baseline); the validation reference shares the grid's (A, B)
// planes among `threads` threads, each point computed alike, so the output is the same bytes.
void reference(const SembSpec& s, const float* samples, const std::int32_t* hdr, const float* axes,
               std::uint8_t* out, int threads = 1);

// Grid index of point (ia, ib, ic, id, ie) and back.
std::int64_t point_index(const SembSpec& s, const std::array<int, 5>& i);
std::array<int, 5> point_coords(const SembSpec& s, std::int64_t index);

// Nominal floating-point operations per grid point (traces x (12 + 8 w) + 3 w + 2).
double flops_per_point(const SembSpec& s);

class SemblanceFamily final : public Family {
 public:
  std::string name() const override { return "semblance"; }
  std::string unit() const override { return "GFLOP/s"; }
  PIMG_FAMILY_CONTRACT;
  Traffic traffic(const Problem& p) const override;
  // Nominal floating-point operations / 1e3, so the report's rate (work / s / 1e6) reads GFLOP/s.
  double work(const Problem& p) const override;
};

}  // namespace pimg::semblance
