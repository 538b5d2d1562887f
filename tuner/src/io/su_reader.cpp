// The SU reader and writer (see pimg/su.hpp): fixed little-endian layout, checked before use.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "pimg/errors.hpp"
#include "pimg/su.hpp"

namespace pimg {
namespace {

static_assert(std::endian::native == std::endian::little, "the SU reader assumes a little-endian host");

constexpr std::size_t kScalco = 70, kSx = 72, kSy = 76, kGx = 80, kGy = 84, kNs = 114, kDt = 116;

template <class T>
T get(const std::uint8_t* p, std::size_t offset) {
  T v;
  std::memcpy(&v, p + offset, sizeof v);
  return v;
}

template <class T>
void put(std::uint8_t* p, std::size_t offset, T v) {
  std::memcpy(p + offset, &v, sizeof v);
}

}  // namespace

double su_scaled(std::int32_t coordinate, std::int16_t scalco) {
  if (scalco > 0) return static_cast<double>(coordinate) * scalco;
  if (scalco < 0) return static_cast<double>(coordinate) / -static_cast<double>(scalco);
  return coordinate;
}

SuData parse_su(std::span<const std::uint8_t> bytes, const std::string& label) {
  if (bytes.empty()) throw UsageError(fmt::format("{}: empty SU file (no trace header)", label));
  SuData out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t index = out.traces.size();
    if (bytes.size() - pos < kSuHeaderBytes)
      throw UsageError(fmt::format("{}: trace {} (byte {}): truncated header, {} of {} bytes", label, index, pos,
                                   bytes.size() - pos, kSuHeaderBytes));
    const std::uint8_t* h = bytes.data() + pos;
    SuTrace t;
    t.header.scalco = get<std::int16_t>(h, kScalco);
    t.header.sx = get<std::int32_t>(h, kSx);
    t.header.sy = get<std::int32_t>(h, kSy);
    t.header.gx = get<std::int32_t>(h, kGx);
    t.header.gy = get<std::int32_t>(h, kGy);
    t.header.ns = get<std::uint16_t>(h, kNs);
    t.header.dt = get<std::uint16_t>(h, kDt);
    if (index == 0) {
      if (t.header.ns == 0) throw UsageError(fmt::format("{}: trace 0 (byte 0): ns is 0", label));
      if (t.header.dt == 0) throw UsageError(fmt::format("{}: trace 0 (byte 0): dt is 0", label));
      out.ns = t.header.ns;
      out.dt = t.header.dt;
    } else if (t.header.ns != out.ns) {
      throw UsageError(fmt::format("{}: trace {} (byte {}): inconsistent ns {} (trace 0 has {})", label, index, pos,
                                   t.header.ns, out.ns));
    } else if (t.header.dt != out.dt) {
      throw UsageError(fmt::format("{}: trace {} (byte {}): inconsistent dt {} (trace 0 has {})", label, index, pos,
                                   t.header.dt, out.dt));
    }
    const std::size_t sample_bytes = std::size_t{out.ns} * 4;
    pos += kSuHeaderBytes;
    if (bytes.size() - pos < sample_bytes)
      throw UsageError(fmt::format("{}: trace {} (byte {}): truncated samples, {} of {} bytes ({} samples)", label,
                                   index, pos, bytes.size() - pos, sample_bytes, out.ns));
    t.samples.resize(out.ns);
    std::memcpy(t.samples.data(), bytes.data() + pos, sample_bytes);
    for (std::size_t i = 0; i < t.samples.size(); ++i)
      if (!std::isfinite(t.samples[i]))
        throw UsageError(fmt::format("{}: trace {} sample {}: not a finite number", label, index, i));
    pos += sample_bytes;
    out.traces.push_back(std::move(t));
  }
  return out;
}

SuData read_su(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot open SU file", path));
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw UsageError(fmt::format("{}: read error", path));
  return parse_su(bytes, path);
}

std::vector<std::uint8_t> encode_su(const SuData& data) {
  std::vector<std::uint8_t> out;
  for (const SuTrace& t : data.traces) {
    const std::size_t pos = out.size();
    out.resize(pos + kSuHeaderBytes + t.samples.size() * 4);
    std::uint8_t* h = out.data() + pos;
    put(h, kScalco, t.header.scalco);
    put(h, kSx, t.header.sx);
    put(h, kSy, t.header.sy);
    put(h, kGx, t.header.gx);
    put(h, kGy, t.header.gy);
    put(h, kNs, t.header.ns);
    put(h, kDt, t.header.dt);
    std::memcpy(h + kSuHeaderBytes, t.samples.data(), t.samples.size() * 4);
  }
  return out;
}

}  // namespace pimg
