// A private temporary directory removed with everything in it when the object goes away; used by
// the backends that hand files to other programs (the OpenMP compiler, mpirun). Its name carries the
// creating pid, so the folders of a process killed before it could remove them are swept later.
#pragma once
#include <fmt/format.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

namespace pimg {

class TempDir {
 public:
  // prefix: the folder's name before its random suffix, e.g. "pimg-omp".
  explicit TempDir(const std::string& prefix) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / fmt::format("{}-{}-XXXXXX", prefix, ::getpid())).string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error(fmt::format("cannot create a temporary directory {}: {}", pattern, std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Whether a process runs: it exists and is no zombie (a killed worker whose new parent, a
  // container's init, does not reap it).
  static bool runs(pid_t pid) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() || text[paren + 2] != 'Z';
  }

  // Removes the folders `prefix`-PID-* of processes that no longer run (killed with -9).
  static void sweep(const std::string& prefix) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const std::string head = prefix + "-";
    for (fs::directory_iterator it(fs::temp_directory_path(ec), ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind(head, 0) != 0) continue;
      const std::size_t dash = name.find('-', head.size());
      if (dash == std::string::npos) continue;
      const std::string digits = name.substr(head.size(), dash - head.size());
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
      if (runs(static_cast<pid_t>(std::stol(digits)))) continue;
      std::error_code rm;
      fs::remove_all(it->path(), rm);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pimg
