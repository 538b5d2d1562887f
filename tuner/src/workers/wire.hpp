// Messages between pimg-tune processes (the supervisor and its worker; the ranks of a distributed
// run): a list of byte fields, framed as "<fields>\n" then "<length>\n<bytes>" per field. Numbers
// travel as their shortest exact decimal text, so a result arrives bit for bit as it was measured.
#pragma once
#include <charconv>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "pimg/problem.hpp"
#include "pimg/result.hpp"
#include "pimg/space.hpp"

namespace pimg::wire {

using Message = std::vector<std::string>;
inline constexpr std::size_t kMaxField = 1u << 30;  // refuse absurd lengths from a confused peer

std::string encode(const Message& m);
Message decode_whole(const std::string& bytes);  // throws std::runtime_error unless exactly one message
bool write_all(int fd, const std::string& data);

std::string num(double v);
double to_double(const std::string& s);
long to_long(const std::string& s);

// A problem as fields (family, size, channels, attributes), read back from field i on (i moves past it).
Message encode_problem(const Problem& p);
Problem decode_problem(const Message& m, std::size_t& i);

// A measurement specification as fields, every one of its fields (a worker measures by exactly the supervisor's
// spec), read back from field i on (i moves past it).
Message encode_measure(const MeasureSpec& m);
MeasureSpec decode_measure(const Message& m, std::size_t& i);

// {"result", status, log, validation, times...}
Message encode_result(const EvalResult& r);
EvalResult decode_result(const Message& m);  // reads from field 0 ("result")

// Accumulates bytes and yields complete messages; throws on malformed framing.
class Decoder {
 public:
  void feed(const char* data, std::size_t n) { buf_.append(data, n); }
  std::optional<Message> next() {
    std::size_t pos = 0;
    std::size_t count = 0;
    if (!number(pos, count)) return std::nullopt;
    Message m;
    for (std::size_t i = 0; i < count; ++i) {
      std::size_t len = 0;
      if (!number(pos, len)) return std::nullopt;
      if (buf_.size() - pos < len) return std::nullopt;
      m.push_back(buf_.substr(pos, len));
      pos += len;
    }
    buf_.erase(0, pos);
    return m;
  }

 private:
  bool number(std::size_t& pos, std::size_t& out) {
    std::size_t nl = buf_.find('\n', pos);
    if (nl == std::string::npos) {
      if (buf_.size() - pos > 20) throw std::runtime_error("worker protocol: bad length");
      return false;
    }
    auto [p, ec] = std::from_chars(buf_.data() + pos, buf_.data() + nl, out);
    if (ec != std::errc() || p != buf_.data() + nl || out > kMaxField)
      throw std::runtime_error("worker protocol: bad length");
    pos = nl + 1;
    return true;
  }
  std::string buf_;
};


}  // namespace pimg::wire
