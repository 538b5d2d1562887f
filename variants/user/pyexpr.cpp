// A recursive-descent parser and evaluator for the Python subset T1 files use (the grammar is in
// pyexpr.hpp). Chains of one precedence level (a + b - c ..., a and b and c ...) are one node with a
// list of operands, so a long flat expression is evaluated, written out and freed without recursion.
#include "pyexpr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "pimg/errors.hpp"

namespace pimg::user {

struct PyExpr::Node {
  enum class Kind { Lit, Name, List, Unary, Chain, Pow, Cmp, And, Or, Not, Call, Index, Ternary, Comp } kind = Kind::Lit;
  std::string op;                // Unary: "-"; Name, Call: the name
  std::vector<std::string> ops;  // Chain, Cmp: the operator before each operand after the first
  std::vector<std::size_t> ats;  // Chain, Cmp: where each of those operators is
  std::vector<std::shared_ptr<const Node>> kids;
  // Comp: kids[0] is the element, then one kid per clause; vars[k] is clause k's variable, empty for `if`.
  std::vector<std::string> vars;
  PyValue value;
  std::size_t at = 0;
};

namespace {

using NodeP = std::shared_ptr<const PyExpr::Node>;
using Node = PyExpr::Node;
using K = Node::Kind;
using VK = PyValue::Kind;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const char* const kKeywords[] = {"and", "or", "not", "if", "else", "for", "in", "is", "None", "lambda"};

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  NodeP parse() {
    if (s_.size() > kPyMaxTextBytes)
      throw PyError(0, fmt::format("the expression has {} bytes; at most {} are read", s_.size(), kPyMaxTextBytes));
    const std::size_t at = skip_at();
    NodeP n = ternary();
    if (sym(",")) n = tuple_rest(n, at, "");  // a bare tuple: "1, 2, 4"
    skip();
    if (p_ < s_.size()) throw PyError(p_, fmt::format("unexpected '{}'", printable(s_.substr(p_, 12))));
    return n;
  }

 private:
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  std::size_t skip_at() {
    skip();
    return p_;
  }
  bool word_at(const char* w) {
    skip();
    const std::size_t n = std::char_traits<char>::length(w);
    if (s_.compare(p_, n, w) != 0) return false;
    const std::size_t e = p_ + n;
    return e >= s_.size() || !ident_char(s_[e]);
  }
  bool word(const char* w) {
    if (!word_at(w)) return false;
    p_ += std::char_traits<char>::length(w);
    return true;
  }
  bool sym(const char* t) {
    skip();
    const std::size_t n = std::char_traits<char>::length(t);
    if (s_.compare(p_, n, t) != 0) return false;
    p_ += n;
    return true;
  }
  void expect(const char* t) {
    if (!sym(t)) throw PyError(p_, p_ < s_.size() ? fmt::format("expected '{}', not '{}'", t, printable(s_.substr(p_, 12)))
                                                  : fmt::format("expected '{}' at the end", t));
  }
  static NodeP make(K k, std::size_t at, std::vector<NodeP> kids, std::string op = "") {
    auto n = std::make_shared<Node>();
    n->kind = k;
    n->at = at;
    n->kids = std::move(kids);
    n->op = std::move(op);
    return n;
  }
  struct Guard {
    int& d;
    Guard(int& depth, std::size_t at) : d(depth) {
      if (++d > kPyMaxDepth) throw PyError(at, fmt::format("expression nested more than {} deep", kPyMaxDepth));
    }
    ~Guard() { --d; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
  };

  // Every cycle of the descent passes a Guard: factor() (parentheses, brackets, calls, unary
  // operators, **), not_() and the else branch of ternary().
  NodeP ternary() {
    const std::size_t at = skip_at();
    NodeP a = or_();
    if (!word("if")) return a;
    NodeP c = or_();
    if (!word("else")) throw PyError(p_, "expected 'else'");
    Guard g(depth_, p_);
    NodeP b = ternary();
    return make(K::Ternary, at, {c, a, b});
  }
  // An n-ary node for `a OP b OP c ...` of one precedence level; `next` parses the operands.
  template <typename Next, typename Op>
  NodeP chain(K kind, Next next, Op op) {
    const std::size_t at = skip_at();
    NodeP first = next();
    std::shared_ptr<Node> n;
    for (;;) {
      const std::size_t op_at = skip_at();
      const char* o = op();
      if (!o) break;
      if (!n) {
        n = std::make_shared<Node>();
        n->kind = kind;
        n->at = at;
        n->kids.push_back(first);
      }
      n->ops.emplace_back(o);
      n->ats.push_back(op_at);
      n->kids.push_back(next());
    }
    return n ? NodeP(n) : first;
  }
  NodeP or_() {
    return chain(K::Or, [this] { return and_(); }, [this]() -> const char* { return word("or") ? "or" : nullptr; });
  }
  NodeP and_() {
    return chain(K::And, [this] { return not_(); }, [this]() -> const char* { return word("and") ? "and" : nullptr; });
  }
  NodeP not_() {
    const std::size_t at = skip_at();
    if (!word("not")) return cmp();
    Guard g(depth_, at);
    return make(K::Not, at, {not_()});
  }
  const char* cmp_op() {
    for (const char* o : {"==", "!=", "<=", ">=", "<", ">"})
      if (sym(o)) return o;
    if (word("in")) return "in";
    const std::size_t back = p_;
    if (word("not")) {
      if (word("in")) return "not in";
      p_ = back;
    }
    return nullptr;
  }
  NodeP cmp() { return chain(K::Cmp, [this] { return arith(); }, [this] { return cmp_op(); }); }
  NodeP arith() {
    return chain(K::Chain, [this] { return term(); }, [this]() -> const char* {
      return sym("+") ? "+" : sym("-") ? "-" : nullptr;
    });
  }
  NodeP term() {
    return chain(K::Chain, [this] { return factor(); }, [this]() -> const char* {
      skip();
      if (s_.compare(p_, 2, "**") == 0) return nullptr;
      return sym("//") ? "//" : sym("*") ? "*" : sym("/") ? "/" : sym("%") ? "%" : nullptr;
    });
  }
  NodeP factor() {
    Guard g(depth_, p_);
    const std::size_t at = skip_at();
    if (s_.compare(p_, 2, "**") == 0) throw PyError(p_, "unexpected '**'");
    if (sym("-")) return make(K::Unary, at, {factor()}, "-");
    if (sym("+")) return factor();
    NodeP base = postfix();
    const std::size_t op_at = skip_at();
    if (sym("**")) {
      auto n = make(K::Pow, op_at, {base, factor()});
      return n;
    }
    return base;
  }
  NodeP postfix() {
    NodeP a = atom();
    for (;;) {
      const std::size_t at = skip_at();
      if (sym("[")) {
        NodeP i = ternary();
        expect("]");
        a = make(K::Index, at, {a, i});
      } else if (a->kind == K::Name && sym("(")) {
        std::vector<NodeP> args;
        if (!sym(")")) {
          const std::size_t arg_at = skip_at();
          args.push_back(ternary());
          if (word("for")) {  // f(e for x in it): the comprehension is the one argument
            args[0] = comprehension(args[0], arg_at);
            expect(")");
          } else {
            while (!sym(")")) {
              if (!sym(",")) throw PyError(p_, "expected ',' or ')' in the call");
              if (sym(")")) break;  // a trailing comma
              args.push_back(ternary());
            }
          }
        }
        a = make(K::Call, a->at, std::move(args), a->op);
      } else {
        return a;
      }
    }
  }
  // After `first ,`: the rest of a tuple up to `close` (empty: the end of the text), as a list.
  NodeP tuple_rest(NodeP first, std::size_t at, const char* close) {
    std::vector<NodeP> items{std::move(first)};
    for (;;) {
      skip();
      if (*close ? sym(close) : p_ >= s_.size()) return make(K::List, at, std::move(items));
      items.push_back(ternary());
      if (!sym(",")) {
        if (*close) expect(close);
        return make(K::List, at, std::move(items));
      }
    }
  }
  // After `element for`: the clauses of a comprehension (`x in it`, then `for`s and `if`s).
  NodeP comprehension(NodeP element, std::size_t at) {
    auto n = std::make_shared<Node>();
    n->kind = K::Comp;
    n->at = at;
    n->kids.push_back(std::move(element));
    n->vars.emplace_back();  // the element has no variable
    do {
      const std::size_t var_at = skip_at();
      std::size_t e = p_;
      while (e < s_.size() && ident_char(s_[e])) ++e;
      const std::string var = s_.substr(p_, e - p_);
      if (var.empty() || !ident_start(var[0]) ||
          std::find(std::begin(kKeywords), std::end(kKeywords), var) != std::end(kKeywords))
        throw PyError(var_at, "expected one name after 'for'");
      p_ = e;
      if (sym(",")) throw PyError(var_at, "only one name after 'for' is supported (no unpacking)");
      if (!word("in")) throw PyError(p_, "expected 'in'");
      n->kids.push_back(or_());
      n->vars.push_back(var);
      while (word("if")) {
        n->kids.push_back(or_());
        n->vars.emplace_back();
      }
      if (n->kids.size() > static_cast<std::size_t>(kPyMaxDepth))
        throw PyError(p_, fmt::format("a comprehension of more than {} clauses", kPyMaxDepth));
    } while (word("for"));
    return n;
  }
  NodeP atom() {
    const std::size_t at = skip_at();
    if (p_ >= s_.size()) throw PyError(p_, "unexpected end of expression");
    const char c = s_[p_];
    if (sym("(")) {
      if (sym(")")) return make(K::List, at, {});  // ()
      NodeP e = ternary();
      if (word("for")) {
        e = comprehension(e, at);
        expect(")");
        return e;
      }
      if (sym(",")) return tuple_rest(e, at, ")");
      expect(")");
      return e;
    }
    if (sym("[")) {
      if (sym("]")) return make(K::List, at, {});
      NodeP e = ternary();
      if (word("for")) {
        e = comprehension(e, at);
        expect("]");
        return e;
      }
      if (sym(",")) return tuple_rest(e, at, "]");
      expect("]");
      return make(K::List, at, {e});
    }
    if (c == '"' || c == '\'') {
      const std::size_t end = s_.find(c, p_ + 1);
      if (end == std::string::npos) throw PyError(p_, "unterminated string");
      auto n = std::make_shared<Node>();
      n->at = at;
      n->value = PyValue::str(s_.substr(p_ + 1, end - p_ - 1));
      p_ = end + 1;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && p_ + 1 < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_ + 1]))))
      return number();
    if (ident_start(c)) {
      std::size_t e = p_;
      while (e < s_.size() && ident_char(s_[e])) ++e;
      std::string name = s_.substr(p_, e - p_);
      p_ = e;
      auto n = std::make_shared<Node>();
      n->at = at;
      if (name == "True" || name == "False") {
        n->value = PyValue::integer(name == "True");
        return n;
      }
      if (std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords))
        throw PyError(at, fmt::format("'{}' is not supported here", name));
      n->kind = K::Name;
      n->op = name;
      return n;
    }
    throw PyError(p_, fmt::format("unexpected '{}'", printable(std::string(1, c))));
  }
  NodeP number() {
    const std::size_t at = p_;
    std::size_t e = p_;
    int base = 10;
    if (s_[p_] == '0' && p_ + 1 < s_.size() && s_[p_ + 1] != '\0' && std::strchr("xXoObB", s_[p_ + 1])) {
      base = std::tolower(static_cast<unsigned char>(s_[p_ + 1])) == 'x' ? 16 : std::tolower(static_cast<unsigned char>(s_[p_ + 1])) == 'o' ? 8 : 2;
      e += 2;
      while (e < s_.size() && (std::isxdigit(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) ++e;
    }
    bool real = false;
    while (base == 10 && e < s_.size()) {
      const char c = s_[e];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
        ++e;
      } else if (c == '.') {
        real = true;
        ++e;
      } else if ((c == 'e' || c == 'E') && e + 1 < s_.size()) {
        real = true;
        ++e;
        if (s_[e] == '+' || s_[e] == '-') ++e;
      } else {
        break;
      }
    }
    std::string text = s_.substr(p_ + (base == 10 ? 0 : 2), e - p_ - (base == 10 ? 0 : 2));
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    p_ = e;
    if (p_ < s_.size() && ident_char(s_[p_])) throw PyError(at, fmt::format("malformed number '{}'", printable(s_.substr(at, p_ - at + 1))));
    auto n = std::make_shared<Node>();
    n->at = at;
    if (real) {
      double v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
        throw PyError(at, "malformed or out-of-range number '" + printable(text) + "'");
      n->value = PyValue::real(v);
    } else {
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
      if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
        throw PyError(at, "integer '" + printable(s_.substr(at, e - at)) + "' is malformed or beyond 64 bits");
      n->value = PyValue::integer(v);
    }
    return n;
  }

  const std::string& s_;
  std::size_t p_ = 0;
  int depth_ = 0;
};

// ---- evaluation ------------------------------------------------------------------------------

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

// ---- muparser text ---------------------------------------------------------------------------

bool identifier(const std::string& s) {
  return !s.empty() && ident_start(s[0]) && std::all_of(s.begin(), s.end(), ident_char);
}

void bound(const std::string& out, std::size_t at) {
  if (out.size() > kPyMaxConstraintBytes)
    throw PyError(at, fmt::format("the condition grows past {} bytes as a constraint (// and % repeat their operands)",
                                  kPyMaxConstraintBytes));
}

// Python's // and % on a and b for muparser: a and b appear more than once where the signs matter.
std::string floor_op(const std::string& a, const std::string& op, const std::string& b) {
  const std::string rem = "(" + a + "%" + b + ")";
  const std::string fix = "((" + rem + "!=0)&&((" + a + "<0)!=(" + b + "<0)))";
  if (op == "%") return "(" + rem + "+" + fix + "*" + b + ")";
  return "(((" + a + "-" + rem + ")/" + b + ")-" + fix + ")";
}

std::string mu(const Node& n) {
  auto sub = [&](std::size_t k) { return "(" + mu(*n.kids[k]) + ")"; };
  std::string out;
  switch (n.kind) {
    case K::Lit:
      if (n.value.kind == VK::Int) return std::to_string(n.value.i);
      if (n.value.kind == VK::Real) return fmt::format("{:.17g}", n.value.r);
      if (n.value.kind == VK::Str && identifier(n.value.s)) return n.value.s;
      throw PyError(n.at, fmt::format("the string '{}' is not a name a condition can compare with", printable(n.value.s)));
    case K::Name:
      return n.op;
    case K::List:
    case K::Index:
    case K::Comp:
      throw PyError(n.at, "a condition cannot hold lists (only on the right of 'in')");
    case K::Unary:
      return "(-" + sub(0) + ")";
    case K::Chain:
      out = sub(0);  // flat where muparser's left-to-right order is Python's: a+b-c, a*b/c
      for (std::size_t k = 1; k < n.kids.size(); ++k) {
        const std::string& op = n.ops[k - 1];
        if (op == "//" || op == "%")
          out = floor_op("(" + out + ")", op, sub(k));
        else
          out += op + sub(k);
        bound(out, n.ats[k - 1]);
      }
      return "(" + out + ")";
    case K::Pow:
      return "(" + sub(0) + "^" + sub(1) + ")";
    case K::Cmp:
      for (std::size_t k = 1; k < n.kids.size(); ++k) {
        const std::string& op = n.ops[k - 1];
        std::string term;
        if (op == "in" || op == "not in") {
          const Node& list = *n.kids[k];
          if (list.kind != K::List)
            throw PyError(n.ats[k - 1], fmt::format("a condition takes '{}' with a list written out, such as [1, 2, 4]", op));
          const std::string x = sub(k - 1);
          for (std::size_t j = 0; j < list.kids.size(); ++j) term += (j ? "||" : "") + std::string("(") + x + "==(" + mu(*list.kids[j]) + "))";
          if (list.kids.empty()) term = "0";
          term = op == "in" ? "(" + term + ")" : "(!(" + term + "))";
        } else {
          term = "(" + sub(k - 1) + op + sub(k) + ")";
        }
        out += (k > 1 ? "&&" : "") + term;
        bound(out, n.ats[k - 1]);
      }
      return "(" + out + ")";
    case K::And:
    case K::Or:
      out = sub(0);
      for (std::size_t k = 1; k < n.kids.size(); ++k) {
        out += (n.kind == K::And ? "&&" : "||") + sub(k);
        bound(out, n.ats[k - 1]);
      }
      return "(" + out + ")";
    case K::Not:
      return "(!" + sub(0) + ")";
    case K::Call:
      if (n.op != "min" && n.op != "max" && n.op != "abs")
        throw PyError(n.at, fmt::format("a condition cannot call '{}' (min, max and abs only)", n.op));
      out = n.op + "(";
      for (std::size_t k = 0; k < n.kids.size(); ++k) out += (k ? "," : "") + sub(k);
      return out + ")";
    case K::Ternary:
      return "(" + sub(0) + "?" + sub(1) + ":" + sub(2) + ")";
  }
  return "";
}

void collect(const Node& n, std::vector<std::string>& bound_vars, std::vector<std::string>& out) {
  if (n.kind == K::Name && std::find(bound_vars.begin(), bound_vars.end(), n.op) == bound_vars.end() &&
      std::find(out.begin(), out.end(), n.op) == out.end())
    out.push_back(n.op);
  if (n.kind != K::Comp) {
    for (const auto& k : n.kids) collect(*k, bound_vars, out);
    return;
  }
  // A comprehension's variable is bound in the clauses after its own and in the element.
  const std::size_t before = bound_vars.size();
  for (std::size_t k = 1; k < n.kids.size(); ++k) {
    collect(*n.kids[k], bound_vars, out);
    if (!n.vars[k].empty()) bound_vars.push_back(n.vars[k]);
  }
  collect(*n.kids[0], bound_vars, out);
  bound_vars.resize(before);
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

PyExpr PyExpr::parse(const std::string& text) {
  PyExpr e;
  e.root_ = Parser(text).parse();
  return e;
}

PyValue PyExpr::eval(const PyNames& names) const {
  Ctx ctx{names, {}, 0, 0};
  return pimg::user::eval(*root_, ctx);
}

std::string PyExpr::to_muparser() const { return mu(*root_); }

std::vector<std::string> PyExpr::names() const {
  std::vector<std::string> bound_vars, out;
  collect(*root_, bound_vars, out);
  return out;
}

}  // namespace pimg::user
