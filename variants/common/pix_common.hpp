// Shared by the pixel-rearranging families (bgr2rgba, flip, maxpool): the image input every one of them
// reads (seeded random bytes or an image file, in the problem's layout), the GPU kernels' block parameters,
// and the OpenMP knobs (threads, schedule, chunk, tiles) their compiled host kernels take as defines. The
// other families use the parts that are the same for them: attribute parsing and the exact comparison.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/family_contract.hpp"
#include "common/portable_target.hpp"
#include "pimg/family.hpp"
#include "pimg/variant.hpp"

namespace pimg::pix {

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
inline std::size_t round_up(std::size_t v, std::size_t m) { return ceil_div(v, m) * m; }

// The attributes every one of these families takes: input (random or an image path) and seed.
std::vector<AttrSpec> input_attributes();
// Fills the defaults of `specs` into attrs, checks the seed, and takes width and height from the
// image file when input is a path. Throws AttrError naming the key.
void complete_input_attrs(const std::vector<AttrSpec>& specs, std::map<std::string, std::string>& attrs, int& width,
                          int& height);
// layout (interleaved or planar) for 1- or 3-channel images; with one channel the layouts coincide and
// the attribute is set to interleaved. Throws AttrError for other channel counts.
AttrSpec layout_attribute();
bool complete_layout(std::map<std::string, std::string>& attrs, int channels);  // true when planar

// Planes of a 1- or 3-channel problem with a layout attribute (channels when planar, else 1) and bytes
// per pixel within a plane (1 when planar, else channels).
int planes_of(const Problem& p);
int samples_of(const Problem& p);
// A host function's plan: buffers in, out; ints width, height, planes, samples per pixel.
LaunchPlan layout_host_plan(const std::string& entry, const Problem& p);

// A family of 1- or 3-channel images, interleaved or planar, whose output is an out_width x out_height
// image of the same channels and layout computed by a serial function (flip, maxpool): attributes
// layout, input, seed; input, reference and exact comparison written once.
using LayoutReference = void (*)(const std::uint8_t* in, std::uint8_t* out, int width, int height, int planes,
                                 int samples);
class LayoutFamily : public Family {
 public:
  LayoutFamily(std::string name, LayoutReference ref, int shrink, int min_size)
      : name_(std::move(name)), ref_(ref), shrink_(shrink), min_size_(min_size) {}
  std::string name() const override { return name_; }
  PIMG_FAMILY_CONTRACT;
  double work(const Problem& p) const override;  // output pixels
  std::optional<PictureShapes> pictures(const Problem& p) const override;

 protected:
  // Output = input / shrink(p) (rounded down); the family's constant unless a subclass reads the problem.
  virtual int shrink(const Problem& p) const {
    (void)p;
    return shrink_;
  }
  int out_width(const Problem& p) const { return p.width / shrink(p); }
  int out_height(const Problem& p) const { return p.height / shrink(p); }

 private:
  std::string name_;
  LayoutReference ref_;
  int shrink_;    // output = input / shrink (rounded down)
  int min_size_;  // smallest width and height (at least shrink(p) too)
};

// Refuses sizes that are not positive or whose `bytes_per_pixel` image exceeds 2^31 - 1 bytes.
void check_size(int width, int height, int bytes_per_pixel);
// The integer `text` of attribute `key`: AttrError when it is not one, or is outside lo..hi.
int parse_int_attr(const std::string& key, const std::string& text, int lo = std::numeric_limits<int>::min(),
                   int hi = std::numeric_limits<int>::max());
// conv's and rotate's input attributes: seed an integer (parse_int_attr), width and height those of the
// image file when input names one, and positive (AttrError "sizes").
void complete_image_size(std::map<std::string, std::string>& attrs, int& width, int& height);

// `out` filled with seeded uniform bytes: byte i is byte i % 8 (least significant first) of the (i / 8)-th
// output of std::mt19937_64 seeded with `seed`. The standard fixes that engine's outputs (not those of
// std::uniform_int_distribution, which differ between standard libraries), so the bytes are the same with
// every compiler; one draw gives eight bytes (an 8192x8192x3 input in 0.34-0.47 s on the 2-core machine, where a
// distribution draw a byte took 2.3-2.7 s: bench/results/2026-12-01-ci-test-opt/random-bytes.cpp), and a shorter fill is a prefix of a longer one.
void random_bytes(std::span<std::uint8_t> out, std::uint64_t seed);

// width x height x channels bytes: the seeded random bytes (random_bytes) or the problem's
// image file decoded to `channels`, laid out interleaved or planar. `images` > 1: that many images one
// after another, the random ones from the one stream (the first is the single image's), the file in each.
std::vector<std::uint8_t> image_input(const Problem& p, int channels, bool planar, int images = 1);

// What every exact comparison starts with: a verdict when the sizes differ or every byte agrees; else nullopt,
// with `bad` the number of differing bytes and `first` the index of the first, for the caller to locate.
std::optional<Validation> exact_verdict(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual,
                                        std::size_t& bad, std::size_t& first);
// Exact comparison of an output image of `channels` bytes per pixel, `width` pixels per row, interleaved
// or planar; a mismatch is located as x, y, c of the first differing byte.
Validation compare_image(std::span<const std::uint8_t> expected, std::span<const std::uint8_t> actual, int width,
                         int height, int channels, bool planar);

// OpenMP: threads, schedule, chunk (and tile_x, tile_y when `tiles`).
std::vector<ParamDecl> omp_params(bool tiles);
// A plan for `entry` with the workload's defines, then DECOMP (0 rows, 1 tiles), SCHED, CHUNK, THREADS
// (and TILE_X, TILE_Y) from the knobs; PlanError out of range.
LaunchPlan omp_plan(const std::string& entry, const PlanContext& x, bool tiles);

// GPU kernels (common/pix_portable.h, OpenCL and CUDA alike): block_x and block_y declarations.
std::vector<ParamDecl> block_params(int def_x, int def_y);
// (PlanContext::gpu_plan reads them.)
// A portable formulation's name on one target: its prefix, '_', stem (cl_tree, cuda_tree).
std::string gpu_name(const PortableTarget& gpu, const std::string& stem);

}  // namespace pimg::pix
