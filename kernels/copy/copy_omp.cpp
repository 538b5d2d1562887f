// The OpenMP backend's bandwidth probe (compiled like any kernel): copies ints[0] bytes from buffer
// 0 ("in") to buffer 1 ("out") with an OpenMP parallel for over chunks whose offsets are multiples
// of 64 bytes, so no two threads write the same cache line.
#include <cstdint>
#include <cstring>

extern "C" void pimg_copy(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const unsigned char*>(buffers[0]);
  auto* out = static_cast<unsigned char*>(buffers[1]);
  const std::int64_t bytes = ints[0];
  const std::int64_t chunk = 64 * 1024;  // a multiple of the 64-byte cache line
  const std::int64_t chunks = (bytes + chunk - 1) / chunk;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < chunks; ++i) {
    const std::int64_t begin = i * chunk;
    const std::int64_t size = bytes - begin < chunk ? bytes - begin : chunk;
    std::memcpy(out + begin, in + begin, static_cast<std::size_t>(size));
  }
}
