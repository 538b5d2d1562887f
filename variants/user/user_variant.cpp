// A user variant: its source read at run time (hashed into the stored identity), its parameters
// declared with their defaults, its geometry as Python-style expressions over the parameters and the
// family's problem scalars, and its arguments as names of the family's buffers and scalars.
#include "user_variant.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "pyexpr.hpp"
#include "t1.hpp"

namespace fs = std::filesystem;

namespace pimg::user {
namespace {

struct Decl {
  std::string name, family, backend, source, entry, help;
  std::vector<ParamDecl> params;
  std::vector<PyExpr> global, local;
  std::vector<std::string> args;
};

LaunchPlan user_plan(const Decl& d, const PlanContext& x) {
  const Workload& w = x.workload;
  const Config& c = x.config;
  LaunchPlan plan;
  plan.entry = d.entry;
  for (const auto& [k, v] : w.defines) plan.defines.emplace_back(k, v);
  for (const auto& p : d.params) plan.defines.emplace_back(p.name, to_string(c.has(p.name) ? c.at(p.name) : p.default_value));
  const PyNames names = [&](const std::string& n) -> std::optional<PyValue> {
    if (c.has(n)) {
      const Value& v = c.at(n);
      if (auto i = std::get_if<std::int64_t>(&v)) return PyValue::integer(*i);
      return PyValue::str(std::get<std::string>(v));
    }
    if (auto it = w.scalars.find(n); it != w.scalars.end()) return PyValue::integer(it->second);
    return std::nullopt;
  };
  auto integer = [&](const PyExpr& e, const std::string& what) {
    PyValue v;
    try {
      v = e.eval(names);
    } catch (const PyError& err) {
      throw PlanError(fmt::format("{}: {}", what, err.what()));
    }
    if (v.kind != PyValue::Kind::Int) throw PlanError(fmt::format("{} is {}, not an integer", what, v.repr()));
    return v.i;
  };
  const auto& global = d.global;
  plan.dims = static_cast<int>(std::max<std::size_t>(1, global.size()));
  if (global.empty()) {
    plan.dims = 2;
    plan.global = {static_cast<std::size_t>(w.scalars.count("out_width") ? w.scalars.at("out_width") : w.scalars.at("width")),
                   static_cast<std::size_t>(w.scalars.count("out_height") ? w.scalars.at("out_height") : w.scalars.at("height")),
                   1};
  }
  for (std::size_t k = 0; k < global.size(); ++k) {
    const std::int64_t g = integer(global[k], fmt::format("global[{}]", k));
    if (g <= 0) throw PlanError(fmt::format("global[{}] is {}", k, g));
    plan.global[k] = static_cast<std::size_t>(g);
  }
  for (std::size_t k = 0; k < d.local.size(); ++k) {
    const std::int64_t l = integer(d.local[k], fmt::format("local[{}]", k));
    if (l <= 0) throw PlanError(fmt::format("local[{}] is {}", k, l));
    plan.local[k] = static_cast<std::size_t>(l);
    plan.global[k] = (plan.global[k] + plan.local[k] - 1) / plan.local[k] * plan.local[k];  // whole work-groups
  }
  for (const auto& a : d.args) {
    const bool buffer = a == "out" || std::any_of(w.inputs.begin(), w.inputs.end(), [&](const HostBuffer& b) { return b.name == a; });
    plan.args.push_back(buffer ? KernelArg::buf(a) : KernelArg::integer(integer(PyExpr::parse(a), "argument '" + a + "'")));
  }
  return plan;
}

// A user's declaration as data: the plan reads the declaration's expressions.
std::unique_ptr<Variant> user_variant(const Decl& d) {
  return make_variant({d.name, d.family, d.backend, d.source, d.help, d.params,
                       [d](const PlanContext& x) { return user_plan(d, x); }});
}

std::string where(const std::string& file, const YAML::Node& n) {
  return fmt::format("{}:{}:{}", file, n.Mark().line + 1, n.Mark().column + 1);
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& msg) {
  throw UsageError(fmt::format("{}: user_variants: {}", where(file, n), msg));
}

std::string text(const std::string& file, const YAML::Node& parent, const char* key) {
  const YAML::Node n = parent[key];
  if (!n || !n.IsScalar() || n.Scalar().empty()) fail(file, parent, fmt::format("'{}' must be given as text", key));
  return n.Scalar();
}

std::vector<PyExpr> exprs(const std::string& file, const YAML::Node& parent, const char* key) {
  std::vector<PyExpr> out;
  const YAML::Node n = parent[key];
  if (!n) return out;
  if (!n.IsSequence() || n.size() == 0 || n.size() > 3) fail(file, n, fmt::format("'{}' is a list of 1 to 3 expressions", key));
  for (const auto& e : n) {
    try {
      out.push_back(PyExpr::parse(e.Scalar()));
    } catch (const PyError& err) {
      fail(file, e, fmt::format("{} '{}': {}", key, e.Scalar(), err.what()));
    }
  }
  return out;
}

Decl read_decl(const std::string& file, const YAML::Node& v, const std::string& family, const Registry& reg) {
  if (!v.IsMap()) fail(file, v, "each entry is a mapping (name, backend, source, entry, ...)");
  static const std::set<std::string> keys = {"name", "backend", "source", "entry", "help", "parameters", "global", "local", "args"};
  for (const auto& kv : v)
    if (!keys.count(kv.first.Scalar()))
      fail(file, kv.first, fmt::format("unknown key '{}' (known: name, backend, source, entry, help, parameters, global, local, args)",
                                       kv.first.Scalar()));
  Decl d;
  d.family = family;
  d.name = text(file, v, "name");
  if (reg.variant(family, d.name)) fail(file, v["name"], fmt::format("family {} has a variant '{}' already", family, d.name));
  d.backend = text(file, v, "backend");
  // A backend that compiles kernel sources (the registry's source languages).
  const std::vector<std::string> compiling = reg.backends_compiling();
  if (std::find(compiling.begin(), compiling.end(), d.backend) == compiling.end()) {
    std::string known;  // "opencl, cuda or openmp"
    for (std::size_t i = 0; i < compiling.size(); ++i)
      known += (i == 0 ? "" : i + 1 == compiling.size() ? " or " : ", ") + compiling[i];
    fail(file, v["backend"], fmt::format("backend '{}' is not {}", d.backend, known));
  }
  fs::path src = text(file, v, "source");
  if (src.is_relative()) src = fs::path(file).parent_path() / src;
  std::error_code ec;
  if (!fs::is_regular_file(src, ec) || fs::file_size(src, ec) > (16u << 20))
    fail(file, v["source"], fmt::format("{} is not a readable kernel file (at most 16 MiB)", src.string()));
  std::ifstream in(src, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  d.entry = text(file, v, "entry");
  if (ss.str().find(d.entry) == std::string::npos) fail(file, v["entry"], fmt::format("'{}' does not occur in {}", d.entry, src.string()));
  d.source = "user:" + src.lexically_normal().string();
  add_kernel_source(d.source, ss.str());
  d.help = v["help"] ? v["help"].Scalar() : "user kernel " + src.string();
  if (const YAML::Node ps = v["parameters"]) {
    if (!ps.IsMap()) fail(file, ps, "'parameters' maps each parameter to its default (a list for a text parameter's choices)");
    for (const auto& kv : ps) {
      ParamDecl p;
      p.name = kv.first.Scalar();
      if (kv.second.IsSequence()) {
        p.is_text = true;
        for (const auto& c : kv.second) p.choices.push_back(c.Scalar());
        if (p.choices.empty()) fail(file, kv.second, fmt::format("parameter '{}' has no choices", p.name));
        p.default_value = p.choices.front();
      } else {
        try {
          p.default_value = static_cast<std::int64_t>(std::stoll(kv.second.Scalar()));
        } catch (const std::exception&) {
          fail(file, kv.second, fmt::format("parameter '{}': default '{}' is not an integer (text parameters list their choices)",
                                            p.name, kv.second.Scalar()));
        }
      }
      p.help = "user parameter";
      d.params.push_back(std::move(p));
    }
  }
  d.global = exprs(file, v, "global");
  d.local = exprs(file, v, "local");
  const YAML::Node args = v["args"];
  if (!args || !args.IsSequence() || args.size() == 0)
    fail(file, v, "'args' lists the kernel's arguments: the family's buffer names, out, and scalars or expressions");
  for (const auto& a : args) {
    const std::string& t = a.Scalar();
    const bool name = !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    try {
      if (!name) PyExpr::parse(t);
    } catch (const PyError& err) {
      fail(file, a, fmt::format("argument '{}': {}", a.Scalar(), err.what()));
    }
    d.args.push_back(a.Scalar());
  }
  return d;
}

// The space text with the user_variants block turned into comment lines, so the space loader sees
// the rest at the same lines and columns.
std::string hide_user_variants(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  bool inside = false;
  while (std::getline(in, line)) {
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '-';
    if (top) inside = line.rfind("user_variants:", 0) == 0;
    out += (inside ? "#" : line) + "\n";
  }
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read the space file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

void register_space_variants(Registry& reg, const std::string& space_path) {
  // Only a regular file is read here; anything else (a FIFO, /dev/zero) is the space loader's to refuse.
  std::error_code ec;
  if (!fs::is_regular_file(space_path, ec) || fs::file_size(space_path, ec) > kMaxFileBytes || ec) return;
  const std::string text = read_all(space_path);
  if (text.find("user_variants:") == std::string::npos) return;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return;  // the space loader says what is wrong, where
  }
  if (!root.IsMap() || !root["user_variants"]) return;
  const YAML::Node list = root["user_variants"];
  const YAML::Node family = root["family"];
  if (!family || !family.IsScalar() || !reg.family(family.Scalar()))
    fail(space_path, list, "the space must name a known family for its user variants to join");
  if (!list.IsSequence()) fail(space_path, list, "a list of variants");
  for (const auto& v : list) reg.add_variant(user_variant(read_decl(space_path, v, family.Scalar(), reg)));
}

Space load_space_with_user_variants(Registry& reg, const std::string& space_path) {
  register_space_variants(reg, space_path);
  std::error_code ec;
  if (!fs::is_regular_file(space_path, ec) || fs::file_size(space_path, ec) > kMaxFileBytes || ec)
    return load_space(space_path, reg);  // its own message
  const std::string text = read_all(space_path);
  if (text.find("user_variants:") == std::string::npos) return load_space(space_path, reg);
  export_to_env({"space:" + space_path});
  return load_space_text(hide_user_variants(text), space_path, reg);
}

}  // namespace pimg::user
