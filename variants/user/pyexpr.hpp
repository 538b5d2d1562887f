// The Python-style expressions of T1 files (conditions, size expressions, value lists): parsed once,
// evaluated with names bound by the caller, or written out as a muparser constraint so that a T1
// condition joins the space machinery like a YAML constraint. Errors are PyError with an offset.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace pimg::user {

// The evaluator's limits (docs/reliability.md): past any of them an expression is refused with a
// PyError, never evaluated partly, wrapped or left to exhaust the stack or the memory.
inline constexpr std::size_t kPyMaxTextBytes = 256 * 1024;      // expression text
inline constexpr int kPyMaxDepth = 100;                          // nesting (parentheses, unary operators, **, ...)
inline constexpr std::size_t kPyMaxListElements = 1000000;      // one list, range or comprehension
inline constexpr std::uint64_t kPyMaxElementsPerEval = 2000000;  // every list element one evaluation makes
inline constexpr std::uint64_t kPyMaxStepsPerEval = 5000000;     // nodes evaluated by one evaluation
inline constexpr std::size_t kPyMaxConstraintBytes = 1 << 20;    // a condition written out for muparser

class PyError : public std::runtime_error {
 public:
  PyError(std::size_t offset, const std::string& message) : std::runtime_error(message), offset_(offset) {}
  std::size_t offset() const { return offset_; }  // 0-based byte offset in the expression text

 private:
  std::size_t offset_;
};

struct PyValue {
  enum class Kind { Int, Real, Str, List } kind = Kind::Int;
  std::int64_t i = 0;
  double r = 0;
  std::string s;
  std::vector<PyValue> list;

  static PyValue integer(std::int64_t v) { PyValue p; p.i = v; return p; }
  static PyValue real(double v) { PyValue p; p.kind = Kind::Real; p.r = v; return p; }
  static PyValue str(std::string v) { PyValue p; p.kind = Kind::Str; p.s = std::move(v); return p; }
  static PyValue make_list(std::vector<PyValue> v) { PyValue p; p.kind = Kind::List; p.list = std::move(v); return p; }
  bool numeric() const { return kind == Kind::Int || kind == Kind::Real; }
  double number() const;  // throws PyError for strings and lists
  bool truthy() const;
  std::string repr() const;  // Python's repr, cut short after about 80 characters
};

// A name's value, or nullopt when the name is unknown (an error naming it).
using PyNames = std::function<std::optional<PyValue>(const std::string&)>;

// The grammar (Python's precedence): `a if c else b`; or, and, not; comparisons, chained
// (== != < <= > >= in, not in); + -; * / // %; unary - +; ** (right-associative); indexing and calls;
// numbers, strings, names, True/False, lists, tuples, list comprehensions (`[e for x in it if c ...]`,
// also as the one argument of a call), and a bare tuple at the top. Calls: range (1 to 3 integers),
// list, len, min, max, sum, abs, int, float, ceil, floor. Integers are 64-bit and checked; reals must
// stay finite.
class PyExpr {
 public:
  static PyExpr parse(const std::string& text);  // throws PyError
  PyValue eval(const PyNames& names) const;       // throws PyError
  // The expression as a muparser constraint (and/or/not, //, %, ** with Python's meaning for the
  // integers constraints see); throws PyError for what a constraint cannot hold (lists other than the
  // right side of `in`, calls other than min/max/abs).
  std::string to_muparser() const;
  std::vector<std::string> names() const;  // the free names it uses, in order of first use
  struct Node;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace pimg::user
