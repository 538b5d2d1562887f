// conv's sharpen3 with a zero border as a user's own OpenMP kernel (tests/data/user/conv-user.yaml):
// the calling convention of OpenMP kernels, buffers then integers in the order of the variant's args.
#include <algorithm>
#include <cstdint>

extern "C" void my_sharpen(void* const* buffers, const std::int64_t* ints, const double*) {
  const auto* in = static_cast<const std::uint8_t*>(buffers[0]);
  auto* out = static_cast<std::uint8_t*>(buffers[1]);
  const int w = static_cast<int>(ints[0]), h = static_cast<int>(ints[1]);
  auto px = [&](int x, int y) { return x < 0 || y < 0 || x >= w || y >= h ? 0 : static_cast<int>(in[y * w + x]); };
#pragma omp parallel for schedule(static, CHUNK)
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      out[y * w + x] = static_cast<std::uint8_t>(
          std::clamp(5 * px(x, y) - px(x - 1, y) - px(x + 1, y) - px(x, y - 1) - px(x, y + 1), 0, 255));
}
