// Baseline `serial`: the speed reference a plain single-threaded program would be, one loop per output row
// that the compiler vectorises (-O3 for this file, AVX2 and generic clones): each non-zero tap adds its
// weighted input row to a row of int sums, then the conv rule finishes the row. Edge pixels of zero and
// replicate borders go through the reference's per-pixel path. The correctness reference stays
// conv::reference, a generic KxK loop that is not timed.
#include <algorithm>
#include <vector>

#include "conv/conv_family.hpp"
#include "conv/register.hpp"
#include "conv/serial_rows.hpp"
#include "conv/variant_base.hpp"

extern "C" {
#include "conv/conv_rule.h"
}

namespace pimg::conv {
namespace {

// Sums of one row of interior outputs: n values, input rows `rows[ky]` already offset to the first
// output's leftmost tap, taps `stride` bytes apart (the channels of interleaved pixels).
__attribute__((target_clones("avx2", "default"))) void row_sums(const std::uint8_t* const* rows, const int* weights,
                                                              int k, int stride, int n, int* acc) {
  for (int i = 0; i < n; ++i) acc[i] = 0;
  for (int ky = 0; ky < k; ++ky)
    for (int kx = 0; kx < k; ++kx) {
      const int w = weights[ky * k + kx];
      if (w == 0) continue;
      const std::uint8_t* src = rows[ky] + kx * stride;
      for (int i = 0; i < n; ++i) acc[i] += w * src[i];
    }
}

// The rule on n sums for a divisor known here, so that the compiler vectorises the division: a negative sum
// saturates to 0 whichever way its quotient rounds, so the rule is an unsigned division of the sum clamped
// at 0, rounded half up, clamped at 255.
template <unsigned D>
void finish_const(const int* acc, int n, std::uint8_t* out) {
  for (int i = 0; i < n; ++i) {
    const unsigned q = (static_cast<unsigned>(std::max(acc[i], 0)) + D / 2) / D;
    out[i] = static_cast<std::uint8_t>(std::min(q, 255u));
  }
}

__attribute__((target_clones("avx2", "default"))) void finish_row(const int* acc, int n, int divisor,
                                                                std::uint8_t* out) {
  switch (divisor) {
    case 1:
      for (int i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(pimg_saturate_u8(acc[i]));
      return;
    case 9:  // box3
      return finish_const<9>(acc, n, out);
    case 16:
      return finish_const<16>(acc, n, out);
    case 25:  // box5
      return finish_const<25>(acc, n, out);
    case 256:  // gaussian5
      return finish_const<256>(acc, n, out);
    default:
      for (int i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(pimg_conv_finish(acc[i], divisor));
  }
}

}  // namespace

ConvSpec host_spec(void* const* buffers, const std::int64_t* ints) {
  ConvSpec s;
  s.width = static_cast<int>(ints[0]);
  s.height = static_cast<int>(ints[1]);
  s.channels = static_cast<int>(ints[2]);
  s.planar = ints[3] != 0;
  s.border = static_cast<int>(ints[4]);
  s.k = static_cast<int>(ints[5]);
  s.divisor = static_cast<int>(ints[6]);
  const int* wts = static_cast<const int*>(buffers[2]);
  s.weights.assign(wts, wts + s.k * s.k);
  const bool valid = s.border == PIMG_BORDER_VALID;
  s.out_width = valid ? s.width - s.k + 1 : s.width;
  s.out_height = valid ? s.height - s.k + 1 : s.height;
  return s;
}

ConvSpec row_loop_spec(void* const* buffers, const std::int64_t* ints) {
  ConvSpec s = host_spec(buffers, ints);
  s.batch = static_cast<int>(ints[7]);
  return s;
}

std::vector<KernelArg> row_loop_args(const ConvSpec& s) {
  return {KernelArg::buf("in"),          KernelArg::buf("out"),         KernelArg::buf("weights"),
          KernelArg::integer(s.width),   KernelArg::integer(s.height),  KernelArg::integer(s.channels),
          KernelArg::integer(s.planar),  KernelArg::integer(s.border),  KernelArg::integer(s.k),
          KernelArg::integer(s.divisor), KernelArg::integer(s.batch)};
}

long row_loop_rows(const ConvSpec& s) {
  return static_cast<long>(s.planar ? s.channels : 1) * s.batch * s.out_height;
}

void row_loop(const ConvSpec& s, const std::uint8_t* in, std::uint8_t* out, long first, long last) {
  const bool valid = s.border == PIMG_BORDER_VALID;
  const int r = s.k / 2;
  const int n = s.planar ? 1 : s.channels;  // channels within one plane
  const int planes = s.planar ? s.channels : 1;
  // Outputs whose whole window lies inside the image: columns [x0, x1), rows [y0, y1).
  const int x0 = valid ? 0 : r, x1 = valid ? s.out_width : std::max(r, s.width - r);
  const int y0 = valid ? 0 : r, y1 = valid ? s.out_height : std::max(r, s.height - r);
  const int off = valid ? 0 : -r;  // input row/column of an output's first tap, less the output's own
  const std::size_t in_row = static_cast<std::size_t>(s.width) * n, out_row = static_cast<std::size_t>(s.out_width) * n;
  std::vector<int> acc(out_row);
  std::vector<const std::uint8_t*> rows(s.k);
  auto edge = [&](int p, int ox, int oy) {  // plane p of the batch: image p / planes
    const std::size_t image = static_cast<std::size_t>(p / planes);
    for (int c = 0; c < n; ++c) {
      const int ch = s.planar ? p % planes : c;
      out[image * s.out_image_bytes() + pimg_pixel_index(ox, oy, ch, s.out_width, s.out_height, s.channels, s.planar)] =
          reference_pixel(s, in + image * s.in_image_bytes(), ox, oy, ch);
    }
  };
  for (int p = 0; p < planes * s.batch; ++p) {
    const std::uint8_t* plane = in + p * in_row * s.height;
    std::uint8_t* oplane = out + p * out_row * s.out_height;
    for (int oy = 0; oy < s.out_height; ++oy) {
      const long task = static_cast<long>(p) * s.out_height + oy;
      if (task < first || task >= last) continue;
      if (oy < y0 || oy >= y1 || x1 <= x0) {
        for (int ox = 0; ox < s.out_width; ++ox) edge(p, ox, oy);
        continue;
      }
      for (int ky = 0; ky < s.k; ++ky) rows[ky] = plane + (oy + off + ky) * in_row + (x0 + off) * n;
      const int count = (x1 - x0) * n;
      row_sums(rows.data(), s.weights.data(), s.k, n, count, acc.data());
      finish_row(acc.data(), count, s.divisor, oplane + oy * out_row + x0 * n);
      for (int ox = 0; ox < x0; ++ox) edge(p, ox, oy);
      for (int ox = x1; ox < s.out_width; ++ox) edge(p, ox, oy);
    }
  }
}

namespace {

// buffers: in, out, weights; ints: width, height, channels, planar, border, k, divisor
void conv_serial_rows(void* const* buffers, const std::int64_t* ints, const double*) {
  const ConvSpec s = row_loop_spec(buffers, ints);
  row_loop(s, static_cast<const std::uint8_t*>(buffers[0]), static_cast<std::uint8_t*>(buffers[1]), 0,
           row_loop_rows(s));
}

}  // namespace

void register_serial(Registry& reg) {
  reg.add_host_function("conv_serial_rows", &conv_serial_rows);
  reg.add_variant(make_variant({"serial", "conv", "host", NativeCall{"conv_serial_rows", ""},
                                "one thread, a row loop the compiler vectorises (-O3; the speed reference of "
                                "'speed-up over serial'); baseline",
                                {},
                                [](const PlanContext& x) {
                                  LaunchPlan plan;
                                  plan.entry = "conv_serial_rows";
                                  plan.args = row_loop_args(spec_of(x.problem));
                                  return plan;
                                },
                                true}));
}

}  // namespace pimg::conv
