// Internal to the T1 loader (t1_load.cpp, t1_fields.cpp, t1_source.cpp): the Reader that turns a node of the
// T1 file into a value or a refusal naming FILE:LINE:COLUMN and the field, and what each part of the loader
// takes from the others.
#pragma once
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pimg/errors.hpp"
#include "t1.hpp"

namespace pimg::user::t1_detail {

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

// t1_source.cpp: the kernel file and the data files.
std::string read_file(const std::string& path, const std::string& what);
const std::string& hip_mapping();
std::string expand_includes(const std::filesystem::path& file, const std::filesystem::path& root,
                            const std::vector<std::filesystem::path>& dirs, bool cuda, std::set<std::string>& seen,
                            std::vector<std::string>& dropped, int depth = 0);
void check_hip_names(const Reader& r, const YAML::Node& at, const std::string& text);
std::string fill_source_id(const T1Fill& f);
bool declares_constant(const std::string& text, const std::string& name);

// t1_fields.cpp: the parts of the KernelSpecification and the ConfigurationSpace.
// A file without ProblemSize (and no --problem-size) may use it nowhere: an expression that does is refused here.
inline constexpr const char* kNoProblemSize =
    "the file does not give (BAT's runner supplies it: give it with --problem-size N[,N[,N]])";
void need_problem_size(const Reader& r, const YAML::Node& n, const std::string& field, const PyExpr& e, const T1Spec& s);
T1Parameter read_param(const Reader& r, const YAML::Node& p, const std::string& field, const T1Overrides& o);
T1Fill read_fill(const Reader& r, const YAML::Node& a, const std::string& field, const std::filesystem::path& dir);
T1Argument read_argument(const Reader& r, const YAML::Node& a, const std::string& field, const T1Spec& s,
                         const std::filesystem::path& dir);
void read_size(const Reader& r, const YAML::Node& ks, const char* key, std::array<std::optional<PyExpr>, 3>& out,
               bool required);

}  // namespace pimg::user::t1_detail
