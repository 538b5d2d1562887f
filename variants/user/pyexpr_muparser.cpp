// The T1 expression language written out (pyexpr.hpp): an expression as a muparser constraint, with Python's
// meaning of //, % and `in`, and the free names an expression uses.
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

std::string PyExpr::to_muparser() const { return mu(*root_); }

std::vector<std::string> PyExpr::names() const {
  std::vector<std::string> bound_vars, out;
  collect(*root_, bound_vars, out);
  return out;
}

}  // namespace pimg::user
