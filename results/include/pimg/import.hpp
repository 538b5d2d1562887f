// Import of results measured by other tuners: T4 result files (the community's JSON results format,
// plain or gzip) and Kernel Tuner cache files. Each file becomes one device, one problem of the
// family-less kind "t4:<kernel>" and one variant "<kernel>", with every configuration's times,
// compile/framework/validation times (as metrics) and failures (as statuses).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "pimg/store.hpp"

namespace pimg {

// The prefix of the families of imported kernels: "t4:convolution".
inline constexpr const char* kImportedFamilyPrefix = "t4:";
bool is_imported_family(const std::string& family);

struct ImportOptions {
  std::string device;  // device name; default: the file's (cache) or its name's second part (T4)
  std::string kernel;  // kernel name; default: the file's (cache) or its name's first part (T4)
};

struct ImportedEntry {
  Config config;
  EvalResult result;
};

struct ImportedFile {
  std::string path, format;  // format: "t4" or "kernel-tuner-cache"
  DeviceInfo device;
  Problem problem;
  VariantKey variant;
  std::vector<ImportedEntry> entries;
  std::size_t constraint_violations = 0;  // entries outside the space (invalidity "constraints"), not stored
};

// Reads and checks a whole file without touching any store. Throws UsageError "FILE: FIELD: what"
// (or "FILE: line L, column C: ..." for malformed JSON) when the file cannot be imported.
ImportedFile read_import(const std::string& path, const ImportOptions& options = {});

struct ImportSummary {
  std::size_t added = 0, already_stored = 0;
};

// Stores every entry not already stored for the same device, problem and variant (importing twice
// adds nothing, not even a run); `run` describes the import when something is added.
ImportSummary store_import(Store& store, const ImportedFile& file, const RunInfo& run);

}  // namespace pimg
