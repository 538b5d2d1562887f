// Reads a T1 file (JSON, parsed by yaml-cpp for its line and column marks) into a T1Spec, accepting
// what real files contain (sizes as expressions, Python conditions, value lists as strings or arrays)
// and refusing, with FILE:LINE:COLUMN and the field, what pimg-tune cannot run.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "t1.hpp"

namespace fs = std::filesystem;

namespace pimg::user {
namespace {

constexpr std::uintmax_t kMaxFileBytes = 16u << 20;
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;  // per argument

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

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
    try {
      PyValue v = PyExpr::parse(s).eval([](const std::string&) { return std::nullopt; });
      if (v.numeric()) return v;
    } catch (const PyError&) {
    }
    fail(n, field, fmt::format("must be a number, not '{}'", s.substr(0, 40)));
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
      fail(n, field, fmt::format("'{}': {} (at offset {})", n.Scalar(), e.what(), e.offset()));
    }
  }

  const std::string& file() const { return file_; }

 private:
  std::string file_;
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
      {"float", {'f', 4}},  {"double", {'f', 8}}, {"int", {'i', 4}},   {"uint", {'u', 4}}};
  for (const auto& [base, kb] : scalars) {
    if (t == base) return T1Type{t, kb.first, kb.second, 1};
    if (kb.first == 'f' && t.rfind(base, 0) == 0)
      for (int lanes : {2, 4, 8, 16})
        if (t == base + std::to_string(lanes)) return T1Type{t, kb.first, kb.second, lanes};
  }
  return std::nullopt;
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

T1Parameter read_param(const Reader& r, const YAML::Node& p, const std::string& field) {
  r.map(p, field);
  T1Parameter out;
  out.pos = r.pos(p);
  out.name = r.text(r.need(p, "Name", field), field + ".Name");
  if (out.name.empty() || !(std::isalpha(static_cast<unsigned char>(out.name[0])) || out.name[0] == '_') ||
      !std::all_of(out.name.begin(), out.name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    r.fail(p["Name"], field + ".Name", fmt::format("'{}' is not an identifier (it becomes a define)", out.name));
  const YAML::Node type = r.need(p, "Type", field);
  out.type = r.text(type, field + ".Type");
  if (out.type != "int" && out.type != "uint" && out.type != "bool" && out.type != "float" && out.type != "string")
    r.fail(type, field + ".Type", fmt::format("'{}' is not one of int, uint, bool, float, string", out.type));
  const YAML::Node values = r.need(p, "Values", field);
  std::vector<PyValue> items;
  if (values.IsSequence()) {
    for (const auto& v : values)
      items.push_back(Reader::quoted(v) ? PyValue::str(v.Scalar()) : r.number(v, field + ".Values"));
  } else {
    PyValue l = r.expr(values, field + ".Values").eval([](const std::string&) { return std::nullopt; });
    if (l.kind != PyValue::Kind::List) r.fail(values, field + ".Values", "must be a list such as \"[1, 2, 4]\"");
    items = l.list;
  }
  if (items.empty()) r.fail(values, field + ".Values", "is empty");
  std::set<std::string> seen;
  for (const auto& v : items) {
    Value x = param_value(r, values, field + ".Values", out.type, v);
    if (!seen.insert(to_string(x)).second) r.fail(values, field + ".Values", fmt::format("{} is listed twice", to_string(x)));
    out.values.push_back(std::move(x));
  }
  if (const YAML::Node d = p["Default"]) {
    Value x = param_value(r, d, field + ".Default", out.type,
                          Reader::quoted(d) ? PyValue::str(d.Scalar()) : r.number(d, field + ".Default"));
    if (std::find(out.values.begin(), out.values.end(), x) == out.values.end())
      r.fail(d, field + ".Default", fmt::format("{} is not one of the values", to_string(x)));
    out.default_value = std::move(x);
  }
  return out;
}

T1Fill read_fill(const Reader& r, const YAML::Node& a, const std::string& field, const fs::path& dir) {
  T1Fill f;
  const YAML::Node type = r.need(a, "FillType", field);
  f.type = r.text(type, field + ".FillType");
  if (f.type == "Generator" || f.type == "Script" || f.type == "BinaryHDF")
    r.fail(type, field + ".FillType",
           fmt::format("'{}' is not supported (it needs a script or HDF5); use Constant, Random or BinaryRaw", f.type));
  if (f.type != "Constant" && f.type != "Random" && f.type != "BinaryRaw")
    r.fail(type, field + ".FillType", fmt::format("'{}' is not one of Constant, Random, BinaryRaw", f.type));
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

T1Argument read_argument(const Reader& r, const YAML::Node& a, const std::string& field, const T1Spec& s,
                         const fs::path& dir) {
  r.map(a, field);
  T1Argument out;
  out.pos = r.pos(a);
  out.name = a["Name"] ? r.text(a["Name"], field + ".Name") : fmt::format("arg{}", s.args.size());
  const YAML::Node type = r.need(a, "Type", field);
  const std::string tname = r.text(type, field + ".Type");
  if (tname == "custom") r.fail(type, field + ".Type", "'custom' types are not supported (no layout to fill or compare)");
  auto t = type_named(tname);
  if (!t) r.fail(type, field + ".Type", fmt::format("'{}' is not a type of the schema (int8 .. double16)", tname));
  out.type = *t;
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
    if (mt == "Constant" && s.language == "CUDA") out.constant_symbol = true;
    else if (mt != "Constant" && mt != "Global") r.fail(m, field + ".MemType", fmt::format("'{}' is not Constant or Global", mt));
  }
  out.fill = read_fill(r, a, field, dir);
  if (out.memory == "Scalar") {
    if (out.type.lanes != 1) r.fail(type, field + ".Type", "a scalar argument of a vector type is not supported");
    if (out.fill.type != "Constant") r.fail(a["FillType"], field + ".FillType", "a scalar argument takes a Constant fill");
    if (out.output) r.fail(a["Output"], field + ".Output", "a scalar cannot be an output");
    return out;
  }
  const YAML::Node size = r.need(a, "Size", field);
  PyValue n;
  try {
    n = r.expr(size, field + ".Size").eval(size_names(s));
  } catch (const PyError& e) {
    r.fail(size, field + ".Size", fmt::format("'{}': {}", size.Scalar(), e.what()));
  }
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

T1Spec load_t1(const std::string& path) {
  const std::string json = read_file(path, "T1 file");
  Reader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(untab(json));
  } catch (const YAML::Exception& e) {
    throw UsageError(fmt::format("{}:{}:{}: not valid JSON: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root || !root.IsMap()) throw UsageError(fmt::format("{}: a T1 file is a JSON object", path));
  const fs::path dir = fs::path(path).parent_path();
  T1Spec s;
  s.file = path;

  const YAML::Node general = root["General"];
  if (general) r.map(general, "General");
  const YAML::Node ks = r.map(r.need(root, "KernelSpecification", "T1"), "KernelSpecification");
  const YAML::Node lang = r.need(ks, "Language", "KernelSpecification");
  s.language = r.text(lang, "KernelSpecification.Language");
  if (s.language == "HIP")
    r.fail(lang, "KernelSpecification.Language", "HIP kernels are not supported (pimg-tune has no HIP backend)");
  if (s.language != "CUDA" && s.language != "OpenCL")
    r.fail(lang, "KernelSpecification.Language", fmt::format("'{}' is not supported (CUDA or OpenCL)", s.language));
  s.kernel_name = r.text(r.need(ks, "KernelName", "KernelSpecification"), "KernelSpecification.KernelName");
  std::string bench = general && general["BenchmarkName"] ? r.text(general["BenchmarkName"], "General.BenchmarkName")
                      : ks["BenchmarkName"] ? r.text(ks["BenchmarkName"], "KernelSpecification.BenchmarkName")
                                            : s.kernel_name;
  for (char& c : bench)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  s.name = "t1-" + bench;
  const YAML::Node kf = r.need(ks, "KernelFile", "KernelSpecification");
  fs::path kernel = r.text(kf, "KernelSpecification.KernelFile");
  if (kernel.is_relative()) kernel = dir / kernel;
  {
    std::error_code ec;
    if (!fs::is_regular_file(kernel, ec))
      r.fail(kf, "KernelSpecification.KernelFile", fmt::format("{} is not a readable file", kernel.string()));
  }
  s.kernel_path = kernel.lexically_normal().string();
  s.kernel_text = read_file(s.kernel_path, "kernel file");
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
    s.params.push_back(read_param(r, tps[i], field));
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
        r.fail(e, field + ".Expression", err.what());
      }
    }
  }

  // Geometry.
  const YAML::Node ps = r.list(r.need(ks, "ProblemSize", "KernelSpecification"), "KernelSpecification.ProblemSize");
  for (const auto& v : ps) {
    const std::int64_t n = r.integer(v, "KernelSpecification.ProblemSize");
    if (n <= 0 || n > (std::int64_t{1} << 31)) r.fail(v, "KernelSpecification.ProblemSize", fmt::format("{} is out of range", n));
    s.problem_size.push_back(n);
  }
  if (s.problem_size.empty() || s.problem_size.size() > 3)
    r.fail(ps, "KernelSpecification.ProblemSize", "must have 1 to 3 dimensions");
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
      for (const auto& x : g) {
        const std::string n = r.text(x, field);
        if (!names.count(n)) r.fail(x, field, fmt::format("'{}' is not a tuning parameter", n));
        s.grid_div[d].push_back(n);
      }
      if (static_cast<std::size_t>(d) >= s.problem_size.size())
        r.fail(g, field, fmt::format("ProblemSize has no dimension {}", d));
      s.has_grid_div = true;
    }
  if (const YAML::Node sm = ks["SharedMemory"]) {
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
          r.fail(ks[what], fmt::format("KernelSpecification.{}.{}", what, "XYZ"[d]),
                 fmt::format("{} (with the default configuration)", e.what()));
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
      if (s.args[i].access == "ReadWrite")
        r.fail(args[i], fmt::format("KernelSpecification.Arguments[{}].AccessType", i),
               "a ReadWrite output is not supported (the output is poisoned before every run); make it WriteOnly");
    }
  if (outputs != 1)
    r.fail(args, "KernelSpecification.Arguments",
           fmt::format("{} outputs; pimg-tune validates exactly one (mark it \"Output\": 1)", outputs));

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
    r.list(budget, "Budget");
    for (const auto& b : budget) {
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

  // The problem's identity: everything that decides the inputs and the reference.
  std::string id = fmt::format("{}|{}|{}", s.language, s.kernel_name, fmt::join(s.problem_size, "x"));
  for (const auto& a : s.args)
    id += fmt::format("|{}:{}:{}:{}:{}:{}:{}:{}", a.name, a.type.name, a.memory, a.count, a.fill.type, a.fill.value,
                      a.fill.seed, a.fill.data_source.empty() ? "" : hash128(read_file(a.fill.data_source, "data file")));
  for (const auto& ref : s.refs)
    id += fmt::format("|ref:{}:{}:{}:{}", ref.fill.type, ref.fill.value,
                      ref.fill.data_source.empty() ? "" : hash128(read_file(ref.fill.data_source, "data file")),
                      ref.method);
  s.identity = hash128(id).substr(0, 16);
  return s;
}

}  // namespace pimg::user
