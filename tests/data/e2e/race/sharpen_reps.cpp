// conv's sharpen3 with a zero border, computed REPS times over (tests/data/e2e/race/race.yaml): REPS=30 does thirty
// times the work of REPS=1 for the same output, a configuration racing must stop early.
#include <algorithm>
#include <cstdint>

extern "C" void sharpen_reps(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int w = static_cast<int>(ints[0]), h = static_cast<int>(ints[1]);
  auto px = [&](int x, int y) { return x < 0 || y < 0 || x >= w || y >= h ? 0 : static_cast<int>(in[y * w + x]); };
  for (int rep = 0; rep < REPS; ++rep) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        out[y * w + x] = static_cast<std::uint8_t>(
            std::clamp(5 * px(x, y) - px(x - 1, y) - px(x + 1, y) - px(x, y - 1) - px(x, y + 1) + rep - rep, 0, 255));
    asm volatile("" ::: "memory");  // each repetition's stores happen
  }
}
