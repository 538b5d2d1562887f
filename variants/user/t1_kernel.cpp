// A T1 kernel as a family and a variant: the family fills the arguments (constant, seeded random or
// raw files), gives the reference (the file's reference arguments, else the default configuration's
// output kept in the cache) and compares (exact for integers, a tolerance for floating point); the
// variant turns a configuration into defines, geometry and arguments.
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>

#include "pimg/cache.hpp"
#include "pimg/device_compare.hpp"
#include "pimg/errors.hpp"
#include "pimg/executor.hpp"
#include "pimg/family.hpp"
#include "pimg/variant.hpp"
#include "t1.hpp"
#include "user_variant.hpp"

namespace pimg::user {
namespace {

// Tolerances of floating-point outputs against a reference without a threshold of its own: a value
// passes when |actual - expected| <= tol * max(1, |expected|).
double default_tolerance(const T1Type& t) { return t.lane_bytes == 2 ? 1e-2 : t.lane_bytes == 4 ? 1e-5 : 1e-12; }

std::uint16_t to_half(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  std::uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<std::uint16_t>(sign);
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13));
}

double from_half(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const double v = exp == 0 ? std::ldexp(mant, -24) : exp == 31 ? INFINITY : std::ldexp(mant + 1024, exp - 25);
  return (h & 0x8000) ? -v : v;
}

// One lane of a value written in the type's layout.
void put(std::uint8_t* at, const T1Type& t, double v) {
  switch (t.kind) {
    case 'f':
      if (t.lane_bytes == 2) {
        const std::uint16_t h = to_half(static_cast<float>(v));
        std::memcpy(at, &h, 2);
      } else if (t.lane_bytes == 4) {
        const auto f = static_cast<float>(v);
        std::memcpy(at, &f, 4);
      } else {
        std::memcpy(at, &v, 8);
      }
      return;
    default: {
      const auto i = static_cast<std::int64_t>(v);
      std::memcpy(at, &i, static_cast<std::size_t>(t.lane_bytes));  // little-endian: the low bytes
    }
  }
}

double get(const std::uint8_t* at, const T1Type& t) {
  if (t.kind == 'f') {
    if (t.lane_bytes == 2) {
      std::uint16_t h;
      std::memcpy(&h, at, 2);
      return from_half(h);
    }
    if (t.lane_bytes == 4) {
      float f;
      std::memcpy(&f, at, 4);
      return f;
    }
    double d;
    std::memcpy(&d, at, 8);
    return d;
  }
  std::int64_t i = 0;
  std::memcpy(&i, at, static_cast<std::size_t>(t.lane_bytes));
  if (t.kind == 'i' && t.lane_bytes < 8) {
    const int shift = 64 - 8 * t.lane_bytes;
    i = static_cast<std::int64_t>(static_cast<std::uint64_t>(i) << shift) >> shift;
  }
  return static_cast<double>(i);
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Constant: every lane the value. Random: floating point uniform in [0, value), integers uniform in
// [0, value] (value <= 0: the type's whole non-negative range), from the seed. Generator: every lane of
// element i the expression's value at i. BinaryRaw: the file.
std::vector<std::uint8_t> fill(const T1Fill& f, const T1Type& t, std::uint64_t count) {
  std::vector<std::uint8_t> out(count * static_cast<std::uint64_t>(t.bytes()));
  if (f.type == "BinaryRaw") {
    std::ifstream in(f.data_source, std::ios::binary);
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
    if (!in) throw UsageError(fmt::format("{}: cannot read {} bytes", f.data_source, out.size()));
    return out;
  }
  if (f.generator) {
    for (std::uint64_t i = 0; i < count; ++i) {
      double v = 0;
      try {
        v = f.generator->eval(element_index(static_cast<std::int64_t>(i))).number();
      } catch (const PyError& e) {
        throw UsageError(fmt::format("the Generator '{}' at i={}: {}", f.data_source, i, e.what()));
      }
      for (int l = 0; l < t.lanes; ++l)
        put(out.data() + i * static_cast<std::uint64_t>(t.bytes()) + static_cast<std::uint64_t>(l * t.lane_bytes), t, v);
    }
    return out;
  }
  std::uint64_t state = f.seed;
  const std::uint64_t lanes = count * static_cast<std::uint64_t>(t.lanes);
  for (std::uint64_t k = 0; k < lanes; ++k) {
    double v = f.value;
    if (f.type == "Random") {
      const std::uint64_t r = splitmix(state);
      if (t.kind == 'f') {
        v = static_cast<double>(r >> 11) * 0x1.0p-53 * f.value;
      } else {
        const int bits = t.kind == 'b' ? 1 : 8 * t.lane_bytes - (t.kind == 'i' ? 1 : 0);
        const std::uint64_t range = f.value > 0 ? static_cast<std::uint64_t>(f.value) + 1
                                    : bits >= 64 ? 0 : (std::uint64_t{1} << bits);
        v = static_cast<double>(range ? r % range : r >> 1);
      }
    }
    put(out.data() + k * static_cast<std::uint64_t>(t.lane_bytes), t, v);
  }
  return out;
}

std::string buffer_name(const T1Argument& a) { return "arg:" + a.name; }

class T1Family final : public Family, public DeviceComparable {
 public:
  explicit T1Family(std::shared_ptr<const T1Spec> s) : s_(std::move(s)) {}
  std::string name() const override { return s_->name; }
  std::string unit() const override { return "Melem/s"; }
  std::vector<AttrSpec> attributes() const override {
    return {{"inputs", {}, s_->identity, "identity of the T1 file's arguments and fills"},
            {"problem", {}, "", "the T1 ProblemSize"},
            {"assumed", {}, "", "what the loader assumed where the T1 file leaves it open (empty: nothing)"}};
  }
  Problem make_problem(int width, int height, int channels, std::map<std::string, std::string> attrs) const override {
    return {s_->name, width, height, channels, std::move(attrs)};
  }
  Workload make_workload(const Problem&) const override {
    Workload w;
    for (const auto& a : s_->args) {
      if (a.memory == "Scalar") continue;
      if (a.output) {
        w.output_bytes = a.count * static_cast<std::uint64_t>(a.type.bytes());
        if (a.access == "ReadWrite") w.output_initial = fill(a.fill, a.type, a.count);  // read and updated
        continue;
      }
      w.inputs.push_back({buffer_name(a), fill(a.fill, a.type, a.count), a.access == "ReadWrite"});
    }
    return w;
  }
  std::vector<std::uint8_t> reference(const Problem&, const Workload&, const std::string&) const override {
    const T1Argument& out = output();
    if (!s_->refs.empty()) return fill(s_->refs[0].fill, out.type, out.count);
    auto bytes = cache_read("t1-reference", default_reference_key(*s_));
    if (!bytes)
      throw std::runtime_error(fmt::format("{}: no reference output yet (pimg-tune t1 computes it from the default "
                                           "configuration first)", s_->file));
    return {bytes->begin(), bytes->end()};
  }
  Validation compare(const Problem&, std::span<const std::uint8_t> expected,
                     std::span<const std::uint8_t> actual) const override {
    const T1Argument& out = output();
    const char* against = s_->refs.empty() ? "the default configuration's output" : "the reference argument";
    if (expected.size() != actual.size())
      return {false, fmt::format("output has {} bytes, the reference {}", actual.size(), expected.size())};
    const T1Type& t = out.type;
    const std::size_t lane = static_cast<std::size_t>(t.lane_bytes), lanes = actual.size() / lane;
    const bool exact = t.kind != 'f';
    if (exact) {
      for (std::size_t k = 0; k < lanes; ++k)
        if (std::memcmp(&expected[k * lane], &actual[k * lane], lane) != 0)
          return {false, fmt::format("element {} is {}, {} has {}", k / static_cast<std::size_t>(t.lanes),
                                     get(&actual[k * lane], t), against, get(&expected[k * lane], t))};
      return {true, fmt::format("exact against {}", against)};
    }
    const std::string method = s_->refs.empty() ? "SideBySideRelativeComparison" : s_->refs[0].method;
    const double tol = !s_->refs.empty() && s_->refs[0].threshold ? *s_->refs[0].threshold : default_tolerance(t);
    // Runs alternate the poison (kPoisonValues): an element that holds either, where the reference does not, was
    // never written.
    std::vector<std::uint8_t> poison_a(lane, kPoisonValues[0]), poison_b(lane, kPoisonValues[1]);
    double sum = 0, worst = 0;
    for (std::size_t k = 0; k < lanes; ++k) {
      const std::uint8_t* a = &actual[k * lane];
      const std::uint8_t* e = &expected[k * lane];
      const double x = get(a, t), y = get(e, t);
      const bool poisoned = (std::memcmp(a, poison_a.data(), lane) == 0 && std::memcmp(e, poison_a.data(), lane) != 0) ||
                            (std::memcmp(a, poison_b.data(), lane) == 0 && std::memcmp(e, poison_b.data(), lane) != 0);
      const double diff = std::fabs(x - y);
      const double err = method == "AbsoluteDifference" ? diff
                         : method == "SideBySideComparison" ? diff
                                                            : diff / std::max(1.0, std::fabs(y));
      if (poisoned || std::isnan(x) != std::isnan(y) || (!std::isnan(x) && (method != "AbsoluteDifference" && !(err <= tol))))
        return {false, fmt::format("element {} is {}{}, {} has {} ({} {:.3g} > {:.3g})", k / static_cast<std::size_t>(t.lanes),
                                   x, poisoned ? " (never written)" : "", against, y, method, err, tol)};
      if (!std::isnan(x)) sum += diff;
      worst = std::max(worst, err);
    }
    if (method == "AbsoluteDifference" && !(sum <= tol))
      return {false, fmt::format("the absolute differences sum to {:.3g} > {:.3g} against {}", sum, tol, against)};
    return {true, fmt::format("{} within {:.3g} of {} (worst {:.2g})", method, tol, against,
                              method == "AbsoluteDifference" ? sum : worst)};
  }
  // On the device: exact for integers; float and double lanes by the same rule and tolerance as compare()
  // (half lanes and the summed AbsoluteDifference are compared on the host).
  std::optional<DeviceCompare> device_compare(const Problem&, const std::string&) const override {
    const T1Type& t = output().type;
    if (t.kind != 'f') return DeviceCompare{};
    const std::string method = s_->refs.empty() ? "SideBySideRelativeComparison" : s_->refs[0].method;
    if (t.lane_bytes == 2 || method == "AbsoluteDifference") return std::nullopt;
    DeviceCompare d;
    d.kind = t.lane_bytes == 4 ? DeviceCompare::Kind::f32 : DeviceCompare::Kind::f64;
    d.relative = method != "SideBySideComparison";
    d.tolerance = !s_->refs.empty() && s_->refs[0].threshold ? *s_->refs[0].threshold : default_tolerance(t);
    const std::string against = s_->refs.empty() ? "the default configuration's output" : "the reference argument";
    d.detail = [method, tol = d.tolerance, against](double worst) {
      return fmt::format("{} within {:.3g} of {} (worst {:.2g})", method, tol, against, worst);
    };
    return d;
  }
  Traffic traffic(const Problem&) const override {
    Traffic t;
    for (const auto& a : s_->args)
      if (a.memory != "Scalar") t.bytes += static_cast<double>(a.count) * a.type.bytes();
    return t;
  }
  double work(const Problem&) const override { return static_cast<double>(output().count); }

 private:
  const T1Argument& output() const { return s_->args[static_cast<std::size_t>(s_->output_index())]; }
  std::shared_ptr<const T1Spec> s_;
};

std::vector<ParamDecl> t1_params(const T1Spec& s) {
  std::vector<ParamDecl> out;
  for (const auto& p : s.params) {
    ParamDecl d;
    d.name = p.name;
    d.is_text = p.type == "string" || p.type == "float";
    if (d.is_text)
      for (const auto& v : p.values) d.choices.push_back(std::get<std::string>(v));
    d.default_value = p.default_value ? *p.default_value : p.values.front();
    d.help = p.type + " parameter of the T1 file";
    out.push_back(std::move(d));
  }
  return out;
}

LaunchPlan t1_plan(const T1Spec& s, const PlanContext& x) {
  const Config& c = x.config;
  const DeviceInfo& d = x.device;
  LaunchPlan plan;
  plan.entry = s.kernel_name;
  for (const auto& p : s.params) plan.defines.emplace_back(p.name, to_string(c.at(p.name)));
  plan.options = s.compiler_options;
  plan.shared_bytes = static_cast<std::size_t>(s.shared_memory);
  const PyNames names = geometry_names(s, c);
  auto size = [&](const std::optional<PyExpr>& e, const char* what, int dim) -> std::int64_t {
    if (!e) return 1;
    PyValue v;
    try {
      v = e->eval(names);
    } catch (const PyError& err) {
      throw PlanError(fmt::format("{}.{}: {}", what, "XYZ"[dim], err.what()));
    }
    if (v.kind != PyValue::Kind::Int || v.i <= 0)
      throw PlanError(fmt::format("{}.{} is {}, not a positive integer", what, "XYZ"[dim], v.repr()));
    return v.i;
  };
  plan.dims = 1;
  for (int k = 0; k < 3; ++k) {
    if (s.global[k] || s.local[k] || (s.has_grid_div && static_cast<std::size_t>(k) < s.problem_size.size()))
      plan.dims = k + 1;
    const std::int64_t local = size(s.local[k], "LocalSize", k);
    std::int64_t global;
    if (s.has_grid_div) {
      std::int64_t div = 1;
      for (const auto& p : s.grid_div[k]) div *= c.integer(p);
      if (s.grid_div[k].empty()) div = local;
      if (div <= 0) throw PlanError(fmt::format("grid divisor of dimension {} is {}", k, div));
      const std::int64_t extent = static_cast<std::size_t>(k) < s.problem_size.size() ? s.problem_size[k] : 1;
      global = (extent + div - 1) / div * local;
    } else {
      const std::int64_t g = size(s.global[k], "GlobalSize", k);
      global = s.global_size_type == "CUDA" ? g * local : g;
    }
    plan.local[k] = static_cast<std::size_t>(local);
    plan.global[k] = static_cast<std::size_t>(global);
  }
  const double threads = static_cast<double>(plan.local[0]) * static_cast<double>(plan.local[1]) * static_cast<double>(plan.local[2]);
  if (d.max_work_group_size > 0 && threads > static_cast<double>(d.max_work_group_size))
    throw PlanError(fmt::format("{} threads per block; the device allows {}", threads, d.max_work_group_size));
  for (const auto& a : s.args) {
    if (a.memory == "Scalar") {
      std::vector<std::uint8_t> bytes = fill(a.fill, a.type, 1);
      plan.args.push_back(KernelArg::raw(std::move(bytes)));
      continue;
    }
    const std::string buffer = a.output ? "out" : buffer_name(a);
    if (a.memory == "Symbol" || a.constant_symbol) plan.symbols.emplace_back(a.name, buffer);
    if (a.memory == "Vector") plan.args.push_back(KernelArg::buf(buffer));
  }
  return plan;
}

// A file written for another tuner's searcher (KTT's ProfileBased with its modelPath and batchSize) names
// attributes that only that searcher has: they are ignored with a warning, stored with the results. A file that
// names a pimg-tune strategy keeps every attribute, and an unknown one is refused as a typo would be.
void drop_foreign_attributes(const Registry& reg, T1Spec& s) {
  const StrategyInfo* info = s.foreign_search.empty() ? nullptr : reg.strategy(s.strategy.name);
  if (!info) return;
  for (auto it = s.strategy.options.begin(); it != s.strategy.options.end();) {
    const auto at = s.search_attributes.find(it->first);
    const bool declared = std::any_of(info->options.begin(), info->options.end(),
                                      [&](const OptionDecl& o) { return o.name == it->first; });
    if (declared || at == s.search_attributes.end()) {  // an option of the strategy, or the Budget's
      ++it;
      continue;
    }
    s.assumptions.push_back({at->second.str(), "Search.Attributes",
                             fmt::format("'{}' is an attribute of {}'s searcher, which pimg-tune's {} does not have; ignored",
                                         it->first, s.foreign_search, s.strategy.name),
                             fmt::format("Search.{}=ignored", it->first)});
    it = s.strategy.options.erase(it);
  }
}

std::deque<std::shared_ptr<const T1Spec>>& loaded() {
  static std::deque<std::shared_ptr<const T1Spec>> specs;
  return specs;
}

}  // namespace

std::string default_reference_key(const T1Spec& spec) {
  return hash128(fmt::format("{}\n{}\n{}\n{}", spec.identity, hash128(spec.kernel_text), spec.default_config().canonical(),
                             fmt::join(spec.compiler_options, " ")));
}

const T1Spec& register_t1(Registry& reg, const std::string& path, const T1Overrides& overrides) {
  T1Spec read = load_t1(path, overrides);
  // The backend of its language: the registry's one that compiles it.
  const std::vector<std::string> backends = reg.backends_compiling(read.language);
  if (backends.size() != 1)
    throw UsageError(fmt::format("{}: {} backends of this registry compile {} kernels, not one", path, backends.size(),
                                 read.language));
  read.backend = backends.front();
  drop_foreign_attributes(reg, read);
  auto spec = std::make_shared<const T1Spec>(std::move(read));
  if (reg.family(spec->name))
    throw UsageError(fmt::format("{}: family '{}' exists already; rename General.BenchmarkName", path, spec->name));
  if (spec->strategy.name != "exhaustive") {
    const StrategyInfo* info = reg.strategy(spec->strategy.name);
    PIMG_CHECK(info, "T1 loader named an unregistered strategy " + spec->strategy.name);
    try {
      resolve_options(*info, spec->strategy.options);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: Search/Budget: {}", spec->strategy.pos.file.empty() ? path : spec->strategy.pos.str(), e.what()));
    }
  }
  const std::string source = "user:" + spec->kernel_path;
  add_kernel_source(source, spec->kernel_text);
  reg.add_family(std::make_unique<T1Family>(spec));
  reg.add_variant(make_variant({spec->kernel_name, spec->name, spec->backend, source, "T1 kernel " + spec->file,
                                t1_params(*spec), [spec](const PlanContext& x) { return t1_plan(*spec, x); }}));
  loaded().push_back(spec);
  return *spec;
}

void register_from_env(Registry& reg) {
  const char* env = std::getenv(kUserKernelsEnv);
  if (!env) return;
  std::string all = env;
  std::size_t pos = 0;
  while (pos <= all.size()) {
    std::size_t end = all.find('\n', pos);
    if (end == std::string::npos) end = all.size();
    const std::string entry = all.substr(pos, end - pos);
    if (entry.rfind("space:", 0) == 0)
      register_space_variants(reg, entry.substr(6));
    else if (const std::size_t tab = entry.find('\t'); tab != std::string::npos)
      register_t1(reg, entry.substr(0, tab), T1Overrides::decode(entry.substr(tab + 1)));
    else if (!entry.empty())
      register_t1(reg, entry);
    pos = end + 1;
  }
}

std::string t1_env_entry(const std::string& path, const T1Overrides& overrides) {
  if (path.find_first_of("\t\n") != std::string::npos)
    throw UsageError(fmt::format("{}: a T1 file name with a tab or a newline cannot be passed to the workers", path));
  return overrides.empty() ? path : path + "\t" + overrides.encode();
}

void export_to_env(const std::vector<std::string>& paths) {
  ::setenv(kUserKernelsEnv, fmt::format("{}", fmt::join(paths, "\n")).c_str(), 1);
}

Space t1_space(const T1Spec& spec) {
  Space s;
  s.file = spec.file;
  s.family = spec.name;
  // Without a ProblemSize (the schema has none) the problem's extent is its output's elements, as its work is.
  const int width = spec.problem_size.empty()
                        ? static_cast<int>(std::min<std::uint64_t>(spec.args[static_cast<std::size_t>(spec.output_index())].count, INT32_MAX))
                        : static_cast<int>(spec.problem_size[0]);
  const int height = spec.problem_size.size() > 1 ? static_cast<int>(spec.problem_size[1]) : 1;
  std::map<std::string, std::string> attrs = {{"inputs", spec.identity},
                                              {"problem", fmt::format("{}", fmt::join(spec.problem_size, "x"))}};
  if (!spec.assumptions.empty()) attrs["assumed"] = spec.assumed();  // absent when nothing was assumed
  s.problems.push_back({spec.name, width, height, 1, std::move(attrs)});
  s.problem_pos.push_back({spec.file, 0, 0});
  s.backends.push_back({spec.backend, {}, {spec.file, 0, 0}});
  VariantSpace v;
  v.variant = spec.kernel_name;
  v.pos = {spec.file, 0, 0};
  for (const auto& p : spec.params) v.params.push_back({p.name, p.values, p.pos});
  v.constraints = spec.conditions;
  s.variants.push_back(std::move(v));
  s.strategy = spec.strategy;
  return s;
}

}  // namespace pimg::user
