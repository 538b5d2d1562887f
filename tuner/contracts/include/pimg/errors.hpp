// Error types. UsageError: misuse of the tool (bad YAML, missing file, bad flag) -> exit code 2.
// EnvironmentError: a fault of the machine, not of the input or a configuration (a worker that cannot
// start, a database locked or a disk full beyond the retries) -> exit code 3, stored results intact.
// AttrError: a family rejects one attribute; the loader adds the file position.
// PIMG_CHECK: broken internal invariants abort with a message (never for user input).
#pragma once
#include <stdexcept>
#include <string>

namespace pimg {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class EnvironmentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AttrError : public std::runtime_error {
 public:
  AttrError(std::string key, const std::string& message) : std::runtime_error(message), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

[[noreturn]] void check_failed(const char* expr, const char* file, int line, const std::string& message);

// A file's text inside a message: control characters written as \xNN, so the message stays one line.
std::string printable(const std::string& text);

}  // namespace pimg

#define PIMG_CHECK(expr, message)                                                        \
  do {                                                                                   \
    if (!(expr)) ::pimg::check_failed(#expr, __FILE__, __LINE__, std::string(message)); \
  } while (0)
