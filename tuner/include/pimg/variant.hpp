// A variant: one kernel source of one family on one backend, with the parameters it understands.
// plan() turns a configuration into defines, geometry and arguments; it never runs anything.
// Adding a variant is one file under variants/<family>/ plus one line in its register file; most are a
// VariantSpec, a row of data.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pimg/backend.hpp"
#include "pimg/config.hpp"
#include "pimg/family.hpp"
#include "pimg/plan_context.hpp"

namespace pimg {

struct ParamDecl {
  std::string name;
  bool is_text = false;              // enum-like string parameter
  std::vector<std::string> choices;  // allowed values of a text parameter
  Value default_value;               // used when the space file leaves the parameter out
  std::string help;
  // Integer parameters: the values plan() can run, declared once and checked when a space file is
  // loaded (a value outside them is a bad space, exit code 2, not a row of launch errors).
  std::vector<std::int64_t> allowed = {};  // empty: any value within min..max
  std::optional<std::int64_t> min = {}, max = {};
};

// Why `value` is not a value of the integer parameter `d` (nullopt when it is).
std::optional<std::string> param_value_error(const ParamDecl& d, std::int64_t value);

// What `d` takes, for listings: its choices or values joined by '|', "lo..hi", or "integer".
std::string param_values_text(const ParamDecl& d);

// Declarations: an integer within lo..hi, an integer that is one of `values`, a text choice.
ParamDecl int_range(std::string name, std::int64_t def, std::string help, std::int64_t lo, std::int64_t hi);
ParamDecl int_choice(std::string name, std::int64_t def, std::string help, std::vector<std::int64_t> values);
ParamDecl text_choice(std::string name, std::vector<std::string> choices, std::string def, std::string help);

// The value of the integer (text) parameter `name` in `c`, its declared default when `c` leaves it out,
// checked against its declaration in `decls`: a PlanError names a value outside it (configurations made
// in code do not pass the space loader's check), a parameter not declared, or a value of the wrong kind.
std::int64_t int_value(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);
std::string text_value(const Config& c, const std::vector<ParamDecl>& decls, const std::string& name);

// Thrown by plan() for a configuration that cannot run on this problem or device (stored as
// launch_error, not a crash of the tool).
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by plan() when the device lacks something every configuration of the variant needs (the
// GPUs behind an MPI variant's ranks): the runner skips the variant on that device, saying why,
// instead of refusing the space as it refuses a variant whose own configurations fit nothing.
class DeviceLacks : public PlanError {
 public:
  using PlanError::PlanError;
};

class Variant {
 public:
  virtual ~Variant() = default;
  virtual std::string name() const = 0;     // unique within the family, e.g. "cl_tiled"
  virtual std::string family() const = 0;   // "conv"
  virtual std::string backend() const = 0;  // the registered name of the backend that runs it
  virtual std::string source() const = 0;   // path under kernels/ (or a user's file); empty for a native call
  // The backend's native function this variant runs instead of a kernel (a library baseline, the serial
  // reference); nullopt for kernels.
  virtual std::optional<NativeCall> native() const { return std::nullopt; }
  virtual std::string help() const = 0;
  virtual std::vector<ParamDecl> parameters() const = 0;
  virtual LaunchPlan plan(const PlanContext& x) const = 0;
  // The family rule this variant is validated against: empty for the family's own; a library with
  // a documented rule of its own names it (see Family::reference) and the report says so.
  virtual std::string validation_rule() const { return ""; }
  // A baseline (the serial reference, or a library such as OpenCV or NPP) rather than a tuned kernel.
  virtual bool baseline() const { return false; }
};

// What `v` runs, for listings: its kernel path, or "native:<name>" for a native call.
inline std::string source_label(const Variant& v) {
  const auto call = v.native();
  return call ? "native:" + call->name : v.source();
}

// v.plan() on a context of the four parts and v's own parameters().
LaunchPlan plan_for(const Variant& v, const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d);

// A variant declared as data: its identity, its work (a kernel path under kernels/, or a native call of its
// backend), its parameters and its plan function. make_variant() makes the Variant that answers from it.
struct VariantSource {
  VariantSource(const char* kernel) : path(kernel) {}
  VariantSource(std::string kernel) : path(std::move(kernel)) {}
  VariantSource(NativeCall call) : native(std::move(call)) {}
  std::string path;
  std::optional<NativeCall> native;
};
using PlanFn = std::function<LaunchPlan(const PlanContext&)>;
struct VariantSpec {
  std::string name, family, backend;
  VariantSource source;
  std::string help;
  std::vector<ParamDecl> params;
  PlanFn plan;
  bool baseline = false;  // Variant::baseline()
  std::string rule = "";  // Variant::validation_rule()
};
std::unique_ptr<Variant> make_variant(VariantSpec spec);

}  // namespace pimg
