// A recursive-descent parser and evaluator for the Python subset T1 files use: numbers, strings,
// names, lists, indexing, calls of min/max/abs/int/float/len/sum/ceil/floor, arithmetic with // % **,
// comparisons (chained), and/or/not and `a if c else b`.
#include "pyexpr.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace pimg::user {

struct PyExpr::Node {
  enum class Kind { Lit, Name, List, Unary, Bin, Cmp, And, Or, Not, Call, Index, Ternary } kind = Kind::Lit;
  std::string op;  // Unary/Bin: operator; Cmp: the operators between children; Name/Call: the name
  std::vector<std::string> ops;
  std::vector<std::shared_ptr<const Node>> kids;
  PyValue value;
  std::size_t at = 0;
};

namespace {

using NodeP = std::shared_ptr<const PyExpr::Node>;
using Node = PyExpr::Node;
using K = Node::Kind;
constexpr int kMaxDepth = 100;

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  NodeP parse() {
    NodeP n = ternary();
    skip();
    if (p_ < s_.size()) throw PyError(p_, fmt::format("unexpected '{}'", s_.substr(p_, 12)));
    return n;
  }

 private:
  void skip() {
    while (p_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[p_]))) ++p_;
  }
  bool word_at(const char* w) {
    skip();
    const std::size_t n = std::char_traits<char>::length(w);
    if (s_.compare(p_, n, w) != 0) return false;
    const std::size_t e = p_ + n;
    return e >= s_.size() || !(std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_');
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
    if (!sym(t)) throw PyError(p_, fmt::format("expected '{}'", t));
  }
  NodeP make(K k, std::size_t at, std::vector<NodeP> kids, std::string op = "") {
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
      if (++d > kMaxDepth) throw PyError(at, "expression nested too deeply");
    }
    ~Guard() { --d; }
  };

  NodeP ternary() {
    Guard g(depth_, p_);
    const std::size_t at = p_;
    NodeP a = or_();
    if (!word("if")) return a;
    NodeP c = or_();
    if (!word("else")) throw PyError(p_, "expected 'else'");
    NodeP b = ternary();
    return make(K::Ternary, at, {c, a, b});
  }
  NodeP or_() {
    const std::size_t at = p_;
    NodeP a = and_();
    while (word("or")) a = make(K::Or, at, {a, and_()});
    return a;
  }
  NodeP and_() {
    const std::size_t at = p_;
    NodeP a = not_();
    while (word("and")) a = make(K::And, at, {a, not_()});
    return a;
  }
  NodeP not_() {
    Guard g(depth_, p_);
    const std::size_t at = p_;
    if (word("not")) return make(K::Not, at, {not_()});
    return cmp();
  }
  NodeP cmp() {
    const std::size_t at = p_;
    NodeP first = arith();
    auto n = std::make_shared<Node>();
    n->kind = K::Cmp;
    n->at = at;
    n->kids.push_back(first);
    for (;;) {
      std::string op;
      for (const char* o : {"==", "!=", "<=", ">=", "<", ">"})
        if (sym(o)) {
          op = o;
          break;
        }
      if (op.empty()) break;
      n->ops.push_back(op);
      n->kids.push_back(arith());
    }
    if (n->ops.empty()) return first;
    return n;
  }
  NodeP arith() {
    const std::size_t at = p_;
    NodeP a = term();
    for (;;) {
      if (sym("+"))
        a = make(K::Bin, at, {a, term()}, "+");
      else if (sym("-"))
        a = make(K::Bin, at, {a, term()}, "-");
      else
        return a;
    }
  }
  NodeP term() {
    const std::size_t at = p_;
    NodeP a = factor();
    for (;;) {
      if (sym("//"))
        a = make(K::Bin, at, {a, factor()}, "//");
      else if (sym("*") )
        a = make(K::Bin, at, {a, factor()}, "*");
      else if (sym("/"))
        a = make(K::Bin, at, {a, factor()}, "/");
      else if (sym("%"))
        a = make(K::Bin, at, {a, factor()}, "%");
      else
        return a;
    }
  }
  NodeP factor() {
    Guard g(depth_, p_);
    const std::size_t at = p_;
    skip();
    if (p_ + 1 < s_.size() && s_[p_] == '*' && s_[p_ + 1] == '*') throw PyError(p_, "unexpected '**'");
    if (sym("-")) return make(K::Unary, at, {factor()}, "-");
    if (sym("+")) return factor();
    NodeP base = postfix();
    if (sym("**")) return make(K::Bin, at, {base, factor()}, "**");
    return base;
  }
  NodeP postfix() {
    NodeP a = atom();
    for (;;) {
      const std::size_t at = p_;
      if (sym("[")) {
        NodeP i = ternary();
        expect("]");
        a = make(K::Index, at, {a, i});
      } else if (a->kind == K::Name && sym("(")) {
        std::vector<NodeP> args;
        if (!sym(")")) {
          do args.push_back(ternary());
          while (sym(","));
          expect(")");
        }
        auto c = make(K::Call, a->at, std::move(args), a->op);
        a = c;
      } else {
        return a;
      }
    }
  }
  NodeP atom() {
    skip();
    const std::size_t at = p_;
    if (p_ >= s_.size()) throw PyError(p_, "unexpected end of expression");
    const char c = s_[p_];
    if (sym("(")) {
      NodeP e = ternary();
      expect(")");
      return e;
    }
    if (sym("[")) {
      std::vector<NodeP> items;
      if (!sym("]")) {
        do {
          if (sym("]")) return make(K::List, at, std::move(items));  // trailing comma
          items.push_back(ternary());
        } while (sym(","));
        expect("]");
      }
      return make(K::List, at, std::move(items));
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
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      std::size_t e = p_;
      while (e < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[e])) || s_[e] == '_')) ++e;
      std::string name = s_.substr(p_, e - p_);
      p_ = e;
      auto n = std::make_shared<Node>();
      n->at = at;
      if (name == "True" || name == "False") {
        n->value = PyValue::integer(name == "True");
        return n;
      }
      for (const char* kw : {"and", "or", "not", "if", "else", "None", "lambda", "for", "in", "is"})
        if (name == kw) throw PyError(at, fmt::format("'{}' is not supported here", name));
      n->kind = K::Name;
      n->op = name;
      return n;
    }
    throw PyError(p_, fmt::format("unexpected '{}'", std::string(1, c)));
  }
  NodeP number() {
    const std::size_t at = p_;
    std::size_t e = p_;
    bool real = false;
    while (e < s_.size()) {
      const char c = s_[e];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '_') {
        ++e;
      } else if (c == '.' ) {
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
    std::string text = s_.substr(p_, e - p_);
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    p_ = e;
    auto n = std::make_shared<Node>();
    n->at = at;
    if (real) {
      double v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size()) throw PyError(at, "malformed number '" + text + "'");
      n->value = PyValue::real(v);
    } else {
      std::int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size())
        throw PyError(at, "integer '" + text + "' is malformed or out of range");
      n->value = PyValue::integer(v);
    }
    return n;
  }

  const std::string& s_;
  std::size_t p_ = 0;
  int depth_ = 0;
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

bool compare(const PyValue& a, const std::string& op, const PyValue& b, std::size_t at) {
  if (a.kind == PyValue::Kind::Str || b.kind == PyValue::Kind::Str) {
    if (a.kind != b.kind) return op == "!=";
    const int c = a.s.compare(b.s);
    if (op == "==") return c == 0;
    if (op == "!=") return c != 0;
    throw PyError(at, "strings are only compared with == and !=");
  }
  if (a.kind == PyValue::Kind::Int && b.kind == PyValue::Kind::Int) {
    if (op == "==") return a.i == b.i;
    if (op == "!=") return a.i != b.i;
    if (op == "<") return a.i < b.i;
    if (op == ">") return a.i > b.i;
    if (op == "<=") return a.i <= b.i;
    return a.i >= b.i;
  }
  const double x = a.number(), y = b.number();
  if (op == "==") return x == y;
  if (op == "!=") return x != y;
  if (op == "<") return x < y;
  if (op == ">") return x > y;
  if (op == "<=") return x <= y;
  return x >= y;
}

PyValue arithmetic(const PyValue& a, const std::string& op, const PyValue& b, std::size_t at) {
  if (!a.numeric() || !b.numeric())
    throw PyError(at, fmt::format("'{}' needs numbers, not {} and {}", op, a.repr(), b.repr()));
  const bool ints = a.kind == PyValue::Kind::Int && b.kind == PyValue::Kind::Int;
  if (ints && op != "/") {
    const std::int64_t x = a.i, y = b.i;
    std::int64_t r = 0;
    if ((op == "//" || op == "%") && y == 0) throw PyError(at, fmt::format("division by zero ({} {} {})", x, op, y));
    if (op == "+" && !__builtin_add_overflow(x, y, &r)) return PyValue::integer(r);
    if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return PyValue::integer(r);
    if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return PyValue::integer(r);
    if (op == "//") return PyValue::integer(floor_div(x, y));
    if (op == "%") return PyValue::integer(x - floor_div(x, y) * y);
    if (op == "**" && y >= 0) {
      std::int64_t p = 1;
      for (std::int64_t k = 0; k < y; ++k)
        if (__builtin_mul_overflow(p, x, &p)) throw PyError(at, "integer overflow in '**'");
      return PyValue::integer(p);
    }
    if (op != "**") throw PyError(at, fmt::format("integer overflow in '{}'", op));
  }
  const double x = a.number(), y = b.number();
  if ((op == "/" || op == "//" || op == "%") && y == 0) throw PyError(at, "division by zero");
  if (op == "+") return PyValue::real(x + y);
  if (op == "-") return PyValue::real(x - y);
  if (op == "*") return PyValue::real(x * y);
  if (op == "/") return PyValue::real(x / y);
  if (op == "//") return PyValue::real(std::floor(x / y));
  if (op == "%") return PyValue::real(x - std::floor(x / y) * y);
  return PyValue::real(std::pow(x, y));
}

PyValue call(const std::string& f, const std::vector<PyValue>& args, std::size_t at) {
  auto items = [&]() -> std::vector<PyValue> {
    if (args.size() == 1 && args[0].kind == PyValue::Kind::List) return args[0].list;
    if (args.size() == 1 && args[0].numeric() && (f == "min" || f == "max")) return args;  // max(param) of one value
    return args;
  };
  if (f == "min" || f == "max") {
    std::vector<PyValue> v = items();
    if (v.empty()) throw PyError(at, f + "() of nothing");
    PyValue best = v[0];
    for (const auto& x : v) {
      if (!x.numeric()) throw PyError(at, f + "() needs numbers");
      if (f == "min" ? x.number() < best.number() : x.number() > best.number()) best = x;
    }
    return best;
  }
  if (f == "sum") {
    PyValue s = PyValue::integer(0);
    for (const auto& x : items()) s = arithmetic(s, "+", x, at);
    return s;
  }
  if (f == "len") {
    if (args.size() != 1 || args[0].kind != PyValue::Kind::List) throw PyError(at, "len() needs one list");
    return PyValue::integer(static_cast<std::int64_t>(args[0].list.size()));
  }
  if (args.size() != 1 || !args[0].numeric()) throw PyError(at, f + "() needs one number");
  const PyValue& x = args[0];
  if (f == "abs") return x.kind == PyValue::Kind::Int ? PyValue::integer(x.i < 0 ? -x.i : x.i) : PyValue::real(std::fabs(x.r));
  if (f == "float") return PyValue::real(x.number());
  if (f == "int" || f == "ceil" || f == "floor") {
    if (x.kind == PyValue::Kind::Int) return x;
    const double r = f == "int" ? std::trunc(x.r) : f == "ceil" ? std::ceil(x.r) : std::floor(x.r);
    if (!std::isfinite(r) || std::fabs(r) > 9.2e18) throw PyError(at, f + "() out of range");
    return PyValue::integer(static_cast<std::int64_t>(r));
  }
  throw PyError(at, fmt::format("unknown function '{}' (known: min, max, sum, len, abs, int, float, ceil, floor)", f));
}

PyValue eval(const Node& n, const PyNames& names) {
  switch (n.kind) {
    case K::Lit:
      return n.value;
    case K::Name: {
      auto v = names(n.op);
      if (!v) throw PyError(n.at, fmt::format("unknown name '{}'", n.op));
      return *v;
    }
    case K::List: {
      PyValue l;
      l.kind = PyValue::Kind::List;
      for (const auto& k : n.kids) l.list.push_back(eval(*k, names));
      return l;
    }
    case K::Unary: {
      PyValue v = eval(*n.kids[0], names);
      if (!v.numeric()) throw PyError(n.at, "'-' needs a number");
      if (v.kind == PyValue::Kind::Int && v.i != INT64_MIN) return PyValue::integer(-v.i);
      return PyValue::real(-v.number());
    }
    case K::Bin:
      return arithmetic(eval(*n.kids[0], names), n.op, eval(*n.kids[1], names), n.at);
    case K::Cmp: {
      PyValue left = eval(*n.kids[0], names);
      for (std::size_t k = 0; k < n.ops.size(); ++k) {
        PyValue right = eval(*n.kids[k + 1], names);
        if (!compare(left, n.ops[k], right, n.at)) return PyValue::integer(0);
        left = std::move(right);
      }
      return PyValue::integer(1);
    }
    case K::And: {
      PyValue a = eval(*n.kids[0], names);
      return a.truthy() ? eval(*n.kids[1], names) : a;
    }
    case K::Or: {
      PyValue a = eval(*n.kids[0], names);
      return a.truthy() ? a : eval(*n.kids[1], names);
    }
    case K::Not:
      return PyValue::integer(!eval(*n.kids[0], names).truthy());
    case K::Call: {
      std::vector<PyValue> args;
      for (const auto& k : n.kids) args.push_back(eval(*k, names));
      return call(n.op, args, n.at);
    }
    case K::Index: {
      PyValue l = eval(*n.kids[0], names), i = eval(*n.kids[1], names);
      if (l.kind != PyValue::Kind::List || i.kind != PyValue::Kind::Int) throw PyError(n.at, "only a list is indexed, by an integer");
      const auto size = static_cast<std::int64_t>(l.list.size());
      const std::int64_t k = i.i < 0 ? i.i + size : i.i;
      if (k < 0 || k >= size) throw PyError(n.at, fmt::format("index {} out of range (size {})", i.i, size));
      return l.list[static_cast<std::size_t>(k)];
    }
    case K::Ternary:
      return eval(*n.kids[0], names).truthy() ? eval(*n.kids[1], names) : eval(*n.kids[2], names);
  }
  return {};
}

bool identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// muparser text; a and b appear more than once where Python's floor semantics need the signs.
std::string mu(const Node& n) {
  auto sub = [&](std::size_t k) { return "(" + mu(*n.kids[k]) + ")"; };
  switch (n.kind) {
    case K::Lit:
      if (n.value.kind == PyValue::Kind::Int) return std::to_string(n.value.i);
      if (n.value.kind == PyValue::Kind::Real) return fmt::format("{:.17g}", n.value.r);
      if (identifier(n.value.s)) return n.value.s;
      throw PyError(n.at, fmt::format("the string '{}' is not a name a condition can compare with", n.value.s));
    case K::Name:
      return n.op;
    case K::List:
    case K::Index:
      throw PyError(n.at, "a condition cannot hold lists");
    case K::Unary:
      return "(-" + sub(0) + ")";
    case K::Bin: {
      const std::string a = sub(0), b = sub(1);
      if (n.op == "**") return "(" + a + "^" + b + ")";
      if (n.op == "//" || n.op == "%") {
        const std::string rem = "(" + a + "%" + b + ")";
        const std::string fix = "((" + rem + "!=0)&&((" + a + "<0)!=(" + b + "<0)))";
        if (n.op == "%") return "(" + rem + "+" + fix + "*" + b + ")";
        return "(((" + a + "-" + rem + ")/" + b + ")-" + fix + ")";
      }
      return "(" + a + n.op + b + ")";
    }
    case K::Cmp: {
      std::string out;
      for (std::size_t k = 0; k < n.ops.size(); ++k)
        out += (k ? "&&" : "") + std::string("(") + sub(k) + n.ops[k] + sub(k + 1) + ")";
      return "(" + out + ")";
    }
    case K::And:
      return "(" + sub(0) + "&&" + sub(1) + ")";
    case K::Or:
      return "(" + sub(0) + "||" + sub(1) + ")";
    case K::Not:
      return "(!" + sub(0) + ")";
    case K::Call: {
      if (n.op != "min" && n.op != "max" && n.op != "abs")
        throw PyError(n.at, fmt::format("a condition cannot call '{}' (min, max and abs only)", n.op));
      std::string out = n.op + "(";
      for (std::size_t k = 0; k < n.kids.size(); ++k) out += (k ? "," : "") + sub(k);
      return out + ")";
    }
    case K::Ternary:
      return "(" + sub(0) + "?" + sub(1) + ":" + sub(2) + ")";
  }
  return "";
}

void collect(const Node& n, std::vector<std::string>& out) {
  if (n.kind == K::Name && std::find(out.begin(), out.end(), n.op) == out.end()) out.push_back(n.op);
  for (const auto& k : n.kids) collect(*k, out);
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
  switch (kind) {
    case Kind::Int: return std::to_string(i);
    case Kind::Real: return fmt::format("{}", r);
    case Kind::Str: return "'" + s + "'";
    case Kind::List: {
      std::string out = "[";
      for (std::size_t k = 0; k < list.size(); ++k) out += (k ? ", " : "") + list[k].repr();
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

PyValue PyExpr::eval(const PyNames& names) const { return pimg::user::eval(*root_, names); }

std::string PyExpr::to_muparser() const { return mu(*root_); }

std::vector<std::string> PyExpr::names() const {
  std::vector<std::string> out;
  collect(*root_, out);
  return out;
}

}  // namespace pimg::user
