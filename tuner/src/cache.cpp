// On-disk compile cache with atomic writes.
#include "pimg/cache.hpp"

#include <unistd.h>

#include <atomic>
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

std::string cache_path(const std::string& sub, const std::string& key) {
  return (fs::path(cache_dir(sub)) / key).string();
}

bool cache_exists(const std::string& sub, const std::string& key) {
  std::error_code ec;
  const auto size = fs::file_size(cache_path(sub, key), ec);
  return !ec && size > 0;
}

std::optional<std::vector<unsigned char>> cache_read(const std::string& sub, const std::string& key) {
  std::ifstream in(cache_path(sub, key), std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return std::nullopt;
  return bytes;
}

void cache_write(const std::string& sub, const std::string& key, const std::vector<unsigned char>& bytes) {
  std::string final_path = cache_path(sub, key);
  static std::atomic<unsigned> counter{0};
  std::string tmp = final_path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) return;  // a cache that cannot be written only costs a recompile
  }
  std::error_code ec;
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
}

}  // namespace pimg
