/* The byte counter hist_omp.cpp (planar planes) and histeq_omp.cpp share, from their -D knobs COPIES (sub-
 * histograms taking consecutive bytes in turn) and WIDE (1: 64-bit loads split into bytes): bytes [0, len) of
 * p counted into the 256 bins at h, byte k into sub-histogram k % COPIES, sub-histogram r at h + r * stride. */
#ifndef PIMG_HIST_COUNT_BYTES_H
#define PIMG_HIST_COUNT_BYTES_H

#if !defined(COPIES) || !defined(WIDE)
#error "count_bytes.h needs COPIES and WIDE defined"
#endif

inline void pimg_count_bytes(const std::uint8_t* p, std::int64_t len, std::uint32_t* h, int stride) {
  std::int64_t j = 0;
#if WIDE
  for (; j + 8 <= len; j += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + j, sizeof w);
#pragma GCC unroll 8
    for (int b = 0; b < 8; ++b) ++h[(b % COPIES) * stride + static_cast<int>((w >> (8 * b)) & 0xff)];
  }
#endif
  for (; j + COPIES <= len; j += COPIES)
#pragma GCC unroll 4
    for (int r = 0; r < COPIES; ++r) ++h[r * stride + p[j + r]];
  for (; j < len; ++j) ++h[p[j]];
}

#endif
