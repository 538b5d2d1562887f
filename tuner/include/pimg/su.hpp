// Seismic Unix (SU) files: 240-byte trace headers, each followed by ns little-endian IEEE float32
// samples. The reader checks the whole file (empty, truncated, inconsistent ns) before returning and
// applies scalco by the SEG-Y convention (> 0 multiply, < 0 divide by |scalco|, 0 means 1).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pimg {

// The header fields pimg-tune uses (byte offsets of the SEG-Y trace header).
struct SuHeader {
  std::int16_t scalco = 1;        // byte 70: coordinate scale
  std::int32_t sx = 0, sy = 0;    // bytes 72, 76: source coordinates
  std::int32_t gx = 0, gy = 0;    // bytes 80, 84: receiver coordinates
  std::uint16_t ns = 0;           // byte 114: samples in this trace
  std::uint16_t dt = 0;           // byte 116: sample interval in microseconds
};

struct SuTrace {
  SuHeader header;
  std::vector<float> samples;
};

struct SuData {
  std::uint16_t ns = 0;  // samples per trace (every trace has the same)
  std::uint16_t dt = 0;  // microseconds (every trace has the same)
  std::vector<SuTrace> traces;
};

inline constexpr std::size_t kSuHeaderBytes = 240;

// A coordinate with scalco applied (SEG-Y: positive multiplies, negative divides by its magnitude).
double su_scaled(std::int32_t coordinate, std::int16_t scalco);

// Parses SU bytes; `label` names them in messages. Throws UsageError ("FILE: trace N (byte B): ...")
// for an empty input, a truncated header or trace, ns == 0, ns or dt differing from the first trace,
// a zero dt, or samples that are not finite.
SuData parse_su(std::span<const std::uint8_t> bytes, const std::string& label);
// Reads and parses a file. Throws UsageError naming the file.
SuData read_su(const std::string& path);
// The inverse of parse_su (headers hold only the fields above; the rest is zero).
std::vector<std::uint8_t> encode_su(const SuData& data);

}  // namespace pimg
