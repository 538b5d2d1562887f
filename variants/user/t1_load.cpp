// Reads a T1 file (JSON, parsed by yaml-cpp for its line and column marks) into a T1Spec, accepting
// what real files contain (sizes as expressions, Python conditions, value lists as strings or arrays)
// and refusing, with FILE:LINE:COLUMN and the field, what pimg-tune cannot run.
#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "t1.hpp"

namespace fs = std::filesystem;

namespace pimg::user {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;  // per argument

class Reader {
 public:
  Reader(std::string file, std::vector<T1Assumption>& assumed) : file_(std::move(file)), assumed_(&assumed) {}

  SourcePos pos(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    return {file_, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& field, const std::string& msg) const {
    std::string m = fmt::format("{}: {}: {}", pos(n).str(), field, msg);
    std::replace(m.begin(), m.end(), '\n', ' ');
    throw UsageError(m);
  }
  YAML::Node need(const YAML::Node& parent, const char* key, const std::string& field) const {
    YAML::Node n = parent[key];
    if (!n) fail(parent, field, fmt::format("missing '{}'", key));
    return n;
  }
  YAML::Node map(const YAML::Node& n, const std::string& field) const {
    if (!n.IsMap()) fail(n, field, "must be an object");
    return n;
  }
  YAML::Node list(const YAML::Node& n, const std::string& field) const {
    if (!n.IsSequence()) fail(n, field, "must be an array");
    return n;
  }
  // A leniency: what the loader assumed, once per field.
  void assume(const YAML::Node& n, const std::string& field, const std::string& what, const std::string& tag) const {
    assumed_->push_back({pos(n).str(), field, what, tag});
  }
  // An expression's error: the field's place in the file and the column inside the expression.
  [[noreturn]] void fail_expr(const YAML::Node& n, const std::string& field, const PyError& e,
                              const std::string& context = "") const {
    const std::string text = n.IsScalar() ? n.Scalar() : "";
    fail(n, field, fmt::format("'{}': column {} of the expression: {}{}", text.size() > 60 ? text.substr(0, 60) + "..." : text,
                               e.offset() + 1, e.what(), context));
  }
  static bool quoted(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "!"; }
  std::string text(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar() || !quoted(n)) fail(n, field, "must be a string");
    return n.Scalar();
  }
  // A JSON number (or a string holding an expression without names) as a Python value.
  PyValue number(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be a number");
    const std::string s = n.Scalar();
    if (!quoted(n) && (s == "true" || s == "false")) return PyValue::integer(s == "true");
    PyValue v;
    try {
      v = PyExpr::parse(s).eval([](const std::string&) { return std::nullopt; });
    } catch (const PyError& e) {
      fail_expr(n, field, e, " (a number was expected)");
    }
    if (!v.numeric()) fail(n, field, fmt::format("must be a number, not {}", v.repr()));
    return v;
  }
  std::int64_t integer(const YAML::Node& n, const std::string& field) const {
    PyValue v = number(n, field);
    if (v.kind != PyValue::Kind::Int) fail(n, field, "must be an integer");
    return v.i;
  }
  PyExpr expr(const YAML::Node& n, const std::string& field) const {
    if (!n.IsScalar()) fail(n, field, "must be an expression (a string or a number)");
    try {
      return PyExpr::parse(n.Scalar());
    } catch (const PyError& e) {
      fail_expr(n, field, e);
    }
  }
  // An expression parsed and evaluated with `names`.
  PyValue value(const YAML::Node& n, const std::string& field, const PyNames& names) const {
    const PyExpr e = expr(n, field);
    try {
      return e.eval(names);
    } catch (const PyError& err) {
      fail_expr(n, field, err);
    }
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<T1Assumption>* assumed_;
};

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
                            std::set<std::string>& seen, std::vector<std::string>& dropped, int depth = 0) {
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

// JSON allows tabs between tokens where YAML's flow style does not; a tab is one column either way.
std::string untab(std::string s) {
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' && (i == 0 || s[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && s[i] == '\t') s[i] = ' ';
  }
  return s;
}

std::optional<T1Type> type_named(const std::string& t) {
  static const std::map<std::string, std::pair<char, int>> scalars = {
      {"bool", {'b', 1}},   {"int8", {'i', 1}},   {"uint8", {'u', 1}}, {"int16", {'i', 2}}, {"uint16", {'u', 2}},
      {"int32", {'i', 4}},  {"uint32", {'u', 4}}, {"int64", {'i', 8}}, {"uint64", {'u', 8}}, {"half", {'f', 2}},
      {"float", {'f', 4}},  {"double", {'f', 8}}};
  for (const auto& [base, kb] : scalars) {
    if (t == base) return T1Type{t, kb.first, kb.second, 1};
    if (kb.first == 'f' && t.rfind(base, 0) == 0)
      for (int lanes : {2, 3, 4, 8, 16})
        if (t == base + std::to_string(lanes)) return T1Type{t, kb.first, kb.second, lanes};
  }
  return std::nullopt;
}

// Argument types of other tools' dialects (BAT, Kernel Tuner, C), as the schema's spelling.
std::optional<std::string> schema_type(const std::string& t) {
  static const std::map<std::string, std::string> spellings = {
      {"int", "int32"},        {"uint", "uint32"},        {"unsigned", "uint32"},      {"unsigned int", "uint32"},
      {"char", "int8"},        {"uchar", "uint8"},        {"unsigned char", "uint8"},  {"short", "int16"},
      {"ushort", "uint16"},    {"long", "int64"},         {"ulong", "uint64"},         {"int8_t", "int8"},
      {"uint8_t", "uint8"},    {"int16_t", "int16"},      {"uint16_t", "uint16"},      {"int32_t", "int32"},
      {"uint32_t", "uint32"},  {"int64_t", "int64"},      {"uint64_t", "uint64"},      {"float32", "float"},
      {"float64", "double"}};
  auto it = spellings.find(t);
  if (it == spellings.end()) return std::nullopt;
  return it->second;
}

std::string strategy_for(const std::string& search) {
  std::string s;
  for (char c : search)
    if (c != '_' && c != ' ' && c != '-') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::map<std::string, std::string> names = {
      {"exhaustive", "exhaustive"},     {"bruteforce", "exhaustive"},  {"random", "random"},
      {"randomsearch", "random"},       {"randomsampling", "random"},  {"annealing", "annealing"},
      {"simulatedannealing", "annealing"}, {"genetic", "genetic"},     {"geneticalgorithm", "genetic"},
      {"diffevo", "diffevo"},           {"differentialevolution", "diffevo"}, {"local", "local"},
      {"localsearch", "local"},         {"greedyils", "local"},        {"greedymls", "local"},
      {"forest", "forest"},             {"profilebased", "forest"}};
  auto it = names.find(s);
  return it == names.end() ? "" : it->second;
}

Value param_value(const Reader& r, const YAML::Node& at, const std::string& field, const std::string& type,
                  const PyValue& v) {
  if (type == "string") {
    if (v.kind != PyValue::Kind::Str) r.fail(at, field, fmt::format("{} is not a string", v.repr()));
    if (v.s.empty() || v.s.find_first_of(" \t\n\"'\\") != std::string::npos)
      r.fail(at, field, fmt::format("string value {} must be one word (it becomes a define)", v.repr()));
    return v.s;
  }
  if (!v.numeric()) r.fail(at, field, fmt::format("{} is not a number", v.repr()));
  if (type == "float") return fmt::format("{}", v.number());
  if (v.kind == PyValue::Kind::Real && v.r != std::floor(v.r))
    r.fail(at, field, fmt::format("{} is not an integer", v.repr()));
  const auto i = v.kind == PyValue::Kind::Int ? v.i : static_cast<std::int64_t>(v.r);
  if (type == "uint" && i < 0) r.fail(at, field, fmt::format("{} is negative", i));
  if (type == "bool" && i != 0 && i != 1) r.fail(at, field, fmt::format("{} is not a bool", i));
  return i;
}

// Parameter types of other tools' dialects, as the schema's int, uint, float, bool, string.
std::optional<std::string> param_type(const std::string& t) {
  static const std::map<std::string, std::string> spellings = {
      {"int8", "int"},    {"int16", "int"},   {"int32", "int"},     {"int64", "int"},    {"integer", "int"},
      {"long", "int"},    {"uint8", "uint"},  {"uint16", "uint"},   {"uint32", "uint"},  {"uint64", "uint"},
      {"unsigned", "uint"}, {"double", "float"}, {"float32", "float"}, {"float64", "float"}, {"boolean", "bool"},
      {"str", "string"}};
  auto it = spellings.find(t);
  if (it == spellings.end()) return std::nullopt;
  return it->second;
}

T1Parameter read_param(const Reader& r, const YAML::Node& p, const std::string& field, const T1Overrides& o) {
  r.map(p, field);
  T1Parameter out;
  out.pos = r.pos(p);
  out.name = r.text(r.need(p, "Name", field), field + ".Name");
  if (out.name.empty() || !(std::isalpha(static_cast<unsigned char>(out.name[0])) || out.name[0] == '_') ||
      !std::all_of(out.name.begin(), out.name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    r.fail(p["Name"], field + ".Name", fmt::format("'{}' is not an identifier (it becomes a define)", out.name));
  const YAML::Node type = r.need(p, "Type", field);
  out.type = r.text(type, field + ".Type");
  if (out.type != "int" && out.type != "uint" && out.type != "bool" && out.type != "float" && out.type != "string") {
    const auto schema = param_type(out.type);
    if (!schema) r.fail(type, field + ".Type", fmt::format("'{}' is not one of int, uint, bool, float, string", out.type));
    r.assume(type, field + ".Type", fmt::format("'{}' is read as the schema's '{}'", out.type, *schema),
             fmt::format("{}.Type={}", out.name, *schema));
    out.type = *schema;
  }
  const YAML::Node values = r.need(p, "Values", field);
  std::vector<PyValue> items;
  const auto set = std::find_if(o.sets.begin(), o.sets.end(), [&](const auto& kv) { return kv.first == out.name; });
  if (set != o.sets.end()) {
    try {  // --set NAME=VALUE: the parameter has that one value
      items.push_back(out.type == "string" ? PyValue::str(set->second)
                                           : PyExpr::parse(set->second).eval([](const std::string&) { return std::nullopt; }));
    } catch (const PyError& e) {
      throw UsageError(fmt::format("--set {}={}: column {}: {}", set->first, set->second, e.offset() + 1, e.what()));
    }
  } else if (values.IsSequence()) {
    for (const auto& v : values)
      items.push_back(Reader::quoted(v) ? PyValue::str(v.Scalar()) : r.number(v, field + ".Values"));
  } else {
    PyValue l = r.value(values, field + ".Values", [](const std::string&) { return std::nullopt; });
    if (l.kind != PyValue::Kind::List) r.fail(values, field + ".Values", "must be a list such as \"[1, 2, 4]\"");
    items = std::move(l.list);
  }
  if (items.empty()) r.fail(values, field + ".Values", "is empty");
  std::set<std::string> seen;
  for (const auto& v : items) {
    Value x = param_value(r, values, field + ".Values", out.type, v);
    if (!seen.insert(to_string(x)).second) r.fail(values, field + ".Values", fmt::format("{} is listed twice", to_string(x)));
    out.values.push_back(std::move(x));
  }
  if (const YAML::Node d = p["Default"]; d && set == o.sets.end()) {
    Value x = param_value(r, d, field + ".Default", out.type,
                          Reader::quoted(d) ? PyValue::str(d.Scalar()) : r.number(d, field + ".Default"));
    if (std::find(out.values.begin(), out.values.end(), x) == out.values.end()) {
      // Kernel Tuner takes the first value where no default fits; BAT's files rely on it.
      r.assume(d, field + ".Default",
               fmt::format("{} is not one of the values; the first value, {}, is the default", to_string(x),
                           to_string(out.values.front())),
               fmt::format("{}.Default={}", out.name, to_string(out.values.front())));
      x = out.values.front();
    }
    out.default_value = std::move(x);
  }
  return out;
}

T1Fill read_fill(const Reader& r, const YAML::Node& a, const std::string& field, const fs::path& dir) {
  T1Fill f;
  const YAML::Node type = r.need(a, "FillType", field);
  f.type = r.text(type, field + ".FillType");
  if (f.type == "Script" || f.type == "BinaryHDF")
    r.fail(type, field + ".FillType",
           fmt::format("'{}' is not supported (it needs a script or HDF5); use Constant, Random, Generator or BinaryRaw",
                       f.type));
  if (f.type != "Constant" && f.type != "Random" && f.type != "BinaryRaw" && f.type != "Generator")
    r.fail(type, field + ".FillType", fmt::format("'{}' is not one of Constant, Random, Generator, BinaryRaw", f.type));
  if (f.type == "Generator") {  // DataSource: an expression of the element's index i
    const YAML::Node src = r.need(a, "DataSource", field);
    f.data_source = r.text(src, field + ".DataSource");
    f.generator = r.expr(src, field + ".DataSource");
    for (const std::int64_t i : {std::int64_t{0}, std::int64_t{1}}) {
      try {
        f.generator->eval(element_index(i)).number();
      } catch (const PyError& e) {
        r.fail_expr(src, field + ".DataSource", e, fmt::format(" (a number of the element index i was expected, at i={})", i));
      }
    }
  }
  if (const YAML::Node v = a["FillValue"]) f.value = r.number(v, field + ".FillValue").number();
  else if (f.type == "Random") f.value = 1.0;
  if (const YAML::Node s = a["RandomSeed"]) {
    const std::int64_t seed = r.integer(s, field + ".RandomSeed");
    if (seed < 0) r.fail(s, field + ".RandomSeed", "must not be negative");
    f.seed = static_cast<std::uint64_t>(seed);
  }
  if (f.type == "BinaryRaw") {
    const YAML::Node src = r.need(a, "DataSource", field);
    fs::path p = r.text(src, field + ".DataSource");
    if (p.is_relative()) p = dir / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) r.fail(src, field + ".DataSource", fmt::format("{} is not a readable file", p.string()));
    f.data_source = p.string();
  }
  return f;
}

// Names an argument size expression may use: ProblemSize, and each parameter as the list of its
// values (so max(filter_width) is the largest).
PyNames size_names(const T1Spec& s) {
  return [&s](const std::string& n) -> std::optional<PyValue> {
    PyValue l;
    l.kind = PyValue::Kind::List;
    if (n == "ProblemSize") {
      for (auto v : s.problem_size) l.list.push_back(PyValue::integer(v));
      return l;
    }
    for (const auto& p : s.params)
      if (p.name == n) {
        for (const auto& v : p.values)
          l.list.push_back(std::holds_alternative<std::int64_t>(v) ? PyValue::integer(std::get<std::int64_t>(v))
                                                                   : PyValue::str(std::get<std::string>(v)));
        return l;
      }
    return std::nullopt;
  };
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

// The number of --set NAME=VALUE.
double set_number(const std::pair<std::string, std::string>& set) {
  PyValue v;
  try {
    v = PyExpr::parse(set.second).eval([](const std::string&) { return std::nullopt; });
  } catch (const PyError& e) {
    throw UsageError(fmt::format("--set {}={}: column {}: {}", set.first, set.second, e.offset() + 1, e.what()));
  }
  if (!v.numeric()) throw UsageError(fmt::format("--set {}={}: not a number", set.first, set.second));
  return v.number();
}

T1Argument read_argument(const Reader& r, const YAML::Node& a, const std::string& field, const T1Spec& s,
                         const fs::path& dir) {
  const T1Overrides& o = s.overrides;
  r.map(a, field);
  T1Argument out;
  out.pos = r.pos(a);
  out.name = a["Name"] ? r.text(a["Name"], field + ".Name") : fmt::format("arg{}", s.args.size());
  const YAML::Node type = r.need(a, "Type", field);
  const std::string tname = r.text(type, field + ".Type");
  if (tname == "custom") r.fail(type, field + ".Type", "'custom' types are not supported (no layout to fill or compare)");
  auto t = type_named(tname);
  if (!t) {
    const auto schema = schema_type(tname);
    if (!schema) r.fail(type, field + ".Type", fmt::format("'{}' is not a type of the schema (int8 .. double16)", tname));
    r.assume(type, field + ".Type", fmt::format("'{}' is read as the schema's '{}'", tname, *schema),
             fmt::format("{}.Type={}", out.name, *schema));
    t = type_named(*schema);
  }
  out.type = *t;
  if (out.type.lanes == 3 && s.language != "CUDA")
    r.fail(type, field + ".Type", fmt::format("'{}': a 3-lane vector is stored as 4 lanes in OpenCL, whose fourth lane "
                                              "a kernel leaves undefined; use a 4-lane type", tname));
  const YAML::Node mem = r.need(a, "MemoryType", field);
  out.memory = r.text(mem, field + ".MemoryType");
  if (out.memory == "Local")
    r.fail(mem, field + ".MemoryType", "'Local' arguments are not supported; size local memory in the kernel from a parameter");
  if (out.memory != "Scalar" && out.memory != "Vector" && out.memory != "Symbol")
    r.fail(mem, field + ".MemoryType", fmt::format("'{}' is not one of Scalar, Vector, Symbol", out.memory));
  if (out.memory == "Symbol" && s.language != "CUDA")
    r.fail(mem, field + ".MemoryType", "'Symbol' arguments exist only for CUDA kernels");
  out.access = a["AccessType"] ? r.text(a["AccessType"], field + ".AccessType") : "ReadOnly";
  if (out.access != "ReadOnly" && out.access != "WriteOnly" && out.access != "ReadWrite")
    r.fail(a["AccessType"], field + ".AccessType", fmt::format("'{}' is not one of ReadOnly, WriteOnly, ReadWrite", out.access));
  if (const YAML::Node o = a["Output"]) out.output = r.number(o, field + ".Output").truthy();
  if (const YAML::Node m = a["MemType"]) {
    const std::string mt = r.text(m, field + ".MemType");
    if (mt != "Constant" && mt != "Global") r.fail(m, field + ".MemType", fmt::format("'{}' is not Constant or Global", mt));
    if (mt == "Constant" && s.language == "CUDA") {
      out.constant_symbol = declares_constant(s.kernel_text, out.name);
      if (!out.constant_symbol)
        r.assume(m, field + ".MemType",
                 fmt::format("the kernel file declares no __constant__ '{}'; it is passed as an ordinary argument", out.name),
                 fmt::format("{}.MemType=Global", out.name));
    }
  }
  const auto set = std::find_if(o.sets.begin(), o.sets.end(), [&](const auto& kv) { return kv.first == out.name; });
  if (out.memory == "Scalar" && (set != o.sets.end() || !a["FillType"])) {
    out.fill.type = "Constant";
    if (set != o.sets.end()) {
      out.fill.value = set_number(*set);
    } else if (const YAML::Node v = a["FillValue"]) {
      out.fill.value = r.number(v, field + ".FillValue").number();
      r.assume(v, field + ".FillType",
               fmt::format("missing; the scalar is the constant FillValue {} (as Kernel Tuner and BAT read it)", out.fill.value),
               fmt::format("{}.FillType=Constant", out.name));
    } else {
      r.fail(a, field, fmt::format("the scalar '{}' has no FillValue (a runner supplies it: give it with --set {}=VALUE)",
                                   out.name, out.name));
    }
  } else {
    if (set != o.sets.end())
      throw UsageError(fmt::format("--set {}: '{}' is a {} argument; --set takes scalar arguments and parameters",
                                   set->first, set->first, out.memory));
    out.fill = read_fill(r, a, field, dir);
  }
  if (out.memory == "Scalar") {
    if (out.type.lanes != 1) r.fail(type, field + ".Type", "a scalar argument of a vector type is not supported");
    if (out.fill.type != "Constant") r.fail(a["FillType"], field + ".FillType", "a scalar argument takes a Constant fill");
    if (out.output) r.fail(a["Output"], field + ".Output", "a scalar cannot be an output");
    return out;
  }
  const YAML::Node size = r.need(a, "Size", field);
  const PyValue n = r.value(size, field + ".Size", size_names(s));
  if (n.kind != PyValue::Kind::Int || n.i <= 0 || static_cast<std::uint64_t>(n.i) > kMaxElements)
    r.fail(size, field + ".Size", fmt::format("must be a positive integer up to 2^32, not {}", n.repr()));
  out.count = static_cast<std::uint64_t>(n.i);
  if (out.fill.type == "BinaryRaw") {
    std::error_code ec;
    const auto bytes = fs::file_size(out.fill.data_source, ec);
    if (bytes != out.count * static_cast<std::uint64_t>(out.type.bytes()))
      r.fail(a["DataSource"], field + ".DataSource",
             fmt::format("{} has {} bytes; {} elements of {} need {}", out.fill.data_source, bytes, out.count,
                         out.type.name, out.count * static_cast<std::uint64_t>(out.type.bytes())));
  }
  return out;
}

void read_size(const Reader& r, const YAML::Node& ks, const char* key, std::array<std::optional<PyExpr>, 3>& out,
               bool required) {
  const std::string field = std::string("KernelSpecification.") + key;
  const YAML::Node n = ks[key];
  if (!n) {
    if (required) r.fail(ks, field, "missing");
    return;
  }
  r.map(n, field);
  static const char* dims[] = {"X", "Y", "Z"};
  for (int d = 0; d < 3; ++d)
    if (const YAML::Node e = n[dims[d]]) out[d] = r.expr(e, field + "." + dims[d]);
  if (!out[0]) r.fail(n, field, "missing 'X'");
}

}  // namespace

PyNames geometry_names(const T1Spec& spec, const Config& c) {
  return [&spec, &c](const std::string& n) -> std::optional<PyValue> {
    if (n == "ProblemSize") {
      PyValue l;
      l.kind = PyValue::Kind::List;
      for (auto v : spec.problem_size) l.list.push_back(PyValue::integer(v));
      return l;
    }
    if (!c.has(n)) return std::nullopt;
    const Value& v = c.at(n);
    if (auto i = std::get_if<std::int64_t>(&v)) return PyValue::integer(*i);
    return PyValue::str(std::get<std::string>(v));
  };
}

int T1Spec::output_index() const {
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].output) return static_cast<int>(i);
  return -1;
}

Config T1Spec::default_config() const {
  Config c;
  for (const auto& p : params) c.set(p.name, p.default_value ? *p.default_value : p.values.front());
  return c;
}

std::string T1Assumption::warning() const { return fmt::format("{}: warning: {}: {}", where, field, what); }

std::string T1Spec::assumed() const {
  std::vector<std::string> tags;
  for (const auto& a : assumptions) tags.push_back(a.tag);
  return fmt::format("{}", fmt::join(tags, ","));
}

// "problem-size=4096,4096" and "set=NAME=VALUE" fields separated by tabs.
std::string T1Overrides::encode() const {
  std::string out;
  if (!problem_size.empty()) out += fmt::format("problem-size={}", fmt::join(problem_size, ","));
  for (const auto& [k, v] : sets) out += fmt::format("{}set={}={}", out.empty() ? "" : "\t", k, v);
  return out;
}

T1Overrides T1Overrides::decode(const std::string& text) {
  T1Overrides o;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\t', pos);
    if (end == std::string::npos) end = text.size();
    const std::string f = text.substr(pos, end - pos);
    if (f.rfind("problem-size=", 0) == 0) {
      std::stringstream ss(f.substr(13));
      for (std::string n; std::getline(ss, n, ',');) o.problem_size.push_back(std::stoll(n));
    } else if (f.rfind("set=", 0) == 0 && f.find('=', 4) != std::string::npos) {
      const std::size_t eq = f.find('=', 4);
      o.sets.emplace_back(f.substr(4, eq - 4), f.substr(eq + 1));
    }
    pos = end + 1;
  }
  return o;
}

T1Spec load_t1(const std::string& path, const T1Overrides& overrides) {
  const std::string json = read_file(path, "T1 file");
  T1Spec s;
  s.overrides = overrides;
  Reader r(path, s.assumptions);
  YAML::Node root;
  try {
    root = YAML::Load(untab(json));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}:{}: not valid JSON: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root || !root.IsMap()) throw UsageError(fmt::format("{}: a T1 file is a JSON object", path));
  const fs::path dir = fs::path(path).parent_path();
  s.file = path;

  const YAML::Node general = root["General"];
  if (general) r.map(general, "General");
  const YAML::Node ks = r.map(r.need(root, "KernelSpecification", "T1"), "KernelSpecification");
  const YAML::Node lang = r.need(ks, "Language", "KernelSpecification");
  s.language = r.text(lang, "KernelSpecification.Language");
  // HIP's kernel language is CUDA's with other names: compiled as CUDA through the mapping (below).
  const bool hip_language = s.language == "HIP";
  if (hip_language) s.language = "CUDA";
  if (s.language != "CUDA" && s.language != "OpenCL")
    r.fail(lang, "KernelSpecification.Language", fmt::format("'{}' is not supported (CUDA or OpenCL)", s.language));
  s.kernel_name = r.text(r.need(ks, "KernelName", "KernelSpecification"), "KernelSpecification.KernelName");
  std::string bench = general && general["BenchmarkName"] ? r.text(general["BenchmarkName"], "General.BenchmarkName")
                      : ks["BenchmarkName"] ? r.text(ks["BenchmarkName"], "KernelSpecification.BenchmarkName")
                                            : s.kernel_name;
  for (char& c : bench)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  s.name = "t1-" + bench;
  // KernelFile: the kernel's file, or (as Kernel Tuner's kernel_source takes) a list whose first file is the kernel
  // and whose others are the files it includes, wherever they lie: their folders join the include search.
  const YAML::Node kf_given = r.need(ks, "KernelFile", "KernelSpecification");
  const bool kf_listed = kf_given.IsSequence();
  if (kf_listed && kf_given.size() == 0) r.fail(kf_given, "KernelSpecification.KernelFile", "is an empty list");
  const YAML::Node kf = kf_listed ? kf_given[0] : kf_given;
  std::vector<fs::path> include_dirs;
  const auto readable = [&](const YAML::Node& n, const std::string& field) {
    fs::path p = r.text(n, field);
    if (p.is_relative()) p = dir / p;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) r.fail(n, field, fmt::format("{} is not a readable file", p.string()));
    return p.lexically_normal();
  };
  fs::path kernel = readable(kf, kf_listed ? "KernelSpecification.KernelFile[0]" : "KernelSpecification.KernelFile");
  for (std::size_t i = 1; kf_listed && i < kf_given.size(); ++i)
    include_dirs.push_back(
        readable(kf_given[i], fmt::format("KernelSpecification.KernelFile[{}]", i)).parent_path());
  s.kernel_path = kernel.lexically_normal().string();
  {
    std::set<std::string> seen = {fs::weakly_canonical(kernel).string()};
    std::vector<std::string> dropped;
    const fs::path root = kernel.lexically_normal().parent_path();
    std::vector<fs::path> search = {root, dir};
    search.insert(search.end(), include_dirs.begin(), include_dirs.end());
    s.kernel_text = expand_includes(kernel.lexically_normal(), root, search, s.language == "CUDA", seen, dropped);
    const auto hip_at = std::find(dropped.begin(), dropped.end(), "hip");
    const bool hip_included = hip_at != dropped.end();
    if (hip_included) dropped.erase(hip_at);
    if (hip_language && !hip_included) {  // a HIP kernel that relies on the compiler's implicit runtime header
      s.kernel_text = hip_mapping() + fmt::format("\n#line 1 \"{}\"\n", kernel.filename().string()) + s.kernel_text;
    }
    if (hip_language || hip_included) {
      check_hip_names(r, kf, s.kernel_text);
      r.assume(hip_language ? lang : kf, hip_language ? "KernelSpecification.Language" : "KernelSpecification.KernelFile",
               "a kernel written for HIP, compiled as CUDA for NVIDIA GPUs through pimg-tune's HIP-to-CUDA mapping "
               "(kernels/t1/hip_runtime.h: hipThreadIdx_x and the other index names, HIP_DYNAMIC_SHARED)",
               "hip=cuda");
    }
    if (!dropped.empty())
      r.assume(kf, "KernelSpecification.KernelFile",
               fmt::format("#include <{}> left out: NVRTC builds in what CUDA kernels use of {}{}", fmt::join(dropped, ">, <"),
                           dropped.size() == 1 ? "it" : "them",
                           std::any_of(dropped.begin(), dropped.end(), [](const std::string& h) { return h == "math.h" || h == "cmath"; })
                               ? " (math.h's M_PI and other M_ constants are defined in its place)"
                               : ""),
               "KernelFile.include=" + fmt::format("{}", fmt::join(dropped, "+")));
  }
  if (s.kernel_text.find(s.kernel_name) == std::string::npos)
    r.fail(ks["KernelName"], "KernelSpecification.KernelName",
           fmt::format("'{}' does not occur in {}", s.kernel_name, s.kernel_path));
  // A CUDA kernel is found by its plain name, as Kernel Tuner does: a source without extern "C" is
  // compiled inside an extern "C" block (otherwise its entry points carry C++ mangled names).
  if (s.language == "CUDA" && s.kernel_text.find("extern \"C\"") == std::string::npos)
    s.kernel_text = "extern \"C\" {\n" + s.kernel_text + "\n}\n";
  if (const YAML::Node o = ks["CompilerOptions"]) {
    r.list(o, "KernelSpecification.CompilerOptions");
    for (const auto& x : o) s.compiler_options.push_back(r.text(x, "KernelSpecification.CompilerOptions"));
  }

  // Parameters and conditions.
  const YAML::Node cs = r.map(r.need(root, "ConfigurationSpace", "T1"), "ConfigurationSpace");
  const YAML::Node tps = r.list(r.need(cs, "TuningParameters", "ConfigurationSpace"), "ConfigurationSpace.TuningParameters");
  std::set<std::string> names;
  for (std::size_t i = 0; i < tps.size(); ++i) {
    const std::string field = fmt::format("ConfigurationSpace.TuningParameters[{}]", i);
    s.params.push_back(read_param(r, tps[i], field, overrides));
    if (!names.insert(s.params.back().name).second)
      r.fail(tps[i], field + ".Name", fmt::format("parameter '{}' is declared twice", s.params.back().name));
  }
  if (s.params.empty()) r.fail(tps, "ConfigurationSpace.TuningParameters", "is empty");
  if (const YAML::Node conds = cs["Conditions"]) {
    r.list(conds, "ConfigurationSpace.Conditions");
    for (std::size_t i = 0; i < conds.size(); ++i) {
      const std::string field = fmt::format("ConfigurationSpace.Conditions[{}]", i);
      const YAML::Node c = r.map(conds[i], field);
      const YAML::Node e = r.need(c, "Expression", field);
      r.text(e, field + ".Expression");
      PyExpr x = r.expr(e, field + ".Expression");
      for (const auto& n : x.names())
        if (!names.count(n)) r.fail(e, field + ".Expression", fmt::format("'{}' is not a tuning parameter", n));
      try {
        s.conditions.push_back({x.to_muparser(), r.pos(e)});
      } catch (const PyError& err) {
        r.fail_expr(e, field + ".Expression", err);
      }
    }
  }

  // Geometry. ProblemSize: --problem-size, else the file's (an array, or one number as BAT writes it).
  if (!overrides.problem_size.empty()) {
    s.problem_size = overrides.problem_size;
  } else {
    const YAML::Node ps = ks["ProblemSize"];
    if (!ps)
      r.fail(ks, "KernelSpecification.ProblemSize",
             "missing (BAT's runner supplies it: give it with --problem-size N[,N[,N]])");
    if (ps.IsScalar()) {
      r.assume(ps, "KernelSpecification.ProblemSize", fmt::format("one number, read as [{}]", ps.Scalar()),
               "ProblemSize=[n]");
      s.problem_size.push_back(r.integer(ps, "KernelSpecification.ProblemSize"));
    } else {
      r.list(ps, "KernelSpecification.ProblemSize");
      for (const auto& v : ps) s.problem_size.push_back(r.integer(v, "KernelSpecification.ProblemSize"));
    }
    for (std::size_t d = 0; d < s.problem_size.size(); ++d)
      if (s.problem_size[d] <= 0 || s.problem_size[d] > (std::int64_t{1} << 31))
        r.fail(ps.IsSequence() ? ps[d] : ps, "KernelSpecification.ProblemSize",
               fmt::format("{} is out of range (1 to 2^31)", s.problem_size[d]));
    if (s.problem_size.empty() || s.problem_size.size() > 3)
      r.fail(ps, "KernelSpecification.ProblemSize", "must have 1 to 3 dimensions");
  }
  read_size(r, ks, "GlobalSize", s.global, true);
  read_size(r, ks, "LocalSize", s.local, true);
  s.global_size_type = ks["GlobalSizeType"] ? r.text(ks["GlobalSizeType"], "KernelSpecification.GlobalSizeType") : s.language;
  if (s.global_size_type != "CUDA" && s.global_size_type != "OpenCL")
    r.fail(ks["GlobalSizeType"], "KernelSpecification.GlobalSizeType", fmt::format("'{}' is not CUDA or OpenCL", s.global_size_type));
  static const char* divs[] = {"GridDivX", "GridDivY", "GridDivZ"};
  for (int d = 0; d < 3; ++d)
    if (const YAML::Node g = ks[divs[d]]) {
      const std::string field = std::string("KernelSpecification.") + divs[d];
      r.list(g, field);
      if (g.size() == 0 && static_cast<std::size_t>(d) >= s.problem_size.size()) continue;  // says nothing (BAT's pnpoly)
      for (const auto& x : g) {
        const std::string n = r.text(x, field);
        if (!names.count(n)) r.fail(x, field, fmt::format("'{}' is not a tuning parameter", n));
        s.grid_div[d].push_back(n);
      }
      if (static_cast<std::size_t>(d) >= s.problem_size.size())
        r.fail(g, field, fmt::format("ProblemSize has no dimension {}", d));
      s.has_grid_div = true;
    }
  if (const YAML::Node sm = ks["SharedMemory"]; sm && sm.IsNull()) {
    r.assume(sm, "KernelSpecification.SharedMemory", "null, read as 0 bytes", "SharedMemory=0");
  } else if (sm) {
    s.shared_memory = r.integer(sm, "KernelSpecification.SharedMemory");
    if (s.shared_memory < 0 || s.shared_memory > (1 << 20)) r.fail(sm, "KernelSpecification.SharedMemory", "out of range");
  }
  const Config dflt = s.default_config();
  for (auto* sizes : {&s.global, &s.local})
    for (int d = 0; d < 3; ++d)
      if ((*sizes)[d]) {
        const char* what = sizes == &s.global ? "GlobalSize" : "LocalSize";
        try {
          (*sizes)[d]->eval(geometry_names(s, dflt));
        } catch (const PyError& e) {
          r.fail_expr(ks[what][std::string(1, "XYZ"[d])],
                      fmt::format("KernelSpecification.{}.{}", what, "XYZ"[d]), e, " (with the default configuration)");
        }
      }

  // Arguments.
  const YAML::Node args = r.list(r.need(ks, "Arguments", "KernelSpecification"), "KernelSpecification.Arguments");
  std::set<std::string> arg_names;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string field = fmt::format("KernelSpecification.Arguments[{}]", i);
    s.args.push_back(read_argument(r, args[i], field, s, dir));
    if (!arg_names.insert(s.args.back().name).second)
      r.fail(args[i], field + ".Name", fmt::format("argument '{}' is declared twice", s.args.back().name));
  }
  // Host memory, checked before anything is allocated: the tuner holds each input once and each written
  // argument three times (its fill, the reference output and the read-back).
  {
    const std::uint64_t host = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) *
                               static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    std::uint64_t need = 0;
    for (std::size_t i = 0; i < s.args.size(); ++i) {
      const T1Argument& a = s.args[i];
      if (a.memory != "Vector") continue;
      need += a.count * static_cast<std::uint64_t>(a.type.bytes()) * (a.access == "ReadOnly" ? 1 : 3);
      if (host > 0 && need > host)
        r.fail(args[i]["Size"], fmt::format("KernelSpecification.Arguments[{}].Size", i),
               fmt::format("the arguments up to this one need {} MiB of host memory (inputs once, written arguments "
                           "three times: fill, reference and read-back), more than this host's {} MiB",
                           need >> 20, host >> 20));
    }
  }
  if (s.output_index() < 0)  // no Output flag: the one written argument
    for (auto& a : s.args)
      if (a.memory == "Vector" && a.access != "ReadOnly") {
        a.output = true;
        break;
      }
  int outputs = 0;
  for (std::size_t i = 0; i < s.args.size(); ++i)
    if (s.args[i].output) {
      ++outputs;
      if (s.args[i].memory != "Vector")
        r.fail(args[i], fmt::format("KernelSpecification.Arguments[{}]", i), "an output must be a Vector");
      if (outputs > 1) {  // the first is validated; the others are written, not compared
        s.args[i].output = false;
        const int first = s.output_index();
        r.assume(args[i]["Output"], fmt::format("KernelSpecification.Arguments[{}].Output", i),
                 fmt::format("'{}' is not compared: pimg-tune validates one output, the first ('{}')", s.args[i].name,
                             s.args[static_cast<std::size_t>(first)].name),
                 fmt::format("{}.Output=0", s.args[i].name));
      }
    }
  if (outputs == 0)
    r.fail(args, "KernelSpecification.Arguments", "no output; pimg-tune validates one (mark it \"Output\": 1)");

  if (const YAML::Node refs = ks["ReferenceArguments"]) {
    r.list(refs, "KernelSpecification.ReferenceArguments");
    for (std::size_t i = 0; i < refs.size(); ++i) {
      const std::string field = fmt::format("KernelSpecification.ReferenceArguments[{}]", i);
      const YAML::Node a = r.map(refs[i], field);
      T1Reference ref;
      ref.pos = r.pos(a);
      const YAML::Node target = r.need(a, "TargetName", field);
      ref.target = r.text(target, field + ".TargetName");
      const auto& out = s.args[static_cast<std::size_t>(s.output_index())];
      if (ref.target != out.name)
        r.fail(target, field + ".TargetName", fmt::format("'{}' is not the output argument '{}'", ref.target, out.name));
      ref.fill = read_fill(r, a, field, dir);
      if (ref.fill.type == "BinaryRaw") {
        std::error_code ec;
        const auto bytes = fs::file_size(ref.fill.data_source, ec);
        if (bytes != out.count * static_cast<std::uint64_t>(out.type.bytes()))
          r.fail(a["DataSource"], field + ".DataSource",
                 fmt::format("{} has {} bytes; the output has {}", ref.fill.data_source, bytes,
                             out.count * static_cast<std::uint64_t>(out.type.bytes())));
      }
      if (const YAML::Node m = a["ValidationMethod"]) {
        ref.method = r.text(m, field + ".ValidationMethod");
        if (ref.method != "AbsoluteDifference" && ref.method != "SideBySideComparison" &&
            ref.method != "SideBySideRelativeComparison")
          r.fail(m, field + ".ValidationMethod",
                 fmt::format("'{}' is not AbsoluteDifference, SideBySideComparison or SideBySideRelativeComparison", ref.method));
      }
      if (const YAML::Node t = a["ValidationThreshold"]) {
        ref.threshold = r.number(t, field + ".ValidationThreshold").number();
        if (!(*ref.threshold >= 0)) r.fail(t, field + ".ValidationThreshold", "must not be negative");
      }
      if (!s.refs.empty()) r.fail(a, field, "one reference argument per output");
      s.refs.push_back(std::move(ref));
    }
  }

  // Search and budget: the strategy and its stopping options.
  if (const YAML::Node search = root["Search"]) {
    r.map(search, "Search");
    const YAML::Node n = r.need(search, "Name", "Search");
    const std::string name = r.text(n, "Search.Name");
    s.strategy.name = strategy_for(name);
    if (s.strategy.name.empty()) r.fail(n, "Search.Name", fmt::format("'{}' is not a strategy pimg-tune has", name));
    s.strategy.pos = r.pos(n);
    if (const YAML::Node attrs = search["Attributes"]) {
      r.list(attrs, "Search.Attributes");
      for (const auto& a : attrs) {
        r.map(a, "Search.Attributes");
        const std::string key = r.text(r.need(a, "Name", "Search.Attributes"), "Search.Attributes.Name");
        const YAML::Node v = r.need(a, "Value", "Search.Attributes");
        if (key == "seed") s.strategy.seed = static_cast<std::uint64_t>(std::max<std::int64_t>(0, r.integer(v, "Search.Attributes.Value")));
        else s.strategy.options[key] = v.Scalar();
      }
    }
  }
  if (const YAML::Node budget = root["Budget"]) {
    std::vector<YAML::Node> budgets;
    if (budget.IsMap()) {  // BAT writes one budget as an object
      r.assume(budget, "Budget", "an object, read as a list of one budget", "Budget=[object]");
      budgets.push_back(budget);
    } else {
      for (const auto& b : r.list(budget, "Budget")) budgets.push_back(b);
    }
    for (const auto& b : budgets) {
      r.map(b, "Budget");
      const YAML::Node t = r.need(b, "Type", "Budget");
      const std::string type = r.text(t, "Budget.Type");
      const double v = r.number(r.need(b, "BudgetValue", "Budget"), "Budget.BudgetValue").number();
      if (!(v > 0)) r.fail(b["BudgetValue"], "Budget.BudgetValue", "must be positive");
      if (type == "ConfigurationCount") s.strategy.options["budget"] = fmt::format("{}", static_cast<std::int64_t>(v));
      else if (type == "ConfigurationFraction") s.strategy.options["fraction"] = fmt::format("{}", v);
      else if (type == "TuningDuration") s.strategy.options["time_s"] = fmt::format("{}", v);
      else r.fail(t, "Budget.Type", fmt::format("'{}' is not TuningDuration, ConfigurationCount or ConfigurationFraction", type));
    }
    if (!root["Search"]) s.strategy.name = "random";
  }

  for (const auto& set : overrides.sets) {
    const std::string& name = set.first;  // not a structured binding: lambdas below capture it (clang 14)
    const std::string& value = set.second;
    const bool param = std::any_of(s.params.begin(), s.params.end(), [&](const T1Parameter& p) { return p.name == name; });
    const bool scalar = std::any_of(s.args.begin(), s.args.end(), [&](const T1Argument& a) { return a.name == name; });
    if (!param && !scalar)
      throw UsageError(fmt::format("--set {}={}: {} has no tuning parameter or scalar argument '{}'", name, value, path, name));
  }

  // The problem's identity: everything that decides the inputs and the reference.
  std::string id = fmt::format("{}|{}|{}", s.language, s.kernel_name, fmt::join(s.problem_size, "x"));
  for (const auto& a : s.args)
    id += fmt::format("|{}:{}:{}:{}:{}:{}:{}:{}{}", a.name, a.type.name, a.memory, a.count, a.fill.type, a.fill.value,
                      a.fill.seed,
                      fill_source_id(a.fill),
                      a.access == "ReadWrite" ? ":rw" : "");  // read and updated: its fill is an input too
  for (const auto& ref : s.refs)
    id += fmt::format("|ref:{}:{}:{}:{}", ref.fill.type, ref.fill.value,
                      fill_source_id(ref.fill),
                      ref.method);
  s.identity = hash128(id).substr(0, 16);
  return s;
}

}  // namespace pimg::user
