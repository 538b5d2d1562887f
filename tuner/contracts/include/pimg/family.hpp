// The family contract (CLBlast-style): a kernel family is described once — its problem attributes,
// seeded input, serial CPU reference, comparison rule, minimum traffic and the unit users read —
// and every variant, backend, test and report is a driver over that one description.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pimg/problem.hpp"

namespace pimg {

// A named host buffer handed to variants (the image, filter weights, lookup tables, ...).
// `rewritten`: the kernels write it in place (an argument that is read and updated), so each configuration gets
// its own device copy, uploaded again before every run, instead of one copy shared by the configurations.
struct HostBuffer {
  std::string name;
  std::vector<std::uint8_t> bytes;
  bool rewritten = false;
};

// Everything one problem needs on the host: inputs, the size of the output, and the problem's own
// scalars and compile-time defines that every variant of the family may use.
// `output_initial`: what the output holds before each run, for kernels that read and update their output
// (output_bytes of them); empty, the output is poisoned before each run, so an element never written shows.
struct Workload {
  std::vector<HostBuffer> inputs;
  std::size_t output_bytes = 0;
  std::vector<std::uint8_t> output_initial;
  std::map<std::string, std::int64_t> scalars;      // width, height, out_width, ...
  std::map<std::string, std::string> defines;       // PIMG_K=3, PIMG_CHANNELS=1, ...
  const HostBuffer& input(const std::string& name) const;  // throws naming the buffer
};

// The minimum a correct implementation must move and compute, for GB/s and % of bandwidth.
struct Traffic {
  double bytes = 0;  // each input element read once, each output element written once
  double ops = 0;    // arithmetic operations (multiply-adds count as two)
  // Of `bytes`, those written (the rest are read), where the family says: a kernel that writes next to nothing
  // (a histogram, a reduction) is compared with the read ceiling, the others, and one with no split, with the
  // copy's (docs/measurement.md, "The bandwidth ceiling").
  std::optional<double> written;
  double read() const { return written ? bytes - *written : bytes / 2; }
  // Writes at most 1/64 of what it reads: its floor is reading its input once (its writes cost at most ~1.5% more).
  bool mostly_read() const { return written && *written * 64 <= read(); }
};

struct Validation {
  bool ok = false;
  std::string detail;  // "exact" or where and by how much the first mismatch differs
};

// How a family's input ("in" buffer) or output bytes are seen as a picture (docs/families.md, "Output
// pictures"): width x height pixels of `channels` bytes, interleaved or planar; `bgr`: 3 channels stored
// B, G, R (shown as R, G, B).
struct PictureShape {
  int width = 0, height = 0, channels = 0;
  bool planar = false, bgr = false;
};
struct PictureShapes {
  PictureShape input, output;
};

// One accepted problem attribute: its name, allowed values (empty: free-form) and default.
struct AttrSpec {
  std::string name;
  std::vector<std::string> allowed;
  std::string default_value;
  std::string help;
};

class Family {
 public:
  virtual ~Family() = default;
  virtual std::string name() const = 0;
  virtual std::string unit() const { return "MPix/s"; }
  virtual std::vector<AttrSpec> attributes() const = 0;

  // Validates and completes the attributes (defaults filled in). Throws AttrError naming the key.
  virtual Problem make_problem(int width, int height, int channels,
                               std::map<std::string, std::string> attrs) const = 0;
  // Seeded input (never all zeros) or the image file the problem names. Throws UsageError for
  // unreadable files.
  virtual Workload make_workload(const Problem& p) const = 0;
  // The reference output. `rule` names another documented rounding rule of the family that a
  // library baseline follows (e.g. conv's "truncate" for NPP); empty means the family's own rule.
  virtual std::vector<std::uint8_t> reference(const Problem& p, const Workload& w,
                                              const std::string& rule = "") const = 0;
  virtual Validation compare(const Problem& p, std::span<const std::uint8_t> expected,
                             std::span<const std::uint8_t> actual) const = 0;
  // Validation of a library baseline that follows `rule` (non-empty): by default the plain comparison with
  // that rule's reference. A family may accept there what the rule documents as the library's own freedom
  // (rotate's "npp": picks on a rounding tie), with the input at hand to check the alternatives exactly.
  virtual Validation compare_rule(const Problem& p, const Workload& w, std::span<const std::uint8_t> expected,
                                  std::span<const std::uint8_t> actual, const std::string& rule) const {
    (void)w;
    (void)rule;
    return compare(p, expected, actual);
  }
  // The version of the family's reference and comparison (for `rule`): part of every stored row's
  // identity, so a change to either makes earlier rows of the family older. Bump it with such a change.
  virtual std::string reference_version(const std::string& /*rule*/) const { return "1"; }
  virtual Traffic traffic(const Problem& p) const = 0;
  // The input and output as pictures; nullopt for a family whose output is not an image (hist, semblance).
  virtual std::optional<PictureShapes> pictures(const Problem& p) const {
    (void)p;
    return std::nullopt;
  }
  // Work items in the user's unit (pixels of output for MPix/s).
  virtual double work(const Problem& p) const = 0;
};

}  // namespace pimg
