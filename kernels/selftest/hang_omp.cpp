// Harness self-test for the OpenMP backend: a kernel that never returns. It spins on a volatile
// read of the first weight, waiting for a value no filter has.
#include <cstdint>

// buffers: in, out, weights; ints: width, height, out_width, out_height.
extern "C" void conv_hang_omp(void* const* buffers, const std::int64_t*, const double*) {
  const volatile std::int32_t* w = static_cast<const std::int32_t*>(buffers[2]);
  while (w[0] != 0x7fffffff) {
  }
}
