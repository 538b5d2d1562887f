// Fuzz target: the importer of other tuners' results (results/src/import.cpp: T4 files and Kernel Tuner caches,
// plain or gzip). The input is the file's bytes, read through a memory file; it must be imported or refused
// with a one-line UsageError naming the file, and every correct configuration imported must have been measured.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "pimg/errors.hpp"
#include "pimg/import.hpp"
#include "check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("import", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  if (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  pimg::ImportOptions options;
  options.device = "fuzz";
  options.kernel = "fuzz";
  options.max_bytes = 1 << 20;  // keeps a gzip bomb to a millisecond
  try {
    const pimg::ImportedFile f = pimg::read_import(path, options);
    for (const auto& e : f.entries) {
      if (e.result.status != pimg::Status::ok) continue;
      FUZZ_CHECK(!e.result.kernel_ms.empty(), "a correct configuration imported without a run");
      for (const double ms : e.result.kernel_ms)
        FUZZ_CHECK(ms > 0, "a correct configuration imported with a run of " + std::to_string(ms) + " ms");
    }
  } catch (const pimg::UsageError& e) {
    const std::string what = e.what();
    FUZZ_CHECK(what.find('\n') == std::string::npos && what.rfind(path, 0) == 0, what);
  }
  return 0;
}
