// Messages between pimg-tune processes (the supervisor and its worker; the ranks of a distributed
// run): a list of byte fields, framed as "<fields>\n" then "<length>\n<bytes>" per field.
#include "workers/wire.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <stdexcept>

namespace pimg::wire {

std::string encode(const Message& m) {
  std::string out = std::to_string(m.size()) + "\n";
  for (const auto& f : m) out += std::to_string(f.size()) + "\n" + f;
  return out;
}

bool write_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::string num(double v) { return fmt::format("{}", v); }
double to_double(const std::string& s) { return std::stod(s); }
long to_long(const std::string& s) { return std::stol(s); }

Message encode_problem(const Problem& p) {
  Message m = {p.family, std::to_string(p.width), std::to_string(p.height), std::to_string(p.channels),
               std::to_string(p.attrs.size())};
  for (const auto& [k, v] : p.attrs) {
    m.push_back(k);
    m.push_back(v);
  }
  return m;
}

Problem decode_problem(const Message& m, std::size_t& i) {
  Problem p;
  p.family = m.at(i++);
  p.width = static_cast<int>(to_long(m.at(i++)));
  p.height = static_cast<int>(to_long(m.at(i++)));
  p.channels = static_cast<int>(to_long(m.at(i++)));
  const long n = to_long(m.at(i++));
  for (long k = 0; k < n; ++k) {
    std::string key = m.at(i++);
    p.attrs[key] = m.at(i++);
  }
  return p;
}

Message encode_measure(const MeasureSpec& m) {
  const auto flag = [](bool b) { return std::string(b ? "1" : "0"); };
  const auto n = [](long v) { return std::to_string(v); };
  return {n(m.warmups),           n(m.repeats),          num(m.timeout_s),          flag(m.isolation),
          n(m.max_repeats),       num(m.noise),          num(m.max_time_s),         num(m.race), flag(m.timing.cold),
          flag(m.timing.hide_launch), num(m.energy_s),   n(m.confirm.top),          num(m.confirm.within),
          n(m.confirm.max),       n(m.confirm.rounds),   n(m.confirm.max_rounds),   num(m.confirm.max_time_s),
          n(m.confirm.preparations), n(m.confirm.sessions), n(m.confirm.max_sessions), n(m.cold.top),
          flag(m.noise_given),    flag(m.max_time_given), flag(m.confirm.max_time_given),
          flag(m.confirm.max_sessions_given)};
}

MeasureSpec decode_measure(const Message& m, std::size_t& i) {
  const auto integer = [&] { return static_cast<int>(to_long(m.at(i++))); };
  const auto real = [&] { return to_double(m.at(i++)); };
  const auto flag = [&] { return m.at(i++) == "1"; };
  MeasureSpec s;
  s.warmups = integer();
  s.repeats = integer();
  s.timeout_s = real();
  s.isolation = flag();
  s.max_repeats = integer();
  s.noise = real();
  s.max_time_s = real();
  s.race = real();
  s.timing.cold = flag();
  s.timing.hide_launch = flag();
  s.energy_s = real();
  s.confirm.top = integer();
  s.confirm.within = real();
  s.confirm.max = integer();
  s.confirm.rounds = integer();
  s.confirm.max_rounds = integer();
  s.confirm.max_time_s = real();
  s.confirm.preparations = integer();
  s.confirm.sessions = integer();
  s.confirm.max_sessions = integer();
  s.cold.top = integer();
  s.noise_given = flag();
  s.max_time_given = flag();
  s.confirm.max_time_given = flag();
  s.confirm.max_sessions_given = flag();
  return s;
}

Message encode_result(const EvalResult& r) {
  Message m = {"result", to_string(r.status), r.log, r.validation, num(r.compile_ms), r.compile_cached ? "1" : "0",
               num(r.h2d_ms), num(r.d2h_ms), num(r.eval_ms), std::to_string(r.kernel_ms.size())};
  for (double x : r.kernel_ms) m.push_back(num(x));
  m.push_back(std::to_string(r.wall_ms.size()));
  for (double x : r.wall_ms) m.push_back(num(x));
  m.insert(m.end(), {r.method, num(r.ci_low_ms), num(r.ci_high_ms), r.identity, join_flags(r.flags), r.stage,
                     std::to_string(r.metrics.size())});
  for (const Metric& x : r.metrics) m.insert(m.end(), {x.name, x.unit, std::to_string(x.seq), num(x.value)});
  return m;
}

EvalResult decode_result(const Message& m) {
  if (m.size() < 10) throw std::runtime_error("worker protocol: short result");
  EvalResult r;
  r.status = status_from_string(m[1]);
  r.log = m[2];
  r.validation = m[3];
  r.compile_ms = to_double(m[4]);
  r.compile_cached = m[5] == "1";
  r.h2d_ms = to_double(m[6]);
  r.d2h_ms = to_double(m[7]);
  r.eval_ms = to_double(m[8]);
  std::size_t i = 9;
  auto list = [&](std::vector<double>& out) {
    if (i >= m.size()) throw std::runtime_error("worker protocol: short result");
    const long n = to_long(m[i++]);
    if (n < 0 || i + static_cast<std::size_t>(n) > m.size()) throw std::runtime_error("worker protocol: short result");
    for (long k = 0; k < n; ++k) out.push_back(to_double(m[i++]));
  };
  list(r.kernel_ms);
  list(r.wall_ms);
  if (i + 7 > m.size()) throw std::runtime_error("worker protocol: short result");
  r.method = m[i++];
  r.ci_low_ms = to_double(m[i++]);
  r.ci_high_ms = to_double(m[i++]);
  r.identity = m[i++];
  r.flags = split_flags(m[i++]);
  r.stage = m[i++];
  const long metrics = to_long(m[i++]);
  if (metrics < 0 || i + 4 * static_cast<std::size_t>(metrics) > m.size())
    throw std::runtime_error("worker protocol: short result");
  for (long k = 0; k < metrics; ++k, i += 4)
    r.metrics.push_back({m[i], m[i + 1], static_cast<int>(to_long(m[i + 2])), to_double(m[i + 3])});
  r.kernel = Stats::of(r.kernel_ms);
  return r;
}

Message decode_whole(const std::string& bytes) {
  Decoder d;
  d.feed(bytes.data(), bytes.size());
  auto m = d.next();
  if (!m) throw std::runtime_error("protocol: incomplete message");
  return *m;
}

}  // namespace pimg::wire
