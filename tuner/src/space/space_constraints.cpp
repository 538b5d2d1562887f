// Constraint expressions of a space (muparser): the load-time check of each expression, its
// evaluation, and the enumeration of a variant's valid configurations on one device, with text
// values as numeric ids and device limits as variables.
#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cfenv>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_set>

#include "pimg/errors.hpp"
#include "pimg/space.hpp"

namespace pimg {
namespace detail {

// The device limit names constraints may use; a limit the device does not report is 0.
const std::vector<std::string>& limit_names() {
  static const std::vector<std::string> names = {
      "max_work_group_size",  "local_mem_size",           "compute_units",
      "global_mem_size",      "max_constant_buffer_size", "max_work_item_size_0",
      "max_work_item_size_1", "max_work_item_size_2",     "image_support",
      "image2d_max_width",    "image2d_max_height",       "max_threads"};
  return names;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace detail

namespace {

double mod_op(double a, double b) { return std::fmod(a, b); }
double not_op(double a) { return a == 0 ? 1.0 : 0.0; }

std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

// One line even when the expression came from a multi-line YAML scalar.
[[noreturn]] void fail(const Constraint& c, const std::string& message) {
  constexpr std::size_t kShown = 160;  // a generated expression can be 100 KB long
  const std::string expr = c.expr.size() > kShown ? c.expr.substr(0, kShown) + "..." : c.expr;
  std::string m = fmt::format("{}: constraint '{}': {}", c.pos.str(), expr, message);
  std::replace(m.begin(), m.end(), '\n', ' ');
  throw UsageError(m);
}

// A parser with the operators muparser lacks (binary %, prefix !) and without its constants _pi and
// _e, so that every name a constraint uses is a parameter, a text value or a device limit.
std::unique_ptr<mu::Parser> new_parser() {
  auto p = std::make_unique<mu::Parser>();
  p->ClearConst();
  p->DefineOprt("%", mod_op, mu::prMUL_DIV);
  p->DefineInfixOprt("!", not_op);
  return p;
}

// muparser reads a lone '=' as assignment to a variable; in a constraint it is always a mistake.
void reject_assignment(const Constraint& c) {
  const std::string& e = c.expr;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (i + 1 < e.size() && e[i + 1] == '=' && (e[i] == '=' || e[i] == '<' || e[i] == '>' || e[i] == '!')) {
      ++i;
    } else if (e[i] == '=') {
      fail(c, fmt::format("'=' at offset {} assigns; compare with '=='", i));
    }
  }
}

// Parses (first Eval) and checks there is one result; muparser errors become UsageErrors.
double first_eval(mu::Parser& p, const Constraint& c, const std::string& unknown_hint) {
  try {
    p.SetExpr(c.expr);
    double r = p.Eval();
    if (p.GetNumResults() != 1) fail(c, "a constraint is one expression, not a comma-separated list");
    return r;
  } catch (const mu::Parser::exception_type& e) {
    const std::string& tok = e.GetToken();
    if ((e.GetCode() == mu::ecUNASSIGNABLE_TOKEN || e.GetCode() == mu::ecUNEXPECTED_VAR) &&
        detail::is_identifier(tok) && !unknown_hint.empty())
      fail(c, fmt::format("unknown name '{}' ({})", tok, unknown_hint));
    fail(c, e.GetMsg());
  }
}

// Evaluates a compiled constraint; a division by zero, an overflow (`block_size_x ** 400 > 0` is true of an
// infinity, and `8 ** 400 == 8 ** 401` would be too) or an undefined operation anywhere in it is an error (the
// floating-point flags see it even where the result stays finite).
template <class Where>
double checked_eval(mu::Parser& p, const Constraint& c, Where where) {
  std::feclearexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
  double r = p.Eval();
  if (!std::isfinite(r) || std::fetestexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW))
    fail(c, fmt::format("division by zero, overflow or undefined operation at {} (result {}); guard it with '?:', "
                        "since && and || evaluate both sides",
                        where(), r));
  return r;
}

// Names resolved at enumeration through muparser's variable factory: device limits and text
// values. The load-time check guarantees every other name is a text value the file did not list;
// it gets a fresh id, which no current parameter value can equal.
struct NameTable {
  std::map<std::string, double> values;  // node-based: addresses stay valid
  double next_id = 0;
};

double* resolve_name(const char* name, void* data) {
  auto* t = static_cast<NameTable*>(data);
  auto [it, inserted] = t->values.try_emplace(name, 0.0);
  if (inserted) it->second = t->next_id++;
  return &it->second;
}

}  // namespace

namespace detail {

// Compiles a constraint against everything it may name at enumeration, with dummy values.
void check_constraint(const Constraint& c, const std::vector<std::string>& params,
                      const std::vector<std::string>& text_values) {
  if (c.expr.find_first_not_of(" \t") == std::string::npos) fail(c, "empty expression");
  reject_assignment(c);
  std::set<std::string> taken(params.begin(), params.end());
  taken.insert(limit_names().begin(), limit_names().end());
  std::vector<std::string> constants;
  for (const auto& t : text_values)
    if (is_identifier(t) && taken.insert(t).second) constants.push_back(t);
  std::vector<double> dummy(params.size() + limit_names().size(), 1.0);
  auto p = new_parser();
  std::size_t k = 0;
  try {
    for (const auto& n : params) p->DefineVar(n, &dummy[k++]);
    for (const auto& n : limit_names()) p->DefineVar(n, &dummy[k++]);
    for (std::size_t i = 0; i < constants.size(); ++i) p->DefineConst(constants[i], 1000.0 + static_cast<double>(i));
  } catch (const mu::Parser::exception_type& e) {
    fail(c, fmt::format("cannot define name '{}': {}", e.GetToken(), e.GetMsg()));
  }
  first_eval(*p, c,
             fmt::format("parameters: {}; text values: {}; device limits: {}", join_names(params), join_names(constants),
                         join_names(limit_names())));
}

}  // namespace detail

std::string SourcePos::str() const {
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

std::uint64_t VariantSpace::raw_size() const {
  std::uint64_t n = 1;
  for (const auto& p : params) {
    std::uint64_t k = p.values.size();
    if (k == 0) return 0;
    n = n > UINT64_MAX / k ? UINT64_MAX : n * k;
  }
  return n;
}

struct TooManyToList {};

// Text values as ids 1000 + k, in sorted order, shared by all parameters of a variant.
static std::map<std::string, double> text_value_ids(const std::vector<const ParamValues*>& ps) {
  std::map<std::string, double> text_ids;
  for (const auto* p : ps)
    for (const auto& v : p->values)
      if (auto s = std::get_if<std::string>(&v)) text_ids.emplace(*s, 0.0);
  double next = 1000;
  for (auto& [_, id] : text_ids) id = next++;
  return text_ids;
}

// Each parameter's values as the numbers the expressions see.
static std::vector<std::vector<double>> numeric_values(const std::vector<const ParamValues*>& ps,
                                                       const std::map<std::string, double>& text_ids) {
  std::vector<std::vector<double>> numeric(ps.size());
  for (std::size_t i = 0; i < ps.size(); ++i)
    for (const auto& v : ps[i]->values) {
      auto x = std::get_if<std::int64_t>(&v);
      numeric[i].push_back(x ? static_cast<double>(*x) : text_ids.at(std::get<std::string>(v)));
    }
  return numeric;
}

// The cartesian product walked as a tree, parameters in name order: a constraint is evaluated as
// soon as every parameter it names is bound and every constraint before it has been evaluated (so
// the documented order holds: a later constraint is never evaluated where an earlier one is zero),
// and a zero prunes the whole subtree. Each expression is compiled once.
SearchSpace VariantSpace::search_space(const DeviceInfo& device) const {
  std::vector<const ParamValues*> ps;
  for (const auto& p : params) ps.push_back(&p);
  std::sort(ps.begin(), ps.end(), [](const ParamValues* a, const ParamValues* b) { return a->name < b->name; });
  std::vector<SpaceParam> space_params;
  for (const auto* p : ps) space_params.push_back({p->name, p->values});
  if (raw_size() == 0) return SearchSpace(std::move(space_params), {});

  const std::map<std::string, double> text_ids = text_value_ids(ps);
  NameTable names;
  names.next_id = 1000 + static_cast<double>(text_ids.size());
  for (const auto& n : detail::limit_names()) names.values[n] = 0;
  for (const auto& [n, v] : device.limits) names.values[n] = v;
  for (const auto& [t, id] : text_ids)
    if (detail::is_identifier(t)) names.values.emplace(t, id);

  const std::size_t n = ps.size();
  const std::vector<std::vector<double>> numeric = numeric_values(ps, text_ids);

  std::vector<double> vars(n, 0.0);
  for (std::size_t i = 0; i < n; ++i) vars[i] = numeric[i][0];
  std::vector<std::unique_ptr<mu::Parser>> parsers;
  // at_depth[d]: the constraints evaluated once the first d parameters are bound, in file order.
  std::vector<std::vector<std::size_t>> at_depth(n + 1);
  std::size_t depth = 0;
  for (const auto& c : constraints) {
    reject_assignment(c);
    auto p = new_parser();
    try {
      for (std::size_t i = 0; i < n; ++i) p->DefineVar(ps[i]->name, &vars[i]);
      p->SetVarFactory(resolve_name, &names);
    } catch (const mu::Parser::exception_type& e) {
      fail(c, e.GetMsg());
    }
    first_eval(*p, c, "");  // compiles to bytecode once; later calls only evaluate
    for (const auto& [name, _] : p->GetUsedVar())
      for (std::size_t i = 0; i < n; ++i)
        if (ps[i]->name == name) depth = std::max(depth, i + 1);
    at_depth[depth].push_back(parsers.size());
    parsers.push_back(std::move(p));
  }

  std::vector<std::size_t> idx(n, 0);
  auto brief = [&] {
    std::string out;
    for (std::size_t i = 0; i < n; ++i)
      out += (out.empty() ? "" : " ") + ps[i]->name + "=" + to_string(ps[i]->values[idx[i]]);
    return out;
  };
  // Unbound parameters sit at their first value, so an error names the first configuration (in
  // enumeration order) at which the whole-product walk would have met it.
  auto pass = [&](std::size_t d) {
    for (std::size_t k : at_depth[d])
      if (checked_eval(*parsers[k], constraints[k], [&] { return brief() + " on " + device.id(); }) == 0)
        return false;
    return true;
  };
  std::vector<std::uint32_t> coords;
  if (!pass(0)) return SearchSpace(std::move(space_params), {});
  if (n == 0) return SearchSpace(std::move(space_params), {0});
  auto walk = [&](auto& self, std::size_t d) -> void {
    for (std::size_t v = 0; v < numeric[d].size(); ++v) {
      idx[d] = v;
      vars[d] = numeric[d][v];
      if (!pass(d + 1)) continue;
      if (d + 1 == n) {
        for (std::size_t i = 0; i < n; ++i) coords.push_back(static_cast<std::uint32_t>(idx[i]));
        if (coords.size() > kMaxSpaceEntries) throw TooManyToList{};
      } else {
        self(self, d + 1);
      }
    }
    idx[d] = 0;
    vars[d] = numeric[d][0];
  };
  try {
    walk(walk, 0);
    return SearchSpace(std::move(space_params), std::move(coords));
  } catch (const TooManyToList&) {
  }
  // Too many valid points to list: a uniform sample of kSampledPoints of them, drawn by rejection with a seed
  // of the variant's name, so that every run (and a resumed one) searches the same points.
  coords.clear();
  const std::size_t want = std::min(kSampledPoints, kMaxSpaceEntries / n);
  std::uint64_t seed = 0xcbf29ce484222325ull;  // FNV-1a of the name
  for (char c : variant) seed = (seed ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  std::mt19937_64 rng(seed);
  std::unordered_set<std::uint64_t> drawn;
  std::size_t found = 0;
  for (std::size_t attempt = 0; found < want && attempt < 50 * want; ++attempt) {
    std::uint64_t h = 0x243f6a8885a308d3ull;
    for (std::size_t i = 0; i < n; ++i) {
      idx[i] = static_cast<std::size_t>(rng() % numeric[i].size());
      vars[i] = numeric[i][idx[i]];
      h = (h ^ idx[i]) * 0x9e3779b97f4a7c15ull + i;
    }
    bool valid = true;
    for (std::size_t d = 1; d <= n && valid; ++d) valid = pass(d);
    if (!valid || !drawn.insert(h).second) continue;
    for (std::size_t i = 0; i < n; ++i) coords.push_back(static_cast<std::uint32_t>(idx[i]));
    ++found;
  }
  if (found == 0)
    throw UsageError(fmt::format("variant {}: {} raw configurations, too many to list, and none of {} drawn at random "
                                 "passes its constraints: fix parameters (--set) or narrow their values",
                                 variant, raw_size(), 50 * want));
  SearchSpace sample(std::move(space_params), std::move(coords));
  sample.mark_sampled(raw_size());
  return sample;
}

std::vector<Config> VariantSpace::enumerate(const DeviceInfo& device) const {
  const SearchSpace s = search_space(device);
  std::vector<Config> out;
  out.reserve(s.size());
  for (PointId p = 0; p < s.size(); ++p) out.push_back(s.config(p));
  return out;
}

bool eval_constraint(const Constraint& c, const std::map<std::string, double>& vars) {
  reject_assignment(c);
  std::map<std::string, double> values = vars;
  auto p = new_parser();
  try {
    for (auto& [n, v] : values) p->DefineVar(n, &v);
  } catch (const mu::Parser::exception_type& e) {
    fail(c, fmt::format("cannot define name '{}': {}", e.GetToken(), e.GetMsg()));
  }
  std::vector<std::string> names;
  for (const auto& [n, _] : values) names.push_back(n);
  first_eval(*p, c, "variables: " + join_names(names));
  return checked_eval(*p, c, [&] { return std::string("the given values"); }) != 0;
}

}  // namespace pimg
