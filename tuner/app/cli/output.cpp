// check_output_path() and write_file() (cli/output.hpp).
#include "cli/output.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include "pimg/errors.hpp"

namespace pimg::cli {

namespace fs = std::filesystem;

// An output file named by a flag, checked before any tuning: its folder exists (or can be made
// under a writable one), it is writable, and its name fits NAME_MAX. Nothing is created here.
void check_output_path(const std::string& flag, const std::string& path) {
  if (path.empty()) throw UsageError(fmt::format("{}: empty file name", flag));
  const fs::path p(path);
  if (p.filename().empty() || p.filename().string().size() > NAME_MAX)
    throw UsageError(fmt::format("{} {}: not a usable file name", flag, path));
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (st.type() != fs::file_type::not_found && !ec) {
    if (st.type() != fs::file_type::regular) throw UsageError(fmt::format("{} {}: exists and is not a regular file", flag, path));
    if (::access(path.c_str(), W_OK) != 0) throw UsageError(fmt::format("{} {}: not writable", flag, path));
    return;
  }
  // The nearest folder that exists, and the outermost one to be made (`rep` of `rep/r.md` in a new folder).
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path(), missing;
  while (!fs::exists(dir, ec)) {
    missing = dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      dir = ".";
      break;
    }
    dir = dir.parent_path();
  }
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format("{} {}: {} is not a directory", flag, path, dir.string()));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} {}: cannot write in {}", flag, path, dir.string()));
  // A folder to be made: made and removed at once, so a file system that refuses it (/proc, a
  // read-only mount) is found now and not after the run.
  if (!missing.empty()) {
    if (::mkdir(missing.c_str(), 0700) != 0)
      throw UsageError(fmt::format("{} {}: cannot create {} ({})", flag, path, missing.string(), std::strerror(errno)));
    ::rmdir(missing.c_str());
  }
}

// Written beside and renamed into place: a reader never sees half a file, and a symbolic link at `p` is
// replaced, never written through. Its folder is made where missing (check_output_path said it can be).
void write_file(const fs::path& p, const std::string& text) {
  const fs::path tmp = p.string() + fmt::format(".tmp{}", ::getpid());
  if (std::error_code made; p.has_parent_path() && !fs::exists(p.parent_path(), made))
    fs::create_directories(p.parent_path(), made);
  {
    std::ofstream o(tmp, std::ios::binary);
    o << text;
    o.flush();
    if (!o) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw UsageError(fmt::format("{}: cannot write", p.string()));
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw UsageError(fmt::format("{}: cannot write ({})", p.string(), ec.message()));
  }
}

}  // namespace pimg::cli
