// The T1 loader's readers of the file's parts: a tuning parameter (its values, its default, other tools'
// spellings of its type), a fill (Constant, Random, Generator, BinaryRaw), an argument (type, memory, access,
// size, --set) and a GlobalSize or LocalSize.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "pimg/errors.hpp"
#include "t1.hpp"
#include "t1_reader.hpp"

namespace fs = std::filesystem;

namespace pimg::user::t1_detail {
namespace {

constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;  // per argument

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

}  // namespace

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

namespace {

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

}  // namespace

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
  need_problem_size(r, size, field + ".Size", r.expr(size, field + ".Size"), s);
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

void need_problem_size(const Reader& r, const YAML::Node& n, const std::string& field, const PyExpr& e, const T1Spec& s) {
  const auto names = e.names();
  if (s.problem_size.empty() && std::find(names.begin(), names.end(), "ProblemSize") != names.end())
    r.fail(n, field, std::string("uses ProblemSize, which ") + kNoProblemSize);
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

}  // namespace pimg::user::t1_detail
