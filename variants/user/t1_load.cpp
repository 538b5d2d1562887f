// Reads a T1 file (JSON, parsed by yaml-cpp for its line and column marks) into a T1Spec, accepting
// what real files contain (sizes as expressions, Python conditions, value lists as strings or arrays)
// and refusing, with FILE:LINE:COLUMN and the field, what pimg-tune cannot run.
// The file is read top to bottom by load_t1 here; the readers of its parts are in t1_fields.cpp, the kernel
// file's handling in t1_source.cpp, and what they share in t1_reader.hpp.
#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "t1.hpp"
#include "t1_reader.hpp"

namespace fs = std::filesystem;

namespace pimg::user {

using t1_detail::check_hip_names;
using t1_detail::expand_includes;
using t1_detail::fill_source_id;
using t1_detail::hip_mapping;
using t1_detail::kNoProblemSize;
using t1_detail::need_problem_size;
using t1_detail::read_argument;
using t1_detail::read_file;
using t1_detail::read_fill;
using t1_detail::read_param;
using t1_detail::read_size;
using t1_detail::Reader;

namespace {

// JSON allows tabs between tokens where YAML's flow style does not; a tab is one column either way.
std::string untab(std::string s) {
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' && (i == 0 || s[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && s[i] == '\t') s[i] = ' ';
  }
  return s;
}

// A search's name as the tuners' names are compared: lower case, without '_', ' ' and '-'.
std::string plain_name(const std::string& search) {
  std::string s;
  for (char c : search)
    if (c != '_' && c != ' ' && c != '-') s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string strategy_for(const std::string& search) {
  const std::string s = plain_name(search);
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

namespace t1_steps {  // named: the target compiles its files in unity batches

// KernelSpecification's language, names, kernel file (with its includes, HIP mapped to CUDA) and compiler options.
void read_kernel(Reader& r, const YAML::Node& general, const YAML::Node& ks, const fs::path& dir, T1Spec& s) {
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

}

// ConfigurationSpace: the tuning parameters and the conditions; returns the parameters' names.
std::set<std::string> read_space(Reader& r, const YAML::Node& root, const T1Overrides& overrides, T1Spec& s) {
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

  return names;
}

// Geometry. ProblemSize: --problem-size, else the file's (an array, or one number as BAT writes it); the global and
// local sizes, grid divisors and shared memory, the sizes checked with the default configuration.
void read_geometry(Reader& r, const YAML::Node& ks, const std::set<std::string>& names, const T1Overrides& overrides,
                   T1Spec& s) {
  if (!overrides.problem_size.empty()) {
    s.problem_size = overrides.problem_size;
  } else {
    const YAML::Node ps = ks["ProblemSize"];
    if (!ps) {
      // The schema has no ProblemSize (KTT's files give none); BAT's and Kernel Tuner's sizes and grid divisors
      // use it, and each such use is refused below with the option that supplies it.
      r.assume(ks, "KernelSpecification.ProblemSize",
               "missing; nothing uses it (the grid is GlobalSize's), so the problem is named by its output's elements",
               "ProblemSize=none");
    } else if (ps.IsScalar()) {
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
    if (ps && (s.problem_size.empty() || s.problem_size.size() > 3))
      r.fail(ps, "KernelSpecification.ProblemSize", "must have 1 to 3 dimensions");
  }
  read_size(r, ks, "GlobalSize", s.global, true);
  read_size(r, ks, "LocalSize", s.local, true);
  for (const char* what : {"GlobalSize", "LocalSize"})
    for (int d = 0; d < 3; ++d)
      if (const auto& e = (what[0] == 'G' ? s.global : s.local)[d])
        need_problem_size(r, ks[what][std::string(1, "XYZ"[d])], fmt::format("KernelSpecification.{}.{}", what, "XYZ"[d]),
                          *e, s);
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
      if (s.problem_size.empty()) r.fail(g, field, std::string("divides ProblemSize, which ") + kNoProblemSize);
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

}

// Arguments: each argument, the host memory they need, and the one output that is validated.
void read_arguments(Reader& r, const YAML::Node& ks, const fs::path& dir, T1Spec& s) {
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
  if (s.output_index() < 0) {  // no Output flag: the first written argument; any other written one is said
    int first = -1;
    for (std::size_t i = 0; i < s.args.size(); ++i) {
      T1Argument& a = s.args[i];
      if (a.memory != "Vector" || a.access == "ReadOnly") continue;
      if (first < 0) {
        first = static_cast<int>(i);
        a.output = true;
        continue;
      }
      r.assume(args[i], fmt::format("KernelSpecification.Arguments[{}]", i),
               fmt::format("'{}' is written and not compared: no argument is marked Output, and pimg-tune validates "
                           "one, the first written ('{}')",
                           a.name, s.args[static_cast<std::size_t>(first)].name),
               fmt::format("{}.Output=0", a.name));
    }
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
}

// ReferenceArguments: the output's expected values and how they are compared.
void read_references(Reader& r, const YAML::Node& ks, const fs::path& dir, T1Spec& s) {
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
}

// Search and budget: the strategy and its stopping options.
void read_search(Reader& r, const YAML::Node& root, T1Spec& s) {
  if (const YAML::Node search = root["Search"]) {
    r.map(search, "Search");
    const YAML::Node n = r.need(search, "Name", "Search");
    const std::string name = r.text(n, "Search.Name");
    s.strategy.name = strategy_for(name);
    if (s.strategy.name.empty()) r.fail(n, "Search.Name", fmt::format("'{}' is not a strategy pimg-tune has", name));
    if (plain_name(name) != s.strategy.name) s.foreign_search = name;  // another tuner's name for it
    s.strategy.pos = r.pos(n);
    if (const YAML::Node attrs = search["Attributes"]) {
      r.list(attrs, "Search.Attributes");
      for (const auto& a : attrs) {
        r.map(a, "Search.Attributes");
        const std::string key = r.text(r.need(a, "Name", "Search.Attributes"), "Search.Attributes.Name");
        const YAML::Node v = r.need(a, "Value", "Search.Attributes");
        s.search_attributes[key] = r.pos(a);
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
}

// The problem's identity: everything that decides the inputs and the reference.
std::string problem_identity(const T1Spec& s) {
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
  return hash128(id).substr(0, 16);
}

}  // namespace t1_steps

T1Spec load_t1(const std::string& path, const T1Overrides& overrides) {
  using namespace t1_steps;
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
  read_kernel(r, general, ks, dir, s);
  const std::set<std::string> names = read_space(r, root, overrides, s);
  read_geometry(r, ks, names, overrides, s);
  read_arguments(r, ks, dir, s);
  read_references(r, ks, dir, s);
  read_search(r, root, s);
  for (const auto& set : overrides.sets) {
    const std::string& name = set.first;  // not a structured binding: lambdas below capture it (clang 14)
    const std::string& value = set.second;
    const bool param = std::any_of(s.params.begin(), s.params.end(), [&](const T1Parameter& p) { return p.name == name; });
    const bool scalar = std::any_of(s.args.begin(), s.args.end(), [&](const T1Argument& a) { return a.name == name; });
    if (!param && !scalar)
      throw UsageError(fmt::format("--set {}={}: {} has no tuning parameter or scalar argument '{}'", name, value, path, name));
  }

  s.identity = problem_identity(s);
  return s;
}

}  // namespace pimg::user
