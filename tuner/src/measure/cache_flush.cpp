// Cache-line eviction by address (cache_flush.hpp).
#include "pimg/cache_flush.hpp"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace pimg {

namespace {

constexpr std::uintptr_t kFlushLine = 64;  // x86-64 and the AArch64 cores this runs on; a smaller step is harmless

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("clflushopt"))) void flush_lines_opt(const char* p, const char* end) {
  for (; p < end; p += kFlushLine) _mm_clflushopt(const_cast<char*>(p));
  _mm_mfence();  // CLFLUSHOPT is ordered by fences only
}

void flush_lines_plain(const char* p, const char* end) {
  for (; p < end; p += kFlushLine) _mm_clflush(p);
  _mm_mfence();
}

// CPUID leaf 7, sub-leaf 0, EBX bit 23 (read directly: GCC's and Clang's __builtin_cpu_supports disagree on the name).
bool cpu_has_clflushopt() {
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;
  }();
  return has;
}
#endif

}  // namespace

bool can_flush_cache_lines() {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

void flush_cache_lines(const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return;
  const auto first = reinterpret_cast<std::uintptr_t>(data) & ~(kFlushLine - 1);
  const char* p = reinterpret_cast<const char*>(first);
  const char* end = static_cast<const char*>(data) + bytes;
#if defined(__x86_64__) || defined(__i386__)
  if (cpu_has_clflushopt())
    flush_lines_opt(p, end);
  else
    flush_lines_plain(p, end);
#elif defined(__aarch64__)
  for (; p < end; p += kFlushLine) asm volatile("dc civac, %0" ::"r"(p) : "memory");
  asm volatile("dsb ish" ::: "memory");
#else
  (void)p;
  (void)end;
#endif
}

}  // namespace pimg
