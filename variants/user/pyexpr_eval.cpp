// The evaluator of the T1 expression language (pyexpr.hpp): a parsed expression's value with names bound by
// the caller, Python's integer, float, list and string semantics, and the limits on steps and list elements
// that one evaluation may spend; and PyValue's conversions.
#include "pyexpr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "pimg/errors.hpp"
#include "pyexpr_node.hpp"

namespace pimg::user {
namespace {

using namespace pyexpr_detail;  // the node's names (pyexpr_node.hpp)

struct Ctx {
  const PyNames& names;
  std::vector<std::pair<std::string, PyValue>> locals;  // comprehension variables, innermost last
  std::uint64_t steps = 0, elements = 0;

  void step(std::size_t at) {
    if (++steps > kPyMaxStepsPerEval)
      throw PyError(at, fmt::format("the evaluation takes more than {} steps", kPyMaxStepsPerEval));
  }
  // A list of n elements is about to be made.
  void grow(std::size_t at, std::uint64_t n) { grow_to(at, n, n); }
  // A list grows to `size` elements by `added` new ones.
  void grow_to(std::size_t at, std::uint64_t size, std::uint64_t added) {
    if (size > kPyMaxListElements)
      throw PyError(at, fmt::format("a list of {} elements; at most {} are allowed", size, kPyMaxListElements));
    elements += added;
    if (elements > kPyMaxElementsPerEval)
      throw PyError(at, fmt::format("the evaluation makes more than {} list elements", kPyMaxElementsPerEval));
  }
};

[[noreturn]] void overflow(std::size_t at, const std::string& what) {
  throw PyError(at, fmt::format("integer overflow: {} is beyond 64 bits", what));
}

PyValue finite(double v, std::size_t at, const std::string& what) {
  if (!std::isfinite(v)) throw PyError(at, fmt::format("{} is not a finite number", what));
  return PyValue::real(v);
}

const char* type_name(const PyValue& v) {
  switch (v.kind) {
    case VK::Int: return "an integer";
    case VK::Real: return "a float";
    case VK::Str: return "a string";
    case VK::List: return "a list";
  }
  return "";
}

std::int64_t ipow(std::int64_t x, std::int64_t y, std::size_t at) {
  if (y == 0 || x == 1) return 1;
  if (x == 0) return 0;
  if (x == -1) return (y & 1) ? -1 : 1;
  if (y > 63) overflow(at, fmt::format("{} ** {}", x, y));  // |x| >= 2
  std::int64_t p = 1;
  for (std::int64_t k = 0; k < y; ++k)
    if (__builtin_mul_overflow(p, x, &p)) overflow(at, fmt::format("{} ** {}", x, y));
  return p;
}

// Python's float divmod (CPython's float_divmod): the remainder takes the divisor's sign.
std::pair<double, double> real_divmod(double x, double y) {
  double mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
  return {floordiv, mod};
}

// Every value inside v, nested lists' too: a list's copies copy them all ([[0] * 999999] * 1000 is a thousand
// copies of a million integers, though the outer list has a thousand elements), so limits count this.
std::uint64_t weight(const PyValue& v) {
  if (v.kind != VK::List) return 1;
  std::uint64_t w = 1;
  for (const PyValue& e : v.list) w += weight(e);
  return w;
}

PyValue concat(const PyValue& a, const PyValue& b, std::size_t at, Ctx& ctx) {
  ctx.grow(at, weight(a) + weight(b));
  PyValue out = a;
  out.list.insert(out.list.end(), b.list.begin(), b.list.end());
  return out;
}

PyValue repeat(const PyValue& l, std::int64_t times, std::size_t at, Ctx& ctx) {
  PyValue out = PyValue::make_list({});
  if (times <= 0 || l.list.empty()) return out;
  const std::uint64_t w = weight(l) - 1;  // the values copied per repetition (the list itself not)
  if (static_cast<std::uint64_t>(times) > kPyMaxListElements / w)
    throw PyError(at, fmt::format("a list of {} x {} values; at most {} are allowed", w, times, kPyMaxListElements));
  ctx.grow(at, w * static_cast<std::uint64_t>(times));
  for (std::int64_t k = 0; k < times; ++k) out.list.insert(out.list.end(), l.list.begin(), l.list.end());
  return out;
}

PyValue arithmetic(const PyValue& a, const std::string& op, const PyValue& b, std::size_t at, Ctx& ctx) {
  if (op == "+" && a.kind == VK::List && b.kind == VK::List) return concat(a, b, at, ctx);
  if (op == "*" && a.kind == VK::List && b.kind == VK::Int) return repeat(a, b.i, at, ctx);
  if (op == "*" && a.kind == VK::Int && b.kind == VK::List) return repeat(b, a.i, at, ctx);
  if (!a.numeric() || !b.numeric())
    throw PyError(at, fmt::format("'{}' needs numbers, not {} and {} ({} {} {})", op, type_name(a), type_name(b),
                                  a.repr(), op, b.repr()));
  if (a.kind == VK::Int && b.kind == VK::Int && op != "/") {
    const std::int64_t x = a.i, y = b.i;
    std::int64_t r = 0;
    const std::string what = fmt::format("{} {} {}", x, op, y);
    if (op == "+") {
      if (__builtin_add_overflow(x, y, &r)) overflow(at, what);
      return PyValue::integer(r);
    }
    if (op == "-") {
      if (__builtin_sub_overflow(x, y, &r)) overflow(at, what);
      return PyValue::integer(r);
    }
    if (op == "*") {
      if (__builtin_mul_overflow(x, y, &r)) overflow(at, what);
      return PyValue::integer(r);
    }
    if (op == "**") {
      if (y >= 0) return PyValue::integer(ipow(x, y, at));
      if (x == 0) throw PyError(at, fmt::format("division by zero: {}", what));
      return finite(std::pow(static_cast<double>(x), static_cast<double>(y)), at, what);
    }
    if (y == 0) throw PyError(at, fmt::format("division by zero: {}", what));
    if (op == "%") {
      if (y == -1) return PyValue::integer(0);  // also for INT64_MIN, where x % y would trap
      std::int64_t m = x % y;
      if (m != 0 && ((m < 0) != (y < 0))) m += y;
      return PyValue::integer(m);
    }
    // "//"
    if (x == std::numeric_limits<std::int64_t>::min() && y == -1) overflow(at, what);
    std::int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return PyValue::integer(q);
  }
  const double x = a.number(), y = b.number();
  const std::string what = fmt::format("{} {} {}", a.repr(), op, b.repr());
  if (op == "+") return finite(x + y, at, what);
  if (op == "-") return finite(x - y, at, what);
  if (op == "*") return finite(x * y, at, what);
  if (op == "**") {
    if (x == 0 && y < 0) throw PyError(at, fmt::format("division by zero: {}", what));
    if (x < 0 && y != std::floor(y)) throw PyError(at, fmt::format("{}: a negative number to a fractional power", what));
    return finite(std::pow(x, y), at, what);
  }
  if (y == 0) throw PyError(at, fmt::format("division by zero: {}", what));
  if (op == "/") return finite(x / y, at, what);
  const auto [div, mod] = real_divmod(x, y);
  return finite(op == "//" ? div : mod, at, what);
}

bool equal(const PyValue& a, const PyValue& b) {
  if (a.numeric() && b.numeric()) {
    if (a.kind == VK::Int && b.kind == VK::Int) return a.i == b.i;
    return a.number() == b.number();
  }
  if (a.kind != b.kind) return false;
  if (a.kind == VK::Str) return a.s == b.s;
  if (a.list.size() != b.list.size()) return false;
  for (std::size_t k = 0; k < a.list.size(); ++k)
    if (!equal(a.list[k], b.list[k])) return false;
  return true;
}

bool compare(const PyValue& a, const std::string& op, const PyValue& b, std::size_t at) {
  if (op == "==") return equal(a, b);
  if (op == "!=") return !equal(a, b);
  if (op == "in" || op == "not in") {
    bool found = false;
    if (b.kind == VK::List)
      found = std::any_of(b.list.begin(), b.list.end(), [&](const PyValue& x) { return equal(a, x); });
    else if (b.kind == VK::Str && a.kind == VK::Str)
      found = b.s.find(a.s) != std::string::npos;
    else
      throw PyError(at, fmt::format("'{}' needs a list (or a string in a string), not {}", op, type_name(b)));
    return (op == "in") == found;
  }
  int c = 0;
  if (a.kind == VK::Int && b.kind == VK::Int) {
    c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  } else if (a.numeric() && b.numeric()) {
    const double x = a.number(), y = b.number();
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.kind == VK::Str && b.kind == VK::Str) {
    c = a.s.compare(b.s);
  } else {
    throw PyError(at, fmt::format("'{}' cannot order {} and {}", op, type_name(a), type_name(b)));
  }
  if (op == "<") return c < 0;
  if (op == ">") return c > 0;
  if (op == "<=") return c <= 0;
  return c >= 0;
}

const char* const kFunctions = "range, list, len, min, max, sum, abs, int, float, ceil, floor";

std::int64_t int_arg(const PyValue& v, const std::string& f, std::size_t at) {
  if (v.kind != VK::Int) throw PyError(at, fmt::format("{}() takes integers, not {} ({})", f, type_name(v), v.repr()));
  return v.i;
}

PyValue range(const std::vector<PyValue>& args, std::size_t at, Ctx& ctx) {
  if (args.empty() || args.size() > 3)
    throw PyError(at, fmt::format("range() takes 1 to 3 integers, not {}", args.size()));
  std::int64_t start = 0, stop = 0, step = 1;
  if (args.size() == 1) {
    stop = int_arg(args[0], "range", at);
  } else {
    start = int_arg(args[0], "range", at);
    stop = int_arg(args[1], "range", at);
    if (args.size() == 3) step = int_arg(args[2], "range", at);
  }
  if (step == 0) throw PyError(at, "range() step must not be zero");
  __int128 n = 0;
  if (step > 0 && start < stop) n = (static_cast<__int128>(stop) - start - 1) / step + 1;
  if (step < 0 && start > stop) n = (static_cast<__int128>(start) - stop - 1) / -static_cast<__int128>(step) + 1;
  if (n > static_cast<__int128>(kPyMaxListElements))
    throw PyError(at, fmt::format("range({}, {}, {}) has {} elements; at most {} are allowed", start, stop, step,
                                  static_cast<std::uint64_t>(n), kPyMaxListElements));
  ctx.grow(at, static_cast<std::uint64_t>(n));
  PyValue out = PyValue::make_list({});
  out.list.reserve(static_cast<std::size_t>(n));
  for (__int128 k = 0; k < n; ++k) out.list.push_back(PyValue::integer(static_cast<std::int64_t>(start + k * step)));
  return out;
}

PyValue call(const std::string& f, const std::vector<PyValue>& args, std::size_t at, Ctx& ctx) {
  if (f == "range") return range(args, at, ctx);
  // A list argument, or the arguments themselves (min(a, b); max(param) of one value).
  auto items = [&]() -> const std::vector<PyValue>& {
    if (args.size() == 1 && args[0].kind == VK::List) return args[0].list;
    return args;
  };
  if (f == "min" || f == "max") {
    const std::vector<PyValue>& v = items();
    if (v.empty()) throw PyError(at, f + "() of nothing");
    const PyValue* best = &v[0];
    for (const auto& x : v) {
      if (!x.numeric()) throw PyError(at, fmt::format("{}() needs numbers, not {}", f, type_name(x)));
      if (f == "min" ? compare(x, "<", *best, at) : compare(x, ">", *best, at)) best = &x;
    }
    return *best;
  }
  if (f == "sum") {
    PyValue s = PyValue::integer(0);
    for (const auto& x : items()) {
      ctx.step(at);
      if (!x.numeric()) throw PyError(at, fmt::format("sum() needs numbers, not {}", type_name(x)));
      s = arithmetic(s, "+", x, at, ctx);
    }
    return s;
  }
  if (f == "list") {
    if (args.empty()) return PyValue::make_list({});
    if (args.size() != 1 || args[0].kind != VK::List)
      throw PyError(at, fmt::format("list() takes one list, range or tuple, not {}", args.empty() ? "nothing" : type_name(args[0])));
    ctx.grow(at, weight(args[0]));
    return args[0];
  }
  if (f == "len") {
    if (args.size() != 1 || (args[0].kind != VK::List && args[0].kind != VK::Str))
      throw PyError(at, "len() takes one list or string");
    return PyValue::integer(static_cast<std::int64_t>(args[0].kind == VK::List ? args[0].list.size() : args[0].s.size()));
  }
  const bool known = f == "abs" || f == "float" || f == "int" || f == "ceil" || f == "floor";
  if (!known) throw PyError(at, fmt::format("unknown function '{}' (known: {})", f, kFunctions));
  if (args.size() != 1 || !args[0].numeric())
    throw PyError(at, fmt::format("{}() takes one number, not {}", f,
                                  args.size() != 1 ? fmt::format("{} arguments", args.size()) : type_name(args[0])));
  const PyValue& x = args[0];
  if (f == "abs") {
    if (x.kind == VK::Real) return PyValue::real(std::fabs(x.r));
    if (x.i == std::numeric_limits<std::int64_t>::min()) overflow(at, fmt::format("abs({})", x.i));
    return PyValue::integer(x.i < 0 ? -x.i : x.i);
  }
  if (f == "float") return PyValue::real(x.number());
  if (x.kind == VK::Int) return x;
  const double r = f == "int" ? std::trunc(x.r) : f == "ceil" ? std::ceil(x.r) : std::floor(x.r);
  if (!(r >= -0x1p63 && r < 0x1p63)) overflow(at, fmt::format("{}({})", f, x.repr()));
  return PyValue::integer(static_cast<std::int64_t>(r));
}

PyValue eval(const Node& n, Ctx& ctx);

// The clauses of a comprehension from clause k on, appending elements to out.
void comprehend(const Node& n, std::size_t k, Ctx& ctx, PyValue& out) {
  if (k == n.kids.size()) {
    PyValue v = eval(*n.kids[0], ctx);
    ctx.grow_to(n.at, out.list.size() + 1, weight(v));
    out.list.push_back(std::move(v));
    return;
  }
  if (n.vars[k].empty()) {
    if (eval(*n.kids[k], ctx).truthy()) comprehend(n, k + 1, ctx, out);
    return;
  }
  const PyValue it = eval(*n.kids[k], ctx);
  if (it.kind != VK::List)
    throw PyError(n.kids[k]->at, fmt::format("'for {} in' needs a list, not {} ({})", n.vars[k], type_name(it), it.repr()));
  ctx.locals.emplace_back(n.vars[k], PyValue());
  const std::size_t slot = ctx.locals.size() - 1;
  for (const auto& v : it.list) {
    ctx.step(n.at);
    ctx.locals[slot].second = v;
    comprehend(n, k + 1, ctx, out);
  }
  ctx.locals.pop_back();
}

PyValue eval(const Node& n, Ctx& ctx) {
  ctx.step(n.at);
  switch (n.kind) {
    case K::Lit:
      return n.value;
    case K::Name: {
      for (auto it = ctx.locals.rbegin(); it != ctx.locals.rend(); ++it)
        if (it->first == n.op) return it->second;
      auto v = ctx.names(n.op);
      if (!v) throw PyError(n.at, fmt::format("unknown name '{}'", n.op));
      return *v;
    }
    case K::List: {
      ctx.grow(n.at, n.kids.size());
      PyValue l = PyValue::make_list({});
      l.list.reserve(n.kids.size());
      for (const auto& k : n.kids) l.list.push_back(eval(*k, ctx));
      return l;
    }
    case K::Comp: {
      PyValue l = PyValue::make_list({});
      comprehend(n, 1, ctx, l);
      return l;
    }
    case K::Unary: {
      PyValue v = eval(*n.kids[0], ctx);
      if (!v.numeric()) throw PyError(n.at, fmt::format("'-' needs a number, not {}", type_name(v)));
      if (v.kind == VK::Real) return PyValue::real(-v.r);
      if (v.i == std::numeric_limits<std::int64_t>::min()) overflow(n.at, fmt::format("-({})", v.i));
      return PyValue::integer(-v.i);
    }
    case K::Chain: {
      PyValue acc = eval(*n.kids[0], ctx);
      for (std::size_t k = 1; k < n.kids.size(); ++k)
        acc = arithmetic(acc, n.ops[k - 1], eval(*n.kids[k], ctx), n.ats[k - 1], ctx);
      return acc;
    }
    case K::Pow:
      return arithmetic(eval(*n.kids[0], ctx), "**", eval(*n.kids[1], ctx), n.at, ctx);
    case K::Cmp: {
      PyValue left = eval(*n.kids[0], ctx);
      for (std::size_t k = 1; k < n.kids.size(); ++k) {
        PyValue right = eval(*n.kids[k], ctx);
        if (!compare(left, n.ops[k - 1], right, n.ats[k - 1])) return PyValue::integer(0);
        left = std::move(right);
      }
      return PyValue::integer(1);
    }
    case K::And:
    case K::Or: {
      PyValue v = eval(*n.kids[0], ctx);
      for (std::size_t k = 1; k < n.kids.size(); ++k) {
        if (v.truthy() != (n.kind == K::And)) return v;
        v = eval(*n.kids[k], ctx);
      }
      return v;
    }
    case K::Not:
      return PyValue::integer(!eval(*n.kids[0], ctx).truthy());
    case K::Call: {
      std::vector<PyValue> args;
      args.reserve(n.kids.size());
      for (const auto& k : n.kids) args.push_back(eval(*k, ctx));
      return call(n.op, args, n.at, ctx);
    }
    case K::Index: {
      PyValue l = eval(*n.kids[0], ctx), i = eval(*n.kids[1], ctx);
      if (l.kind != VK::List || i.kind != VK::Int)
        throw PyError(n.at, fmt::format("only a list is indexed, by an integer (not {} by {})", type_name(l), type_name(i)));
      const auto size = static_cast<std::int64_t>(l.list.size());
      const std::int64_t k = i.i < 0 ? (i.i < -size ? -1 : i.i + size) : i.i;
      if (k < 0 || k >= size) throw PyError(n.at, fmt::format("index {} out of range (size {})", i.i, size));
      return std::move(l.list[static_cast<std::size_t>(k)]);
    }
    case K::Ternary:
      return eval(*n.kids[0], ctx).truthy() ? eval(*n.kids[1], ctx) : eval(*n.kids[2], ctx);
  }
  return {};
}

}  // namespace

double PyValue::number() const {
  if (kind == Kind::Int) return static_cast<double>(i);
  if (kind == Kind::Real) return r;
  throw PyError(0, "a number was expected, not " + repr());
}

bool PyValue::truthy() const {
  switch (kind) {
    case Kind::Int: return i != 0;
    case Kind::Real: return r != 0;
    case Kind::Str: return !s.empty();
    case Kind::List: return !list.empty();
  }
  return false;
}

std::string PyValue::repr() const {
  constexpr std::size_t kShort = 80;
  switch (kind) {
    case Kind::Int: return std::to_string(i);
    case Kind::Real: {
      std::string out = fmt::format("{}", r);
      if (out.find_first_of(".en") == std::string::npos) out += ".0";
      return out;
    }
    case Kind::Str: return "'" + printable(s.size() > kShort ? s.substr(0, kShort) + "..." : s) + "'";
    case Kind::List: {
      std::string out = "[";
      for (std::size_t k = 0; k < list.size(); ++k) {
        if (out.size() > kShort) return out + fmt::format(", ... ({} elements)]", list.size());
        out += (k ? ", " : "") + list[k].repr();
      }
      return out + "]";
    }
  }
  return "";
}

PyValue PyExpr::eval(const PyNames& names) const {
  Ctx ctx{names, {}, 0, 0};
  return pimg::user::eval(*root_, ctx);
}

}  // namespace pimg::user
