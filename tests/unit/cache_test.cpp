// The compile cache (pimg/cache.hpp): entries read back as written; a damaged entry (truncated, a flipped bit,
// no checksum) is not returned, is removed, and a fresh write takes its place.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pimg/cache.hpp"

namespace fs = std::filesystem;

TEST(CompileCache, DamagedEntriesAreDiscardedNotReturned) {
  const fs::path dir = fs::temp_directory_path() / ("pimg-cache-test-" + std::to_string(::getpid()));
  const char* old = std::getenv("PIMG_CACHE_DIR");
  const std::string saved = old ? old : "";
  ::setenv("PIMG_CACHE_DIR", dir.c_str(), 1);
  std::vector<unsigned char> bytes(1000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 31);
  pimg::cache_write("test", "k", bytes);
  EXPECT_EQ(pimg::cache_read("test", "k"), bytes);
  EXPECT_TRUE(pimg::cache_exists("test", "k"));
  const fs::path file = pimg::cache_path("test", "k");
  ASSERT_EQ(fs::file_size(file), bytes.size() + 16);  // the payload, then the checksum

  fs::resize_file(file, 500);  // truncated to half
  EXPECT_FALSE(pimg::cache_read("test", "k").has_value());
  EXPECT_FALSE(fs::exists(file));

  pimg::cache_write("test", "k", bytes);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(123);
    f.put(static_cast<char>(bytes[123] ^ 0x10));  // one flipped bit
  }
  EXPECT_FALSE(pimg::cache_exists("test", "k"));
  EXPECT_FALSE(fs::exists(file));

  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), 1000);  // no checksum
  EXPECT_FALSE(pimg::cache_read("test", "k").has_value());

  pimg::cache_write("test", "k", bytes);  // rebuilt
  EXPECT_EQ(pimg::cache_read("test", "k"), bytes);
  fs::remove_all(dir);
  if (old) ::setenv("PIMG_CACHE_DIR", saved.c_str(), 1); else ::unsetenv("PIMG_CACHE_DIR");
}
