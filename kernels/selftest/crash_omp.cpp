// Harness self-test for the OpenMP backend: a kernel that writes through a wild pointer (address
// 16), so the process running it dies with SIGSEGV.
#include <cstdint>

// buffers: in, out, weights; ints: width, height, out_width, out_height.
extern "C" void conv_crash_omp(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* w = static_cast<const std::int32_t*>(buffers[2]);
  volatile std::int32_t* wild = reinterpret_cast<volatile std::int32_t*>(static_cast<std::uintptr_t>(16 + ints[2] - ints[2]));
  *wild = w[0];
}
