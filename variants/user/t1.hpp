// T1 kernel descriptions (../shared/t1/README.md): a tunable CUDA or OpenCL kernel read at run time,
// loaded into a family (its inputs, reference and comparison) and one variant (its parameters,
// conditions and geometry), so the tuner's runner, evaluator, isolation and store serve it unchanged.
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pimg/config.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "pyexpr.hpp"

namespace pimg::user {

// One element type of the schema (int8 .. double16): its scalar kind, bytes per lane and lanes.
struct T1Type {
  std::string name;
  char kind = 'f';  // 'i' signed, 'u' unsigned, 'f' floating point, 'b' bool
  int lane_bytes = 4;
  int lanes = 1;  // 1, 2, 3 (CUDA only: 3 lanes without padding, a double3 is 24 bytes), 4, 8 or 16
  int bytes() const { return lane_bytes * lanes; }
};

struct T1Fill {
  std::string type = "Constant";  // Constant | Random | BinaryRaw | Generator
  double value = 0;
  std::uint64_t seed = 0;
  std::string data_source;  // BinaryRaw: resolved path; Generator: the expression of the element index i
  std::optional<PyExpr> generator;  // Generator: data_source parsed
};

struct T1Argument {
  std::string name;
  T1Type type;
  std::string memory;  // Scalar | Vector | Symbol
  std::string access;  // ReadOnly | WriteOnly | ReadWrite
  bool output = false;  // the one argument validated (a ReadWrite output starts from its fill before each run)
  bool constant_symbol = false;  // CUDA: also copied to the __constant__ symbol of the same name
  std::uint64_t count = 1;       // elements of a vector
  T1Fill fill;
  SourcePos pos;
};

struct T1Reference {
  std::string target;  // the output argument it checks
  T1Fill fill;
  std::string method = "SideBySideComparison";
  std::optional<double> threshold;
  SourcePos pos;
};

struct T1Parameter {
  std::string name;
  std::string type;  // int | uint | bool | float | string
  std::vector<Value> values;
  std::optional<Value> default_value;
  SourcePos pos;
};

// What a runner supplies to a T1 file that leaves it out (or that the user replaces): the
// `pimg-tune t1` options --problem-size and --set NAME=VALUE.
struct T1Overrides {
  std::vector<std::int64_t> problem_size;
  std::vector<std::pair<std::string, std::string>> sets;  // scalar argument or one-value parameter, value
  bool empty() const { return problem_size.empty() && sets.empty(); }
  std::string encode() const;  // one line without newlines, for the workers' environment
  static T1Overrides decode(const std::string& text);
};

// One thing the loader assumed where the file leaves it open or says it in another tool's dialect
// (docs/tune-your-own-kernel.md, "T1 files from other tools"): printed as a warning and stored with
// the results (the problem's "assumed" attribute).
struct T1Assumption {
  std::string where;  // FILE:LINE:COLUMN
  std::string field;  // KernelSpecification.Arguments[0].FillType
  std::string what;   // the assumption, in words
  std::string tag;    // short form for the store: "kSizeM.FillType=Constant"
  std::string warning() const;  // "FILE:LINE:COLUMN: warning: FIELD: WHAT"
};

struct T1Spec {
  std::string file;  // the T1 file as given
  T1Overrides overrides;
  std::vector<T1Assumption> assumptions;
  std::string assumed() const;  // the tags, comma-separated (empty: nothing assumed)
  std::string name;  // family name: "t1-" + benchmark name
  std::string language;  // CUDA | OpenCL
  std::string backend;   // the registry's backend compiling `language` (register_t1); empty from load_t1 alone
  std::string kernel_name, kernel_path, kernel_text;
  std::vector<std::string> compiler_options;
  std::vector<T1Parameter> params;
  std::vector<Constraint> conditions;  // as muparser constraints
  std::string global_size_type;        // CUDA: GlobalSize counts blocks; OpenCL: work items
  std::array<std::optional<PyExpr>, 3> global, local;
  std::array<std::vector<std::string>, 3> grid_div;  // Kernel Tuner's divisors of ProblemSize
  bool has_grid_div = false;
  std::vector<std::int64_t> problem_size;
  std::int64_t shared_memory = 0;
  std::vector<T1Argument> args;
  std::vector<T1Reference> refs;
  StrategySpec strategy;
  // Search.Name as written when it is another tuner's name for a pimg-tune strategy (KTT's ProfileBased is forest),
  // and where each of Search.Attributes lies: that searcher's own attributes are ignored, with a warning, by
  // register_t1 (which knows the strategy's options); empty when the file names a pimg-tune strategy.
  std::string foreign_search;
  std::map<std::string, SourcePos> search_attributes;
  std::string identity;  // hash of what defines the problem (sizes, arguments, fills, data files)
  int output_index() const;  // the argument the tuner validates
  Config default_config() const;
};

// The names a size expression of a configuration sees: its parameters and ProblemSize.
PyNames geometry_names(const T1Spec& spec, const Config& c);

// The one name a Generator fill's expression sees: the element index i.
inline PyNames element_index(std::int64_t i) {
  return [i](const std::string& n) -> std::optional<PyValue> {
    if (n == "i") return PyValue::integer(i);
    return std::nullopt;
  };
}

// Reads and checks a T1 file; every refusal is a UsageError naming FILE:LINE:COLUMN and the field
// (and, for an expression, the column inside it).
T1Spec load_t1(const std::string& path, const T1Overrides& overrides = {});

// Registers the file's family and variant (and its kernel source) in `reg`; returns the spec.
const T1Spec& register_t1(Registry& reg, const std::string& path, const T1Overrides& overrides = {});

// The user kernels a run names travel to its worker processes in this environment variable
// (T1 paths, each optionally followed by a tab and its encoded overrides, or "space:" and a space
// file declaring user variants, separated by newlines); the worker registers them before serving.
inline constexpr const char* kUserKernelsEnv = "PIMG_USER_KERNELS";
void register_from_env(Registry& reg);
void export_to_env(const std::vector<std::string>& paths);
std::string t1_env_entry(const std::string& path, const T1Overrides& overrides);

// The space a T1 file describes, for the runner: its problem, backend (register_t1's), parameters and conditions.
Space t1_space(const T1Spec& spec);

// Where the output of the default configuration is kept when the file has no reference arguments
// (the cache, keyed by the problem's identity and the kernel text).
std::string default_reference_key(const T1Spec& spec);

}  // namespace pimg::user
