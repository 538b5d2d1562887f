// The input generators of 2581f4d, old and new, timed on one 8192x8192x3 buffer (already allocated).
// g++ -O2 -std=c++20 random-bytes.cpp && ./a.out    (output of 2026-12-01 on the 2-core machine: random-bytes.txt)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <span>
#include <vector>
void new_bytes(std::span<std::uint8_t> out, std::uint64_t seed) {  // pix::random_bytes, whole words
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i + 8 <= out.size(); i += 8) {
    const std::uint64_t v = rng();
    for (int b = 0; b < 8; ++b) out[i + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
}
void old_bytes(std::span<std::uint8_t> out, std::uint32_t seed) {  // before: a distribution draw a byte
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(0, 255);
  for (auto& p : out) p = static_cast<std::uint8_t>(d(rng));
}
int main() {
  std::vector<std::uint8_t> v(8192ull * 8192 * 3);
  auto t = std::chrono::steady_clock::now();
  new_bytes(v, 1107);
  std::printf("new %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  t = std::chrono::steady_clock::now();
  old_bytes(v, 1107);
  std::printf("old %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
}
