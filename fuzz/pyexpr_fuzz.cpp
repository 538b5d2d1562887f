// Fuzz target: the T1 expression language (variants/user/pyexpr), parsed, evaluated with a few names
// bound and written out as a muparser constraint. Every input must give a value or a PyError with a
// one-line message and an offset inside the text; none may crash, hang or exhaust the stack.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "user/pyexpr.hpp"
#include "check.hpp"

namespace {

void check(const pimg::user::PyError& e, std::size_t size) {
  FUZZ_CHECK(std::string(e.what()).find('\n') == std::string::npos, e.what());
  FUZZ_CHECK(e.offset() <= size, e.what());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using pimg::user::PyValue;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const pimg::user::PyNames names = [](const std::string& n) -> std::optional<PyValue> {
    if (n == "block_size_x" || n == "ppx") return PyValue::integer(n == "ppx" ? 2 : 32);
    if (n == "big") return PyValue::integer(INT64_MIN);
    if (n == "mode") return PyValue::str("global");
    if (n == "ProblemSize") return PyValue::make_list({PyValue::integer(4096), PyValue::integer(4096)});
    return std::nullopt;
  };
  pimg::user::PyExpr e;
  try {
    e = pimg::user::PyExpr::parse(text);
  } catch (const pimg::user::PyError& err) {
    check(err, size);
    return 0;
  }
  (void)e.names();
  try {
    (void)e.eval(names).repr();
  } catch (const pimg::user::PyError& err) {
    check(err, size);
  }
  try {
    (void)e.to_muparser();
  } catch (const pimg::user::PyError& err) {
    check(err, size);
  }
  return 0;
}
