// Helpers of the end-to-end tests: run the pimg-tune binary (to completion, or in the background
// to be killed), read files, and ask SQLite about a database directly.
#pragma once
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace e2e {

struct Ran {
  int code = -1;  // exit code; -1 when killed by a signal
  int signal = 0;
  std::string out;
};

// Runs `pimg-tune ARGS` through the shell, stdout and stderr together; `prefix` goes before the
// program (a `cd DIR &&`, environment assignments).
inline Ran run(const std::string& args, const std::string& prefix = "") {
  std::string cmd = prefix + " " + std::string(PIMG_TUNE_EXE) + " " + args + " 2>&1";
  Ran r;
  std::FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  // The shell reports a child killed by signal N as exit code 128 + N.
  if (r.code > 128) r.signal = r.code - 128;
  return r;
}

// Starts pimg-tune with these arguments, output to `log`; returns its pid.
inline pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    std::FILE* f = std::freopen(log.c_str(), "a", stdout);
    if (!f || ::dup2(1, 2) < 0) ::_exit(126);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(PIMG_TUNE_EXE));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(PIMG_TUNE_EXE, argv.data());
    ::_exit(127);
  }
  return pid;
}

// A fresh folder under the temporary directory, named after the test and this process.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("pimg-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

// temp_dir(name), where the pimg-tune runs keep their compile cache unless PIMG_CACHE_DIR is set already (the one
// scripts/test.sh points at, shared by the test processes).
inline std::filesystem::path temp_dir_with_cache(const std::string& name) {
  std::filesystem::path d = temp_dir(name);
  setenv("PIMG_CACHE_DIR", (d / "cache").c_str(), 0);
  return d;
}

// The base of a suite whose tests share one temporary folder, made by SetUpTestSuite through make_dir and
// removed after the suite. Suite is the derived class: each suite has a folder of its own.
template <class Suite>
class DirSuite : public ::testing::Test {
 protected:
  static void make_dir(const std::string& name) { dir_ = temp_dir(name); }
  // Keep the compile cache scripts/test.sh points at (shared by the test processes), else the suite's own.
  static void own_cache() { setenv("PIMG_CACHE_DIR", (dir_ / "cache").c_str(), 0); }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string path(const std::string& name) { return (dir_ / name).string(); }
  static inline std::filesystem::path dir_;
};

// A file of tests/data/e2e.
inline std::string data(const std::string& name) { return std::string(PIMG_TEST_DATA) + "/e2e/" + name; }

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every row of a query, columns joined with '|'.
inline std::vector<std::string> query(const std::string& db, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(raw);
    return {"cannot open " + db};
  }
  sqlite3_busy_timeout(raw, 30000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(raw, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    out.push_back(std::string("error: ") + sqlite3_errmsg(raw));
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        row += (c ? "|" : "") + std::string(t ? reinterpret_cast<const char*>(t) : "");
      }
      out.push_back(row);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(raw);
  return out;
}

}  // namespace e2e
