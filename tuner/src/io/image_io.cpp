// Image decoding through Debian's stb (libstb), with errors that name the file, and our own check
// that the formats stb reads past their end (PNM, BMP, JPEG) are complete and PNG chunks intact.
#include "pimg/image_io.hpp"

#include <fmt/format.h>
#include <stb/stb_image.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <tuple>

#include "pimg/errors.hpp"

#include <jpeglib.h>  // after <cstdio>: it uses FILE

namespace pimg {
namespace {

constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{1} << 30;

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw UsageError(fmt::format("{}: no such image file", path));
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw UsageError(fmt::format("{}: cannot read image file ({})", path, ec.message()));
  if (size == 0) throw UsageError(fmt::format("{}: empty image file", path));
  if (size > kMaxFileBytes)
    throw UsageError(fmt::format("{}: image file of {} bytes is too large (at most {})", path, size, kMaxFileBytes));
  std::vector<std::uint8_t> bytes(size);
  std::ifstream in(path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw UsageError(fmt::format("{}: cannot read image file", path));
  return bytes;
}

// Binary PNM (P5 grey, P6 RGB): header "Pn W H MAX" with comments, one whitespace, then the pixels.
struct PnmHeader {
  std::int64_t width = 0, height = 0, max = 0;
  int channels = 0;
  std::size_t pixels_at = 0;  // first byte of the pixel data
};

// The header of a binary PNM whose pixel data is complete, or nothing when `b` is not a binary PNM.
std::optional<PnmHeader> check_pnm(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 2 || b[0] != 'P' || (b[1] != '5' && b[1] != '6')) return std::nullopt;
  std::size_t i = 2;
  std::int64_t fields[3] = {0, 0, 0};
  for (auto& f : fields) {
    for (;;) {
      while (i < b.size() && std::isspace(b[i])) ++i;
      if (i < b.size() && b[i] == '#') {
        while (i < b.size() && b[i] != '\n') ++i;
        continue;
      }
      break;
    }
    if (i >= b.size() || !std::isdigit(b[i])) throw UsageError(fmt::format("{}: PNM header is incomplete", label));
    while (i < b.size() && std::isdigit(b[i])) {
      f = f * 10 + (b[i++] - '0');
      if (f > (std::int64_t{1} << 31)) throw UsageError(fmt::format("{}: PNM header value too large", label));
    }
  }
  ++i;  // the single whitespace before the pixels
  const auto [w, h, max] = std::tuple(fields[0], fields[1], fields[2]);
  if (w == 0 || h == 0) throw UsageError(fmt::format("{}: image has zero size ({}x{})", label, w, h));
  if (max == 0 || max > 65535) throw UsageError(fmt::format("{}: PNM maximum value {} is not in 1..65535", label, max));
  if (w * h > kMaxImagePixels)  // each at most 2^31, so the product fits
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  const int channels = b[1] == '6' ? 3 : 1;
  const std::int64_t need = w * h * channels * (max > 255 ? 2 : 1);
  const std::int64_t have = static_cast<std::int64_t>(b.size()) - static_cast<std::int64_t>(i);
  if (have < need)
    throw UsageError(fmt::format("{}: truncated PNM: {}x{} needs {} bytes of pixels, the file has {}", label, w, h,
                                 need, have < 0 ? 0 : have));
  return PnmHeader{w, h, max, channels, i};
}

// A PNM of two bytes per sample (maximum value above 255), which stb 2.27 reads wrongly: it keeps the high
// byte whatever the maximum, and converting the channel count overruns its buffer (a fuzzing finding).
// Samples are big-endian and scaled to 0..255 by the maximum value, as the Netpbm format defines them;
// grey becomes RGB by copying, RGB becomes grey by stb's own weights.
Image decode_pnm16(std::span<const std::uint8_t> b, const PnmHeader& pnm, int channels) {
  const auto w = static_cast<int>(pnm.width), h = static_cast<int>(pnm.height);
  const std::size_t n = static_cast<std::size_t>(w) * h;
  Image img{w, h, channels, std::vector<std::uint8_t>(n * channels)};
  auto sample = [&](std::size_t k) {  // k-th sample of the file, scaled to 0..255
    const std::uint32_t v = std::min<std::uint32_t>(
        static_cast<std::uint32_t>(b[pnm.pixels_at + 2 * k]) << 8 | b[pnm.pixels_at + 2 * k + 1],
        static_cast<std::uint32_t>(pnm.max));
    return static_cast<std::uint8_t>((v * 255 + pnm.max / 2) / pnm.max);
  };
  for (std::size_t p = 0; p < n; ++p) {
    if (pnm.channels == channels) {
      for (int c = 0; c < channels; ++c) img.pixels[p * channels + c] = sample(p * channels + c);
    } else if (pnm.channels == 1) {
      std::fill_n(&img.pixels[p * channels], channels, sample(p));
    } else {
      img.pixels[p] = static_cast<std::uint8_t>((sample(3 * p) * 77 + sample(3 * p + 1) * 150 + sample(3 * p + 2) * 29) >> 8);
    }
  }
  return img;
}

std::uint32_t le32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

// Uncompressed BMP: the pixel rows (padded to 4 bytes) must lie within the file.
void check_bmp(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 2 || b[0] != 'B' || b[1] != 'M') return;
  if (b.size() < 34) throw UsageError(fmt::format("{}: truncated BMP header", label));
  const std::uint32_t offset = le32(b, 10), compression = le32(b, 30);
  const auto width = static_cast<std::int32_t>(le32(b, 18)), height = static_cast<std::int32_t>(le32(b, 22));
  const std::uint32_t bpp = static_cast<std::uint32_t>(b[28]) | static_cast<std::uint32_t>(b[29]) << 8;
  if (width == 0 || height == 0) throw UsageError(fmt::format("{}: image has zero size ({}x{})", label, width, height));
  const std::int64_t w = width < 0 ? -static_cast<std::int64_t>(width) : width;
  const std::int64_t h = height < 0 ? -static_cast<std::int64_t>(height) : height;
  if (w * h > kMaxImagePixels)
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  // stb refuses run-length BMP (1, 2) itself but decodes every other unknown code as uncompressed pixels,
  // reading zeros past the end: 65 bytes claiming 2097216x48 pixels kept it busy for seconds (fuzzing).
  if (compression == 1 || compression == 2)
    throw UsageError(fmt::format("{}: run-length compressed BMP is not supported", label));
  if (compression != 0 && compression != 3)
    throw UsageError(fmt::format("{}: BMP compression {} is not supported (only uncompressed or bit fields)", label,
                                 compression));
  const std::int64_t row = (w * bpp + 31) / 32 * 4;
  if (static_cast<std::int64_t>(offset) + row * h > static_cast<std::int64_t>(b.size()))
    throw UsageError(fmt::format("{}: truncated BMP: {}x{} at {} bits needs {} bytes, the file has {}", label, w, h,
                                 bpp, static_cast<std::int64_t>(offset) + row * h, b.size()));
}

// libjpeg's verdict on a whole decode: corrupt or missing entropy-coded data is a warning there
// (stb fills it with grey and says nothing), and every warning refuses the file.
struct JpegCheck {
  jpeg_error_mgr err{};
  std::jmp_buf fatal{};
  std::string first;
};

extern "C" void jpeg_fatal(j_common_ptr c) {
  auto* check = reinterpret_cast<JpegCheck*>(c->client_data);
  char text[JMSG_LENGTH_MAX] = {};
  c->err->format_message(c, text);
  if (check->first.empty()) check->first = text;
  std::longjmp(check->fatal, 1);
}

extern "C" void jpeg_warning(j_common_ptr c, int level) {
  auto* check = reinterpret_cast<JpegCheck*>(c->client_data);
  if (level >= 0 || !check->first.empty()) return;  // trace messages; only the first warning is kept
  char text[JMSG_LENGTH_MAX] = {};
  c->err->format_message(c, text);
  check->first = text;
}

// Decodes with libjpeg (no state but `check` and `info`, owned by the caller, crosses the longjmp);
// the first warning or error, or nothing.
std::string libjpeg_complaint(std::span<const std::uint8_t> b, JpegCheck& check, jpeg_decompress_struct& info) {
  info.err = jpeg_std_error(&check.err);
  check.err.error_exit = jpeg_fatal;
  check.err.emit_message = jpeg_warning;
  info.client_data = &check;
  if (setjmp(check.fatal)) {
    jpeg_destroy_decompress(&info);
    return check.first;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, b.data(), static_cast<unsigned long>(b.size()));
  jpeg_read_header(&info, TRUE);
  if (static_cast<std::int64_t>(info.image_width) * info.image_height > kMaxImagePixels) {
    jpeg_destroy_decompress(&info);
    return "";  // refused with its size below
  }
  jpeg_start_decompress(&info);
  // The row lives in libjpeg's pool, so a longjmp out of the decoder leaks nothing.
  JSAMPARRAY rows = (*info.mem->alloc_sarray)(reinterpret_cast<j_common_ptr>(&info), JPOOL_IMAGE,
                                              info.output_width * static_cast<JDIMENSION>(info.output_components), 1);
  while (info.output_scanline < info.output_height && check.first.empty()) jpeg_read_scanlines(&info, rows, 1);
  if (check.first.empty()) jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return check.first;
}

// JPEG: stb fills a truncated scan with grey. A complete file has its end-of-image marker, and its
// scan data decodes without a warning (an end marker appended to a cut file does not pass).
void check_jpeg(std::span<const std::uint8_t> b, const std::string& label) {
  if (b.size() < 3 || b[0] != 0xFF || b[1] != 0xD8 || b[2] != 0xFF) return;
  bool end_marker = false;
  for (std::size_t i = b.size() - 1; i > 2 && i + 4096 > b.size() && !end_marker; --i)
    end_marker = b[i - 1] == 0xFF && b[i] == 0xD9;
  if (!end_marker) throw UsageError(fmt::format("{}: truncated JPEG (no end-of-image marker)", label));
  JpegCheck check;
  jpeg_decompress_struct info{};
  const std::string complaint = libjpeg_complaint(b, check, info);
  if (!complaint.empty()) throw UsageError(fmt::format("{}: corrupt or truncated JPEG ({})", label, complaint));
}

std::uint32_t be32(std::span<const std::uint8_t> b, std::size_t at) {
  return static_cast<std::uint32_t>(b[at]) << 24 | static_cast<std::uint32_t>(b[at + 1]) << 16 |
         static_cast<std::uint32_t>(b[at + 2]) << 8 | static_cast<std::uint32_t>(b[at + 3]);
}

std::uint32_t crc32(std::span<const std::uint8_t> b) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const std::uint8_t x : b) c = table[(c ^ x) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// PNG: stb checks neither the chunks' CRCs nor that the file ends, and fills what corrupt or missing
// compressed data leaves undecoded; every chunk's CRC must match and IEND must be present.
void check_png(std::span<const std::uint8_t> b, const std::string& label) {
  static constexpr std::uint8_t kSig[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (b.size() < 8 || !std::equal(std::begin(kSig), std::end(kSig), b.begin())) return;
  for (std::size_t at = 8;;) {
    if (b.size() - at < 12) throw UsageError(fmt::format("{}: truncated PNG (no IEND chunk)", label));
    const std::uint32_t length = be32(b, at);
    if (length > b.size() - at - 12) throw UsageError(fmt::format("{}: truncated PNG (a chunk runs past the end)", label));
    const auto chunk = b.subspan(at + 4, 4 + std::size_t{length});
    if (crc32(chunk) != be32(b, at + 8 + length))
      throw UsageError(fmt::format("{}: corrupt PNG (CRC mismatch in chunk {} at byte {})", label,
                                   std::string(chunk.begin(), chunk.begin() + 4), at));
    if (std::equal(chunk.begin(), chunk.begin() + 4, "IEND")) return;
    at += 12 + std::size_t{length};
  }
}

// Only formats that announce themselves: stb also guesses TGA (no signature), where a few bytes can
// claim millions of run-length pixels and keep the decoder busy for seconds (found by fuzzing).
void check_signature(std::span<const std::uint8_t> b, const std::string& label) {
  auto starts = [&](std::initializer_list<std::uint8_t> sig) {
    return b.size() >= sig.size() && std::equal(sig.begin(), sig.end(), b.begin());
  };
  const bool png = starts({0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'});
  const bool jpeg = starts({0xFF, 0xD8, 0xFF});
  const bool bmp = starts({'B', 'M'});
  const bool gif = starts({'G', 'I', 'F', '8'});
  const bool pnm = b.size() >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6');
  if (!(png || jpeg || bmp || gif || pnm))
    throw UsageError(fmt::format("{}: not a PNG, JPEG, BMP, GIF or binary PGM/PPM image (unrecognised signature)", label));
}

}  // namespace

Image decode_image(std::span<const std::uint8_t> bytes, const std::string& label, int channels) {
  if (bytes.empty()) throw UsageError(fmt::format("{}: empty image file", label));
  check_signature(bytes, label);
  const std::optional<PnmHeader> pnm = check_pnm(bytes, label);
  if (pnm && pnm->max > 255) return decode_pnm16(bytes, *pnm, channels);
  check_png(bytes, label);
  check_bmp(bytes, label);
  check_jpeg(bytes, label);
  const int len = static_cast<int>(std::min<std::size_t>(bytes.size(), INT32_MAX));
  int w = 0, h = 0, c = 0;
  if (!stbi_info_from_memory(bytes.data(), len, &w, &h, &c))
    throw UsageError(fmt::format("{}: not a readable image ({})", label, stbi_failure_reason()));
  if (w <= 0 || h <= 0) throw UsageError(fmt::format("{}: image has zero size", label));
  if (static_cast<std::int64_t>(w) * h > kMaxImagePixels)
    throw UsageError(fmt::format("{}: image of {}x{} pixels is larger than the {} accepted", label, w, h,
                                 kMaxImagePixels));
  unsigned char* data = stbi_load_from_memory(bytes.data(), len, &w, &h, &c, channels);
  if (!data) throw UsageError(fmt::format("{}: cannot decode image ({})", label, stbi_failure_reason()));
  Image img{w, h, channels, std::vector<std::uint8_t>(data, data + static_cast<std::size_t>(w) * h * channels)};
  stbi_image_free(data);
  return img;
}

std::pair<int, int> image_size(const std::string& path) {
  const Image img = decode_image(read_file(path), path, 1);
  return {img.width, img.height};
}

Image load_image(const std::string& path, int channels) { return decode_image(read_file(path), path, channels); }

}  // namespace pimg
