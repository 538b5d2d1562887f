// A recursive-descent parser and evaluator for the Python subset T1 files use (the grammar is in
// pyexpr.hpp). Chains of one precedence level (a + b - c ..., a and b and c ...) are one node with a
// list of operands, so a long flat expression is evaluated, written out and freed without recursion.
// This file holds the parser; pyexpr_eval.cpp evaluates, pyexpr_muparser.cpp writes out a constraint.
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

}  // namespace

PyExpr PyExpr::parse(const std::string& text) {
  PyExpr e;
  e.root_ = Parser(text).parse();
  return e;
}

}  // namespace pimg::user
