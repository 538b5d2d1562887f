// The T1 loader's files: a kernel file as one text (its includes expanded in place, HIP's runtime header
// mapped to CUDA's, the C headers NVRTC builds in left out), the check of a HIP kernel's names, a kernel's
// __constant__ declarations, and the data files fills read.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "t1.hpp"
#include "t1_reader.hpp"

namespace fs = std::filesystem;

namespace pimg::user::t1_detail {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;

}  // namespace

std::string read_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: {} is not a readable file", path, what));
  if (fs::file_size(path, ec) > kMaxFileBytes)
    throw UsageError(fmt::format("{}: {} is larger than {} MiB", path, what, kMaxFileBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) throw UsageError(fmt::format("{}: cannot read the {}", path, what));
  return ss.str();
}

// The text of pimg-tune's HIP-to-CUDA mapping (kernels/t1/hip_runtime.h), which stands in for a HIP kernel's runtime
// header.
const std::string& hip_mapping() {
  const KernelSource* hip = kernel_source("t1/hip_runtime.h");
  PIMG_CHECK(hip, "the HIP-to-CUDA mapping is not among the embedded kernel sources");
  return hip->text;
}

// A kernel file as one text: each `#include "x"` (and `#include <x>`) that names a file in the including file's
// folder, the kernel file's or the T1 file's is replaced by that file's text, each file once (as #pragma once
// would), between #line directives so that compiler messages name the real file and line. So NVRTC and OpenCL
// compile it without include paths, and an edited header changes the kernel's text and identity. `dropped`:
// for CUDA, the C headers that NVRTC does not have but builds in what kernels use from them (math functions,
// printf, the runtime's types); each line is kept as a comment. Any other include is left to the compiler.
// `root`: the kernel file's folder; #line names files relative to it, so the text (and the identity) does not
// depend on where the checkout lies.
std::string expand_includes(const fs::path& file, const fs::path& root, const std::vector<fs::path>& dirs, bool cuda,
                            std::set<std::string>& seen, std::vector<std::string>& dropped, int depth) {
  if (depth > 32) throw UsageError(fmt::format("{}: includes nested more than 32 deep", file.string()));
  static const std::set<std::string> kNvrtcBuiltIn = {"math.h", "cmath", "stdio.h", "cstdio", "cuda.h",
                                                      "cuda_runtime.h", "stdlib.h", "cstdlib"};
  const std::string text = read_file(file.string(), "kernel file");
  std::string out;
  std::size_t pos = 0;
  int line_no = 0;
  bool in_comment = false;
  const auto shown = [&root](const fs::path& f) { return f.lexically_relative(root).generic_string(); };
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string newline = end < text.size() ? "\n" : "";
    const std::string line = text.substr(pos, end - pos);
    ++line_no;
    const bool commented = in_comment;  // the line starts inside a /* */ comment
    for (std::size_t c = 0; c + 1 < line.size(); ++c) {
      if (!in_comment && line[c] == '/' && line[c + 1] == '/') break;
      if (line[c] == (in_comment ? '*' : '/') && line[c + 1] == (in_comment ? '/' : '*')) {
        in_comment = !in_comment;
        ++c;
      }
    }
    std::size_t k = line.find_first_not_of(" \t");
    std::string name;
    if (!commented && k != std::string::npos && line[k] == '#') {
      k = line.find_first_not_of(" \t", k + 1);
      if (k != std::string::npos && line.compare(k, 7, "include") == 0) {
        k = line.find_first_not_of(" \t", k + 7);
        if (k != std::string::npos && (line[k] == '"' || line[k] == '<')) {
          const std::size_t close = line.find(line[k] == '"' ? '"' : '>', k + 1);
          if (close != std::string::npos) name = line.substr(k + 1, close - k - 1);
        }
      }
    }
    fs::path found;
    if (!name.empty()) {
      std::vector<fs::path> where = {file.parent_path()};
      where.insert(where.end(), dirs.begin(), dirs.end());
      for (const fs::path& d : where) {
        std::error_code ec;
        if (fs::is_regular_file(d / name, ec)) {
          found = (d / name).lexically_normal();
          break;
        }
      }
    }
    if (!found.empty()) {
      if (seen.insert(fs::weakly_canonical(found).string()).second) {
        out += fmt::format("#line 1 \"{}\"\n", shown(found));
        out += expand_includes(found, root, dirs, cuda, seen, dropped, depth + 1);
        out += fmt::format("\n#line {} \"{}\"{}", line_no + 1, shown(file), newline);
      } else {
        out += "// " + line + "  (included above)" + newline;
      }
    } else if (cuda && (name == "hip/hip_runtime.h" || name == "hip_runtime.h")) {
      // A kernel written for HIP: HIP's kernel names as CUDA's (kernels/t1/hip_runtime.h), once.
      if (std::find(dropped.begin(), dropped.end(), "hip") == dropped.end()) {
        dropped.push_back("hip");
        out += "// " + line + "  (pimg-tune's HIP-to-CUDA mapping, kernels/t1/hip_runtime.h)\n" + hip_mapping() + "\n";
      } else {
        out += "// " + line + "  (included above)\n";
      }
      out += fmt::format("#line {} \"{}\"{}", line_no + 1, shown(file), newline);
    } else if (cuda && !name.empty() && kNvrtcBuiltIn.count(name)) {
      dropped.push_back(name);
      out += "// " + line + "  (left out: NVRTC builds in what kernels use of it)\n";
      if (name == "math.h" || name == "cmath") {  // its functions are built in; its POSIX constants are not
        static const std::pair<const char*, const char*> kConstants[] = {
            {"M_E", "2.7182818284590452354"},     {"M_LOG2E", "1.4426950408889634074"},
            {"M_LOG10E", "0.43429448190325182765"}, {"M_LN2", "0.69314718055994530942"},
            {"M_LN10", "2.30258509299404568402"},  {"M_PI", "3.14159265358979323846"},
            {"M_PI_2", "1.57079632679489661923"},  {"M_PI_4", "0.78539816339744830962"},
            {"M_1_PI", "0.31830988618379067154"},  {"M_2_PI", "0.63661977236758134308"},
            {"M_2_SQRTPI", "1.12837916709551257390"}, {"M_SQRT2", "1.41421356237309504880"},
            {"M_SQRT1_2", "0.70710678118654752440"}};
        for (const auto& [macro, value] : kConstants) out += fmt::format("#ifndef {0}\n#define {0} {1}\n#endif\n", macro, value);
      }
      out += fmt::format("#line {} \"{}\"{}", line_no + 1, shown(file), newline);
    } else {
      out += line + newline;
    }
    pos = end + 1;
  }
  return out;
}

// A kernel written for HIP uses only the HIP names that kernels/t1/hip_runtime.h maps to CUDA's; any other (outside
// comments) is refused, named, since NVRTC would stop at it with a message about CUDA.
void check_hip_names(const Reader& r, const YAML::Node& at, const std::string& text) {
  static const std::set<std::string> mapped = [] {  // the names the mapping defines
    std::set<std::string> names;
    const std::string& hip = hip_mapping();
    const std::regex define(R"(#define\s+([A-Za-z_]\w*))");
    for (auto it = std::sregex_iterator(hip.begin(), hip.end(), define); it != std::sregex_iterator(); ++it)
      names.insert((*it)[1].str());
    return names;
  }();
  static const std::regex kComment(R"(//[^\n]*|/\*[\s\S]*?\*/)");
  const std::string code = std::regex_replace(text, kComment, " ");
  static const std::regex kHipName(R"(\b(hip[A-Z_]\w*|__hip\w*|HIP_\w+|__HIP\w*)\b)");
  std::set<std::string> unmapped;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), kHipName); it != std::sregex_iterator(); ++it)
    if (!mapped.count((*it)[1].str())) unmapped.insert((*it)[1].str());
  if (!unmapped.empty())
    r.fail(at, "KernelSpecification.KernelFile",
           fmt::format("a kernel written for HIP uses {} that pimg-tune's HIP-to-CUDA mapping (kernels/t1/hip_runtime.h) "
                       "does not cover: {}; it maps the thread, block and grid index names and HIP_DYNAMIC_SHARED",
                       unmapped.size() == 1 ? "a HIP name" : "HIP names", fmt::join(unmapped, ", ")));
}

// What a fill's DataSource contributes to the problem's identity: a Generator's expression, a raw file's hash.
std::string fill_source_id(const T1Fill& f) {
  if (f.generator) return f.data_source;
  return f.data_source.empty() ? "" : hash128(read_file(f.data_source, "data file"));
}

// Whether `text` declares a __constant__ variable `name` (CUDA constant memory the host copies to).
bool declares_constant(const std::string& text, const std::string& name) {
  for (std::size_t at = text.find("__constant__"); at != std::string::npos; at = text.find("__constant__", at + 1)) {
    const std::size_t end = text.find_first_of(";{", at);
    const std::string decl = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    for (std::size_t k = decl.find(name); k != std::string::npos; k = decl.find(name, k + 1)) {
      const bool left = k == 0 || !(std::isalnum(static_cast<unsigned char>(decl[k - 1])) || decl[k - 1] == '_');
      const std::size_t e = k + name.size();
      const bool right = e >= decl.size() || !(std::isalnum(static_cast<unsigned char>(decl[e])) || decl[e] == '_');
      if (left && right) return true;
    }
  }
  return false;
}

}  // namespace pimg::user::t1_detail
