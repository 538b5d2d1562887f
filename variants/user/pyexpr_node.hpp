// Internal to the T1 expression language (pyexpr_parse.cpp, pyexpr_eval.cpp, pyexpr_muparser.cpp): the
// node of a parsed expression, which the parser makes and the evaluator and the muparser writer walk.
#pragma once
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "pyexpr.hpp"

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

namespace pyexpr_detail {

using NodeP = std::shared_ptr<const PyExpr::Node>;
using Node = PyExpr::Node;
using K = Node::Kind;
using VK = PyValue::Kind;

inline bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
inline bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace pyexpr_detail
}  // namespace pimg::user
