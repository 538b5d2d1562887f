// The semblance family contract: problem attributes, the data (SU file or synthetic), the serial
// reference over the grid, the validation rule on the best point, traffic and GFLOP/s.
#include "semblance_family.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstring>
#include <thread>

#include "pimg/errors.hpp"

extern "C" {
#include "semblance/semblance_core.h"
}

namespace pimg::semblance {
namespace {

constexpr int kMaxWindow = 64;
constexpr std::int64_t kMaxPoints = std::int64_t{1} << 28;  // 2 GiB of output; 40^5 (issue 6) fits

template <class T>
T parse_number(const std::string& key, const std::string& text) {
  T v{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw AttrError(key, fmt::format("'{}' is not a number", text));
  return v;
}

// "n" (every dimension) or "na,nb,nc,nd,ne".
std::array<int, 5> parse_five(const std::string& key, const std::string& text, bool allow_one) {
  std::vector<int> v;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    v.push_back(parse_number<int>(key, item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (v.size() == 1 && allow_one) v.assign(5, v[0]);
  if (v.size() != 5)
    throw AttrError(key, fmt::format("'{}': expected {}5 comma-separated integers (A..E)", text,
                                     allow_one ? "one integer or " : ""));
  return {v[0], v[1], v[2], v[3], v[4]};
}

std::string five_text(const std::array<int, 5>& v) {
  if (std::all_of(v.begin(), v.end(), [&](int x) { return x == v[0]; })) return std::to_string(v[0]);
  return fmt::format("{},{},{},{},{}", v[0], v[1], v[2], v[3], v[4]);
}

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  if (!out.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

struct Header {
  std::int32_t tag, best;
  float sem, stack;
};

Header header_of(std::span<const std::uint8_t> bytes) {
  Header h;
  std::memcpy(&h, bytes.data(), sizeof h);
  return h;
}

float float_at(std::span<const std::uint8_t> bytes, std::size_t index) {
  float v;
  std::memcpy(&v, bytes.data() + sizeof(Header) + index * 4, 4);
  return v;
}

}  // namespace

const std::vector<ParamSet>& param_sets() {
  static const std::vector<ParamSet> sets = {
      {"param1", 4120, -480, 1.124, 0.005, {-0.1, -0.00143, 7.8e-07, -1.0e-07, -1.0e-07},
       {0.1, 0.00057, 9.8e-07, 1.0e-07, 1.0e-07}},
      {"param2", 4120, -480, 1.94, 0.005, {-0.00088484, -0.001194, 6.4e-07, 6.0e-10, 4.61e-08},
       {0.00111516, 0.000806, 8.4e-07, 8.0e-10, 6.61e-08}},
      {"param3", 4120, -480, 2.255, 0.005, {-0.001147, -0.001139, 4.396e-07, 3.002e-07, -2.101e-07},
       {0.000853, 0.000861, 5.396e-07, 4.102e-07, 0.101e-07}},
      {"synth", 4120, -480, 1.0, 0.005, {-3e-4, -3e-4, -1.2e-5, -3e-6, -6e-6}, {3e-4, 3e-4, 1.2e-5, 3e-6, 6e-6}},
  };
  return sets;
}

const ParamSet& param_set(const std::string& name) {
  for (const auto& s : param_sets())
    if (s.name == name) return s;
  throw AttrError("params", fmt::format("unknown parameter set '{}' (param1, param2, param3, synth)", name));
}

std::int64_t SembSpec::points() const {
  std::int64_t p = 1;
  for (int v : n) p *= v;
  return p;
}

int SembSpec::axis_offset(int dim) const {
  int off = 0;
  for (int d = 0; d < dim; ++d) off += n[d];
  return off;
}

std::vector<AttrSpec> SemblanceFamily::attributes() const {
  return {
      {"data", {}, "synthetic", "an SU file (sizes are taken from it), or synthetic (sizes: traces x samples)"},
      {"params", {"param1", "param2", "param3", "synth"}, "",
       "the seed's parameter sets param1..3 (M0 H0 T0 TAU and the A..E ranges), or synth; "
       "default param1 for a file, synth for synthetic data"},
      {"grid", {}, "20", "grid points per dimension: n, or na,nb,nc,nd,ne (the seed: 20, 3.2 million points)"},
      {"truth", {}, "", "synthetic: the grid point ia,ib,ic,id,ie the reflection follows (default: the centre)"},
      {"seed", {}, "", "synthetic: noise seed (default 1107)"},
      {"noise", {}, "", "synthetic: noise standard deviation, the wavelet's peak being 1 (default 0.2)"},
      {"dt", {}, "", "sample interval in microseconds: taken from an SU file; synthetic default 2000"},
  };
}

Problem SemblanceFamily::make_problem(int width, int height, int channels,
                                      std::map<std::string, std::string> attrs) const {
  for (const auto& spec : attributes())
    if (!attrs.count(spec.name) && !spec.default_value.empty()) attrs[spec.name] = spec.default_value;
  if (channels != 1) throw AttrError("channels", fmt::format("semblance data has 1 channel, got {}", channels));
  const bool synthetic = attrs["data"] == "synthetic";
  if (!attrs.count("params") || attrs["params"].empty()) attrs["params"] = synthetic ? "synth" : "param1";
  const ParamSet& ps = param_set(attrs["params"]);
  const std::array<int, 5> n = parse_five("grid", attrs["grid"], true);
  for (int v : n)
    if (v < 1 || v > 100000) throw AttrError("grid", fmt::format("grid points per dimension must be 1..100000, got {}", v));
  // The product checked as it grows: five axes of 100000 would overflow 64 bits (a fuzzer finding).
  std::int64_t points = 1;
  for (int v : n) {
    points *= v;
    if (points > kMaxPoints)
      throw AttrError("grid", fmt::format("grid {} has more than the limit of {} points", five_text(n), kMaxPoints));
  }
  attrs["grid"] = five_text(n);

  int dt_us = 2000;
  if (attrs.count("dt") && !attrs["dt"].empty()) dt_us = parse_number<int>("dt", attrs["dt"]);
  if (dt_us < 1 || dt_us > 65535) throw AttrError("dt", fmt::format("dt must be 1..65535 microseconds, got {}", dt_us));
  if (synthetic) {
    std::array<int, 5> truth{};
    for (int d = 0; d < 5; ++d) truth[d] = n[d] / 2;
    if (attrs.count("truth") && !attrs["truth"].empty()) truth = parse_five("truth", attrs["truth"], false);
    for (int d = 0; d < 5; ++d)
      if (truth[d] < 0 || truth[d] >= n[d])
        throw AttrError("truth", fmt::format("truth index {} of dimension {} is outside 0..{}", truth[d], "ABCDE"[d], n[d] - 1));
    attrs["truth"] = fmt::format("{},{},{},{},{}", truth[0], truth[1], truth[2], truth[3], truth[4]);
    if (!attrs.count("seed") || attrs["seed"].empty()) attrs["seed"] = "1107";
    if (!attrs.count("noise") || attrs["noise"].empty()) attrs["noise"] = "0.2";
    parse_number<std::uint32_t>("seed", attrs["seed"]);
    const double noise = parse_number<double>("noise", attrs["noise"]);
    if (!(noise >= 0 && noise <= 100)) throw AttrError("noise", fmt::format("noise must be in 0..100, got {}", noise));
    if (width < 2 || height < 8)
      throw AttrError("sizes", fmt::format("synthetic data needs sizes: traces x samples, at least 2x8 (got {}x{})",
                                           width, height));
    if (height > 65535) throw AttrError("sizes", fmt::format("at most 65535 samples per trace, got {}", height));
    if (static_cast<std::int64_t>(width) * height > (std::int64_t{1} << 28))
      throw AttrError("sizes", fmt::format("{}x{} samples exceed 2^28", width, height));
  } else {
    for (const char* key : {"truth", "seed", "noise"})
      if (attrs.count(key) && !attrs[key].empty())
        throw AttrError(key, fmt::format("{} belongs to data: synthetic, not to an SU file", key));
    const SuData data = read_su(attrs["data"]);
    if ((width || height) && (width != static_cast<int>(data.traces.size()) || height != data.ns))
      throw AttrError("sizes", fmt::format("{} holds {} traces of {} samples, the problem says {}x{}", attrs["data"],
                                           data.traces.size(), data.ns, width, height));
    if (attrs.count("dt") && !attrs["dt"].empty() && dt_us != data.dt)
      throw AttrError("dt", fmt::format("{} has dt {} microseconds, the problem says {}", attrs["data"], data.dt, dt_us));
    width = static_cast<int>(data.traces.size());
    height = data.ns;
    dt_us = data.dt;
  }
  attrs["dt"] = std::to_string(dt_us);
  const double idt = 1e6 / dt_us;
  const int tau = static_cast<int>(std::floor(ps.tau * idt + 1e-9));
  if (2 * tau + 1 > kMaxWindow)
    throw AttrError("params", fmt::format("window of {} samples exceeds {}", 2 * tau + 1, kMaxWindow));
  if (height < 2 * tau + 3)
    throw AttrError("sizes", fmt::format("traces of {} samples are shorter than the window ({} + 2)", height, 2 * tau + 1));
  return Problem{"semblance", width, height, 1, std::move(attrs)};
}

SembSpec spec_of(const Problem& p) {
  SembSpec s;
  s.data = p.attr("data");
  s.params = param_set(p.attr("params"));
  s.n = parse_five("grid", p.attr("grid"), true);
  s.traces = p.width;
  s.ns = p.height;
  s.dt_us = parse_number<int>("dt", p.attr("dt"));
  const double idt = 1e6 / s.dt_us;
  s.tau = static_cast<int>(std::floor(s.params.tau * idt + 1e-9));
  s.w = 2 * s.tau + 1;
  s.idt = static_cast<float>(idt);
  s.t0 = static_cast<float>(s.params.t0);
  s.m0 = static_cast<float>(s.params.m0);
  s.h0 = static_cast<float>(s.params.h0);
  if (s.data == "synthetic") {
    s.truth = parse_five("truth", p.attr("truth"), false);
    s.seed = parse_number<std::uint32_t>("seed", p.attr("seed"));
    s.noise = parse_number<double>("noise", p.attr("noise"));
  }
  return s;
}

std::vector<float> axes(const SembSpec& s) {
  std::vector<float> out;
  for (int d = 0; d < 5; ++d) {
    const float p0 = static_cast<float>(s.params.p0[d]), p1 = static_cast<float>(s.params.p1[d]);
    for (int i = 0; i < s.n[d]; ++i) out.push_back(p0 + (static_cast<float>(i) / static_cast<float>(s.n[d])) * (p1 - p0));
  }
  return out;
}

std::size_t output_bytes(const SembSpec& s) { return sizeof(Header) + 8 * static_cast<std::size_t>(s.points()); }

SuData problem_data(const SembSpec& s) { return s.data == "synthetic" ? synthetic_data(s) : read_su(s.data); }

std::int64_t point_index(const SembSpec& s, const std::array<int, 5>& i) {
  std::int64_t idx = 0;
  for (int d = 0; d < 5; ++d) idx = idx * s.n[d] + i[d];
  return idx;
}

std::array<int, 5> point_coords(const SembSpec& s, std::int64_t index) {
  std::array<int, 5> c{};
  for (int d = 4; d >= 0; --d) {
    c[d] = static_cast<int>(index % s.n[d]);
    index /= s.n[d];
  }
  return c;
}

double flops_per_point(const SembSpec& s) {
  return static_cast<double>(s.traces) * (12 + 8 * s.w) + 3 * s.w + 2;
}

void reference(const SembSpec& s, const float* samples, const std::int32_t* hdr, const float* ax, std::uint8_t* out,
               int threads) {
  const int ntr = s.traces, ns = s.ns, tau = s.tau, w = s.w;
  std::vector<semb_geom> geom(ntr);
  for (int i = 0; i < ntr; ++i)
    geom[i] = semb_geometry(hdr[i * SEMB_HDR_STRIDE], hdr[i * SEMB_HDR_STRIDE + 1], hdr[i * SEMB_HDR_STRIDE + 2], s.m0,
                            s.h0);
  const float* A = ax + s.axis_offset(0);
  const float* B = ax + s.axis_offset(1);
  const float* C = ax + s.axis_offset(2);
  const float* D = ax + s.axis_offset(3);
  const float* E = ax + s.axis_offset(4);
  const std::int64_t npts = s.points();
  std::vector<float> sem(npts), stk(npts);
  // One (A, B) plane of points at a time: every point on its own, so the threads' order changes nothing.
  auto plane = [&](int ia, int ib) {
    std::int64_t idx = (static_cast<std::int64_t>(ia) * s.n[1] + ib) * s.n[2] * s.n[3] * s.n[4];
    for (int ic = 0; ic < s.n[2]; ++ic)
      for (int id = 0; id < s.n[3]; ++id)
        for (int ie = 0; ie < s.n[4]; ++ie, ++idx) {
          float num[kMaxWindow] = {}, den[kMaxWindow] = {};
          float stack = 0;
          int m = 0;
          for (int i = 0; i < ntr; ++i) {
            const float q = semb_quadratic(A[ia], B[ib], C[ic], D[id], s.t0, geom[i]);
            const float x = semb_position(q, E[ie], s.idt, geom[i]);
            if (!semb_inside(x, tau, ns)) continue;
            const int it = static_cast<int>(x);
            const float* tr = samples + static_cast<std::size_t>(i) * ns;
            for (int j = 0; j < w; ++j) {
              const int k = it - tau + j;
              const float v = semb_interp_seed(tr[k], tr[k + 1], x, j, tau, k);
              num[j] += v;
              den[j] += v * v;
              stack += v;
            }
            ++m;
          }
          float sn = 0, sd = 0;
          for (int j = 0; j < w; ++j) {
            sn += num[j] * num[j];
            sd += den[j];
          }
          sem[idx] = semb_finish(sn, sd, m, ntr);
          stk[idx] = semb_stack(stack, m, w, ntr);
        }
  };
  const int planes = s.n[0] * s.n[1];
  std::atomic<int> next{0};
  auto work = [&] {
    for (int pl = next++; pl < planes; pl = next++) plane(pl / s.n[1], pl % s.n[1]);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min(threads, planes); ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  const std::int64_t best = std::max_element(sem.begin(), sem.end()) - sem.begin();
  const Header h{SEMB_TAG_GRID, static_cast<std::int32_t>(best), sem[best], stk[best]};
  std::memcpy(out, &h, sizeof h);
  std::memcpy(out + sizeof h, sem.data(), npts * 4);
  std::memcpy(out + sizeof h + npts * 4, stk.data(), npts * 4);
}

Workload SemblanceFamily::make_workload(const Problem& p) const {
  const SembSpec s = spec_of(p);
  const SuData data = problem_data(s);
  if (static_cast<int>(data.traces.size()) != s.traces || data.ns != s.ns || data.dt != s.dt_us)
    throw UsageError(fmt::format("{}: holds {} traces of {} samples at dt {}, the problem says {}x{} at dt {}", s.data,
                                 data.traces.size(), data.ns, data.dt, s.traces, s.ns, s.dt_us));
  std::vector<float> samples(static_cast<std::size_t>(s.traces) * s.ns);
  std::vector<float> geom(static_cast<std::size_t>(s.traces) * SEMB_GEOM_STRIDE, 0.0f);
  std::vector<std::int32_t> hdr(static_cast<std::size_t>(s.traces) * SEMB_HDR_STRIDE, 0);
  for (int i = 0; i < s.traces; ++i) {
    const SuTrace& t = data.traces[i];
    std::copy(t.samples.begin(), t.samples.end(), samples.begin() + static_cast<std::size_t>(i) * s.ns);
    hdr[i * SEMB_HDR_STRIDE] = t.header.scalco;
    hdr[i * SEMB_HDR_STRIDE + 1] = t.header.sy;
    hdr[i * SEMB_HDR_STRIDE + 2] = t.header.gy;
    const semb_geom g = semb_geometry(t.header.scalco, t.header.sy, t.header.gy, s.m0, s.h0);
    const float values[5] = {g.dm, g.dh, g.dm2, g.dh2, g.dmdh};
    std::copy(values, values + 5, geom.begin() + static_cast<std::size_t>(i) * SEMB_GEOM_STRIDE);
  }
  Workload w;
  w.inputs.push_back({"samples", bytes_of(samples)});
  w.inputs.push_back({"geom", bytes_of(geom)});
  w.inputs.push_back({"hdr", bytes_of(hdr)});
  w.inputs.push_back({"axes", bytes_of(axes(s))});
  w.output_bytes = output_bytes(s);
  w.scalars = {{"traces", s.traces}, {"ns", s.ns},     {"tau", s.tau},   {"w", s.w},
               {"na", s.n[0]},       {"nb", s.n[1]},   {"nc", s.n[2]},   {"nd", s.n[3]},
               {"ne", s.n[4]},       {"points", s.points()}};
  w.defines = {{"PIMG_NTR", std::to_string(s.traces)}, {"PIMG_NS", std::to_string(s.ns)},
               {"PIMG_TAU", std::to_string(s.tau)},    {"PIMG_W", std::to_string(s.w)},
               {"PIMG_NA", std::to_string(s.n[0])},    {"PIMG_NB", std::to_string(s.n[1])},
               {"PIMG_NC", std::to_string(s.n[2])},    {"PIMG_ND", std::to_string(s.n[3])},
               {"PIMG_NE", std::to_string(s.n[4])}};
  return w;
}

std::vector<std::uint8_t> SemblanceFamily::reference(const Problem& p, const Workload& w, const std::string& rule) const {
  PIMG_CHECK(rule.empty(), "semblance has no validation rule '" + rule + "'");
  const SembSpec s = spec_of(p);
  std::vector<std::uint8_t> out(w.output_bytes);
  semblance::reference(s, reinterpret_cast<const float*>(w.input("samples").bytes.data()),
                       reinterpret_cast<const std::int32_t*>(w.input("hdr").bytes.data()),
                       reinterpret_cast<const float*>(w.input("axes").bytes.data()), out.data(),
                       static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return out;
}

Validation SemblanceFamily::compare(const Problem& p, std::span<const std::uint8_t> expected,
                                    std::span<const std::uint8_t> actual) const {
  if (expected.size() != actual.size())
    return {false, fmt::format("output has {} bytes, expected {}", actual.size(), expected.size())};
  const SembSpec s = spec_of(p);
  const std::int64_t n = s.points();
  PIMG_CHECK(expected.size() == output_bytes(s), "reference output size");
  // The reference's maximum and first best point.
  std::int64_t ref_best = 0;
  for (std::int64_t i = 1; i < n; ++i)
    if (float_at(expected, i) > float_at(expected, ref_best)) ref_best = i;
  const float ref_max = float_at(expected, ref_best);

  const Header h = header_of(actual);
  std::int64_t best = 0;
  float sem = 0, stack = 0;
  if (h.tag == SEMB_TAG_GRID) {
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = float_at(actual, i), st = float_at(actual, n + i);
      if (!(v >= 0.0f && v <= 1.0f + 1e-5f) || !std::isfinite(st))
        return {false, fmt::format("point {} ({}): semblance {} / stack {} is not a semblance (unwritten?)", i,
                                   fmt::join(point_coords(s, i), ","), v, st)};
      if (v > float_at(actual, best)) best = i;
    }
    sem = float_at(actual, best);
    stack = float_at(actual, n + best);
  } else if (h.tag == SEMB_TAG_BEST) {
    if (h.best < 0 || h.best >= n) return {false, fmt::format("best index {} outside the grid of {} points", h.best, n)};
    best = h.best;
    sem = h.sem;
    stack = h.stack;
  } else {
    return {false, fmt::format("output header tag {:#010x} is neither GRID nor BEST (header not written)",
                               static_cast<std::uint32_t>(h.tag))};
  }
  const auto where = [&](std::int64_t i) { return fmt::format("({})", fmt::join(point_coords(s, i), ",")); };
  const double sem_rel = ref_max > 0 ? std::abs(static_cast<double>(sem) - ref_max) / ref_max : std::abs(sem);
  if (!(sem_rel <= 1e-5))
    return {false, fmt::format("best semblance {} at {} differs from the reference maximum {} at {} by {:.2e} relative",
                               sem, where(best), ref_max, where(ref_best), sem_rel)};
  const float ref_at = float_at(expected, best);
  if (best != ref_best && !(ref_at >= ref_max - 1e-5 * ref_max))
    return {false, fmt::format("best point {} scores {} by the reference, not a near tie of its maximum {} at {}",
                               where(best), ref_at, ref_max, where(ref_best))};
  const float ref_stack = float_at(expected, n + best);
  const double stack_diff = std::abs(static_cast<double>(stack) - ref_stack);
  if (!(stack_diff <= 1e-4 * std::abs(ref_stack) + 1e-7))
    return {false, fmt::format("stack {} at {} differs from the reference's {} by {:.2e}", stack, where(best),
                               ref_stack, stack_diff)};
  return {true, fmt::format("best {} {}semblance {:.6g} (rel {:.1e}), stack rel {:.1e}", where(best),
                            best == ref_best ? "" : "(near tie) ", sem, sem_rel,
                            ref_stack != 0 ? stack_diff / std::abs(ref_stack) : stack_diff)};
}

Traffic SemblanceFamily::traffic(const Problem& p) const {
  const SembSpec s = spec_of(p);
  const double samples = 4.0 * s.traces * s.ns, geom = 4.0 * SEMB_GEOM_STRIDE * s.traces;
  const double axes_bytes = 4.0 * (s.n[0] + s.n[1] + s.n[2] + s.n[3] + s.n[4]);
  const double out = static_cast<double>(output_bytes(s));
  return {samples + geom + axes_bytes + out, flops_per_point(s) * s.points(), out};
}

double SemblanceFamily::work(const Problem& p) const {
  const SembSpec s = spec_of(p);
  return flops_per_point(s) * static_cast<double>(s.points()) / 1e3;
}

}  // namespace pimg::semblance
