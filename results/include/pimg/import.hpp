// Import of results measured by other tuners: T4 result files (the community's JSON results format,
// plain or gzip) and Kernel Tuner cache files. Each file becomes one device, one problem of the
// family-less kind "t4:<kernel>" and one variant "<kernel>" (or the variants a configuration's
// "variant" key names), with every configuration's times, timestamp, compile/framework/validation
// times (as metrics) and failures (as statuses). A T4 file pimg-tune exported gives back its rows:
// each result's "pimg" object restores the device, problem, variant, status and measurement.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pimg/store.hpp"

namespace pimg {

// The prefix of the families of imported kernels: "t4:convolution".
inline constexpr const char* kImportedFamilyPrefix = "t4:";
bool is_imported_family(const std::string& family);
// The keys pimg-tune's T4 export writes beside T4's own (report/src/export.cpp) and import reads back:
// a configuration's variant, and each result's object of everything T4 has no field for.
inline constexpr const char* kVariantKey = "variant";
inline constexpr const char* kPimgFieldsKey = "pimg";

// The default limit on an imported file and on what a gzip file expands to: 64 MiB (the largest public T4 file,
// dedispersion on the A100, expands to 19 MB; reading one takes about 9 times its size in memory).
inline constexpr std::uint64_t kImportMaxBytes = std::uint64_t{64} << 20;

struct ImportOptions {
  std::string device;  // device name; default: the file's (cache; T4 metadata.device, as KTT writes) or its name's second part (T4)
  std::string kernel;  // kernel name; default: the file's (cache) or its name's first part (T4)
  // The most a file may hold, and the most a gzip file may expand to (bytes); more is refused.
  std::uint64_t max_bytes = kImportMaxBytes;
};

struct ImportedEntry {
  DeviceInfo device;
  Problem problem;
  ProblemCost cost;
  VariantKey variant;
  Config config;
  EvalResult result;
  std::string created_at;  // the result's timestamp; empty: the time it is stored
};

struct ImportedFile {
  std::string path, format;  // format: "t4" or "kernel-tuner-cache"
  // The file's device, problem and variant (those of its first entry when it is pimg-tune's export).
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

// Stores every entry not already stored for the same device, problem, variant and stage (importing
// twice adds nothing, not even a run), in the file's order; `run` describes the import when something
// is added.
ImportSummary store_import(Store& store, const ImportedFile& file, const RunInfo& run);

}  // namespace pimg
