// Harness self-test for the OpenMP backend: a kernel that allocates 1 GiB blocks (touching one page
// of each) until allocation fails, then aborts the way an out-of-memory driver does. In a worker
// with an address-space limit it dies quickly without using the memory it reserved.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// buffers: in, out, weights; ints: width, height, out_width, out_height.
extern "C" void conv_memory_omp(void* const*, const std::int64_t*, const double*) {
  constexpr std::size_t kBlock = std::size_t{1} << 30;
  for (std::size_t gib = 0;; ++gib) {
    void* p = std::malloc(kBlock);
    if (!p) {
      std::fprintf(stderr, "selftest_memory_omp: out of memory after %zu GiB\n", gib);
      std::fflush(stderr);
      std::abort();
    }
    static_cast<volatile char*>(p)[0] = 1;
  }
}
