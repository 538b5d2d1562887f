// Output pictures (issue 21, item 5): a family's input and output bytes as PNG files, the difference of a
// failed output against the reference, thumbnails, and the manifest the tuner writes beside a report
// (pictures.tsv) that the report reads to show them.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pimg/family.hpp"
#include "pimg/image_io.hpp"

namespace pimg {

// `bytes` (at least width x height x channels of them) laid out as `shape` says, as an interleaved image
// (B, G, R reordered to R, G, B). Throws std::invalid_argument for too few bytes or channels not 1, 3, 4.
Image to_picture(const PictureShape& shape, std::span<const std::uint8_t> bytes);

// The difference of `actual` against `expected` (both of `shape`): every pixel whose bytes all agree in
// grey at a third of its brightness, every pixel that differs in red, 96 + the largest byte difference
// (up to 255); `differing` is set to how many pixels differ.
Image difference_picture(const PictureShape& shape, std::span<const std::uint8_t> expected,
                         std::span<const std::uint8_t> actual, std::size_t* differing = nullptr);

// A copy no larger than `max_side` on either side (box average over whole source pixels); the image itself
// when it is that small already.
Image thumbnail(const Image& img, int max_side);

// Writes a PNG (Debian's stb_image_write). Throws std::runtime_error naming the file when it cannot.
void write_png(const std::string& path, const Image& img);

// One picture beside a report: its device and problem, what it shows (kind: "input", "best", "wrong",
// "difference"), the configuration it came from, the PNG and its thumbnail (paths relative to the
// manifest's directory) and a note ("exact", "1234 of 4096 pixels differ").
struct PictureEntry {
  std::string family, device, problem, kind, variant, config, file, thumb, note;
};

// The manifest `pictures.tsv`: one tab-separated line per entry, in the fields' order, after a header line.
std::string pictures_manifest(const std::vector<PictureEntry>& entries);
// Parses a manifest; lines that do not have every field are skipped.
std::vector<PictureEntry> parse_pictures_manifest(const std::string& text);

}  // namespace pimg
