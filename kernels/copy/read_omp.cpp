// The OpenMP backend's read probe (compiled like any kernel): reads ints[0] bytes of buffer 0 ("in") as 32-bit
// words, an OpenMP parallel for over chunks of 64 KiB, and writes each chunk's sum (modulo 2^32) to buffer 1
// ("out") as one 32-bit word: the read ceiling of docs/measurement.md. ints[0] is a multiple of 16.
#include <cstdint>
#include <cstring>

extern "C" void pimg_read(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const unsigned char*>(buffers[0]);
  auto* out = static_cast<std::uint32_t*>(buffers[1]);
  const std::int64_t words = ints[0] / 4;
  const std::int64_t chunk = 16 * 1024;  // words: 64 KiB
  const std::int64_t chunks = (words + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t end = words - c * chunk < chunk ? words : (c + 1) * chunk;
    std::uint32_t s = 0;
    for (std::int64_t i = c * chunk; i < end; ++i) {
      std::uint32_t w;
      std::memcpy(&w, in + i * 4, sizeof w);
      s += w;
    }
    out[c] = s;
  }
}
