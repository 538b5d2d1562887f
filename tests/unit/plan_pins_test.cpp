// Every variant's plans pinned (issue 37, variants as data): the plans of a sample of configurations of every
// registered variant (the built-in ones, a space's user variants, T1 kernels) on a few problems of its family
// and on three made-up devices of its backend (one stating generous limits, one stating small limits, one
// stating none), written as text (defines, options, geometry, arguments, steps, scratch, symbols, globals, or
// the PlanError's kind and message) and hashed per variant. tests/data/plan_pins.txt holds the hashes the plans
// had when the pins were taken: a change of any plan (a refactoring of how plans are made is meant to change
// none) fails here, naming the variant. PIMG_PLAN_PINS_TEXT=FILE writes the plans' text, to see what changed.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pimg/registry.hpp"
#include "pimg/variant.hpp"
#include "user/t1.hpp"
#include "user/user_variant.hpp"

namespace pimg {
namespace {

const std::string kData = PIMG_TEST_DATA;

// Every limit a variant reads: its value on the generous device, and on the small one (-1: not stated there).
struct PinLimit {
  const char* name;
  double generous, small;
};
const PinLimit kLimits[] = {
    {"max_work_group_size", 1024, 256}, {"max_work_item_size_0", 1024, 256}, {"max_work_item_size_1", 1024, 64},
    {"max_work_item_size_2", 64, -1}, {"local_mem_size", 65536, 16384}, {"max_threads_per_block", 1024, 256},
    {"shared_mem_per_block", 49152, 16384}, {"shared_mem_per_block_optin", 232448, 16384},
    {"max_grid_size_1", 65535, 8}, {"max_grid_size_2", 65535, 2}, {"image_support", 1, 0},
    {"image2d_max_width", 16384, 40}, {"image2d_max_height", 16384, 40}, {"max_constant_buffer_size", 65536, 64},
    {"compute_capability", 90, 80}, {"cuda_gpus", 2, -1}, {"compute_units", 16, 2}};

// kind 0: generous, every limit stated; 1: small limits, the refusals; 2: nothing stated, the fallbacks.
DeviceInfo pin_device(const std::string& backend, int kind) {
  DeviceInfo d;
  d.backend = backend;
  d.name = "pin";
  if (kind == 2) return d;
  d.compute_units = kind == 0 ? 16 : 2;
  d.global_mem_bytes = kind == 0 ? 8ull << 30 : 0;
  d.local_mem_bytes = kind == 0 ? 65536 : 16384;
  d.max_work_group_size = kind == 0 ? 1024 : 256;
  for (const PinLimit& l : kLimits)
    if ((kind == 0 ? l.generous : l.small) >= 0) d.limits[l.name] = kind == 0 ? l.generous : l.small;
  return d;
}

std::string hex(const std::vector<std::uint8_t>& b) {
  std::string s;
  for (std::uint8_t x : b) s += fmt::format("{:02x}", x);
  return s;
}

std::string args_text(const std::vector<KernelArg>& args) {
  std::string s;
  for (const KernelArg& a : args)
    s += fmt::format(" [{} {} {} {} {}x{} {}]", static_cast<int>(a.kind), a.buffer, a.i, a.f, a.image_width,
                     a.image_height, hex(a.bytes));
  return s;
}

std::string plan_text(const LaunchPlan& p) {
  std::ostringstream o;
  o << "entry " << p.entry << "\n defines";
  for (const auto& [k, v] : p.defines) o << ' ' << k << '=' << v;
  o << "\n options";
  for (const auto& s : p.options) o << ' ' << s;
  o << fmt::format("\n dims {} global {} {} {} local {} {} {}\n args{}\n", p.dims, p.global[0], p.global[1],
                   p.global[2], p.local[0], p.local[1], p.local[2], args_text(p.args));
  for (const LaunchStep& s : p.steps)
    o << fmt::format(" step {} {} {} {} {} {} {} {} host={} {} {} args{}\n", s.entry, s.dims, s.global[0], s.global[1],
                     s.global[2], s.local[0], s.local[1], s.local[2], static_cast<bool>(s.host), s.host_in,
                     s.host_out, args_text(s.args));
  for (const ScratchBuffer& b : p.scratch) o << " scratch " << b.name << ' ' << b.bytes << '\n';
  for (const auto& [sym, buf] : p.symbols) o << " symbol " << sym << ' ' << buf << '\n';
  o << " shared " << p.shared_bytes;
  for (const auto& [g, v] : p.globals) o << " global " << g << '=' << v;
  return o.str();
}

// The values a sample draws a parameter from: its declared ones, and one outside the declaration.
std::vector<Value> sample_values(const ParamDecl& d, bool outside) {
  std::vector<Value> out;
  if (d.is_text) {
    for (const auto& c : d.choices) out.emplace_back(c);
    if (outside) out.emplace_back(std::string("zz"));
    return out;
  }
  std::set<std::int64_t> v(d.allowed.begin(), d.allowed.end());
  if (d.allowed.empty()) {
    const std::int64_t lo = d.min.value_or(0), hi = d.max.value_or(4096);
    for (std::int64_t x : {1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 64, 128, 256, 512, 1024})
      if (x >= lo && x <= hi) v.insert(x);
    v.insert(lo);
    v.insert(hi);
    if (outside) v.insert(lo - 1);
  }
  if (outside && !v.empty()) v.insert(*v.rbegin() + 1);
  for (std::int64_t x : v) out.emplace_back(x);
  return out;
}

// Defaults, each parameter's values one at a time, and 24 seeded draws of all of them together.
std::vector<Config> sample_configs(const std::vector<ParamDecl>& decls) {
  std::vector<Config> out(1);
  for (const ParamDecl& d : decls)
    for (const Value& v : sample_values(d, true)) {
      Config c;
      c.set(d.name, v);
      out.push_back(c);
    }
  std::uint64_t x = 1107;
  for (int i = 0; i < 24 && !decls.empty(); ++i) {
    Config c;
    for (const ParamDecl& d : decls) {
      const std::vector<Value> vs = sample_values(d, false);
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      if (!vs.empty()) c.set(d.name, vs[(x >> 33) % vs.size()]);
    }
    out.push_back(c);
  }
  return out;
}

// A few problems of `f`: two sizes, one and three channels, each attribute's choices one at a time.
std::vector<Problem> sample_problems(const Family& f) {
  std::map<std::string, std::string> base;
  if (f.name() == "semblance") base = {{"grid", "4"}};
  std::vector<std::map<std::string, std::string>> attrs = {base};
  for (const AttrSpec& a : f.attributes())
    for (const auto& v : a.allowed) {
      auto m = base;
      m[a.name] = v;
      attrs.push_back(m);
    }
  if (f.name() == "rotate") attrs.push_back({{"angle", "90"}}), attrs.push_back({{"angle", "-45"}});
  std::vector<Problem> out;
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{64, 48}, {333, 17}})
    for (int ch : {1, 3})
      for (const auto& a : attrs) {
        try {
          out.push_back(f.make_problem(w, h, ch, a));
        } catch (const std::exception&) {  // a combination the family does not take
        }
        if (w != 64) break;  // the second size with the defaults only
      }
  return out;
}

std::string plan_or_error(const Variant& v, const Problem& p, const Workload& w, const Config& c, const DeviceInfo& d) {
  try {
    return plan_text(plan_for(v, p, w, c, d));
  } catch (const DeviceLacks& e) {
    return std::string("DeviceLacks: ") + e.what();
  } catch (const PlanError& e) {
    return std::string("PlanError: ") + e.what();
  } catch (const std::exception& e) {  // a variant that fails in its own code (conv's selftest_harness_omp)
    return std::string("exception: ") + e.what();
  }
}

TEST(PlanPins, EveryVariantPlansAsWhenPinned) {
  std::unique_ptr<Registry> reg = Registry::make_builtin();
  user::register_space_variants(*reg, kData + "/user/conv-user.yaml");
  user::register_t1(*reg, kData + "/t1/sharpen.json");
  user::register_t1(*reg, kData + "/t1/split/split.json");
  std::map<std::string, std::string> expected;
  {
    std::ifstream in(kData + "/plan_pins.txt");
    ASSERT_TRUE(in) << "tests/data/plan_pins.txt";
    std::string line;
    while (std::getline(in, line))
      if (!line.empty() && line[0] != '#') expected[line.substr(0, line.find(' '))] = line;
  }
  const char* text_path = std::getenv("PIMG_PLAN_PINS_TEXT");
  std::ofstream text_out;
  if (text_path) text_out.open(text_path);
  std::string lines;  // what tests/data/plan_pins.txt would say of this build
  std::size_t variants = 0;
  for (const Family* f : reg->families()) {
    const std::vector<Problem> problems = sample_problems(*f);
    ASSERT_FALSE(problems.empty()) << f->name();
    std::vector<Workload> workloads;
    for (const Problem& p : problems) workloads.push_back(f->make_workload(p));
    for (const Variant* v : reg->variants(f->name())) {
      const std::string key = f->name() + "/" + v->name();
      const std::vector<Config> configs = sample_configs(v->parameters());
      std::string all;
      int cases = 0, refused = 0;
      for (std::size_t i = 0; i < problems.size(); ++i)
        for (const Config& c : configs)
          for (int kind = 0; kind < 3; ++kind) {
            const std::string t = plan_or_error(*v, problems[i], workloads[i], c, pin_device(v->backend(), kind));
            const std::string one = fmt::format("{} | {} | {} | {}\n{}\n", key, problems[i].label(), c.canonical(), kind, t);
            all += one;
            ++cases;
            refused += t.rfind("PlanError", 0) == 0 || t.rfind("DeviceLacks", 0) == 0;
            if (text_out) text_out << one;
          }
      const std::string line = fmt::format("{} cases={} refused={} {}", key, cases, refused, hex64(fnv1a64(all)));
      lines += line + "\n";
      ++variants;
      const auto pinned = expected.find(key);
      EXPECT_EQ(pinned == expected.end() ? "not pinned" : pinned->second, line)
          << "the plans of " << key << " changed (PIMG_PLAN_PINS_TEXT=FILE writes them)";
    }
  }
  // A pinned variant this build lacks (a library baseline built without its library) is not checked.
  EXPECT_GT(variants, 80u) << lines;
}

}  // namespace
}  // namespace pimg
