// On-disk compile cache with atomic writes and a checksum trailing each entry.
#include "pimg/cache.hpp"

#include "pimg/config.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;

namespace pimg {

std::string cache_dir(const std::string& sub) {
  fs::path base;
  if (const char* d = std::getenv("PIMG_CACHE_DIR"); d && *d)
    base = d;
  else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    base = fs::path(x) / "pimg-tune";
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = fs::path(h) / ".cache" / "pimg-tune";
  else
    base = fs::temp_directory_path() / "pimg-tune-cache";
  fs::path dir = base / sub;
  std::error_code ec;
  fs::create_directories(dir, ec);
  return dir.string();
}

// Entries with a checksum live in "<sub>.2", so the entries of older builds (without one) are never read.
std::string cache_path(const std::string& sub, const std::string& key) {
  return (fs::path(cache_dir(sub + ".2")) / key).string();
}

namespace {

// The trailer: 8 bytes of FNV-1a-64 of the payload (Config::hash's function), then this magic.
constexpr char kMagic[8] = {'p', 'i', 'm', 'g', 's', 'u', 'm', '1'};
constexpr std::size_t kTrailer = 16;

std::uint64_t fnv1a(const unsigned char* p, std::size_t n) {
  return fnv1a64(std::string_view(reinterpret_cast<const char*>(p), n));
}

}  // namespace

bool cache_exists(const std::string& sub, const std::string& key) { return cache_read(sub, key).has_value(); }

std::optional<std::vector<unsigned char>> cache_read(const std::string& sub, const std::string& key) {
  const std::string path = cache_path(sub, key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::size_t n = bytes.size() >= kTrailer ? bytes.size() - kTrailer : 0;
  std::uint64_t sum = 0;
  if (n > 0) std::memcpy(&sum, bytes.data() + n, sizeof sum);
  if (n == 0 || std::memcmp(bytes.data() + n + 8, kMagic, sizeof kMagic) != 0 || sum != fnv1a(bytes.data(), n)) {
    // A fault of the disk or of whatever wrote there, not of the kernel: said, removed, rebuilt by the caller.
    std::fprintf(stderr, "pimg-tune: environment: compile cache entry %s is damaged (%zu bytes, checksum %s); "
                 "discarded and rebuilt\n", path.c_str(), bytes.size(), n == 0 ? "missing" : "wrong");
    std::error_code ec;
    fs::remove(path, ec);
    return std::nullopt;
  }
  bytes.resize(n);
  return bytes;
}

void cache_write(const std::string& sub, const std::string& key, const std::vector<unsigned char>& bytes) {
  std::string final_path = cache_path(sub, key);
  static std::atomic<unsigned> counter{0};
  std::string tmp = final_path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  {
    if (bytes.empty()) return;
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const std::uint64_t sum = fnv1a(bytes.data(), bytes.size());
    out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
    out.write(kMagic, sizeof kMagic);
    if (!out) {  // a cache that cannot be written only costs a recompile
      out.close();
      std::error_code ec;
      fs::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace pimg
