// The space file loader: reads the YAML, refuses hostile shapes, and checks every key and value
// against the registry (family attributes, backends, variants and their parameters, strategies).
// Every error is one line, "FILE:LINE:COLUMN: message", thrown as a UsageError.
#include "pimg/suggest.hpp"
#include "pimg/space.hpp"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"

namespace pimg {
namespace detail {  // space_constraints.cpp
void check_constraint(const Constraint& c, const std::vector<std::string>& params,
                      const std::vector<std::string>& text_values);
}  // namespace detail

namespace {

constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxList = 100000;
constexpr std::size_t kMaxNodes = 1000000;  // alias expansions included
constexpr std::size_t kMaxProblems = 100000;
// Every raw configuration is checked against the constraints when the space is enumerated (about
// 150 ns each), so this bounds listing a space to a second or two.
constexpr std::uint64_t kMaxRawSize = 10000000;
constexpr double kMaxTimeoutS = 86400;        // measure.timeout_s (a day)

// A user's text inside a message: quoted, control characters escaped, long text shortened.
std::string show(const std::string& s) {
  std::string out = "'";
  for (char c : s.substr(0, 60)) {
    if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\x{:02x}", c);
    else
      out += c;
  }
  return out + (s.size() > 60 ? "...'" : "'");
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

std::string kind(const YAML::Node& n) {
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  if (n.IsScalar()) return "the value " + show(n.Scalar());
  return "nothing";
}

bool parse_int64(const std::string& s, std::int64_t& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, out);
  return b != e && ec == std::errc() && ptr == e;
}

// Counts parser events and gives up past a budget, and notes where documents start: yaml-cpp 0.7's
// LoadAll can loop forever on some malformed input, yielding documents without end (found by
// fuzz/space_fuzz.cpp; tests/data/spaces/bad/79-endless-documents.yaml).
class EventBudget final : public YAML::EventHandler {
 public:
  explicit EventBudget(std::size_t budget) : left_(budget) {}
  struct Exhausted {
    YAML::Mark mark;
  };
  void OnDocumentStart(const YAML::Mark& m) override {
    spend(m);
    starts.push_back(m);
  }
  std::vector<YAML::Mark> starts;  // where each document began
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { spend(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { spend(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { spend(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    spend(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    spend(m);
  }
  void OnMapEnd() override {}

 private:
  void spend(const YAML::Mark& m) {
    if (left_-- == 0) throw Exhausted{m};
  }
  std::size_t left_;
};

struct Entry {
  std::string key;
  YAML::Node key_node;
  YAML::Node value;
};

// One pass of the problem expansion: a key and the values it takes, each with its node.
struct Choice {
  std::string text;
  int width = 0, height = 0;
  YAML::Node node;
};
struct Axis {
  std::string key;
  std::vector<Choice> choices;
};

class Loader {
 public:
  Loader(std::string file, const Registry& reg) : file_(std::move(file)), reg_(reg) {}

  Space load(const std::string& text) {
    if (text.size() > kMaxFileBytes)
      throw UsageError(
          fmt::format("{}: file of {} bytes is too large (at most {})", file_, text.size(), kMaxFileBytes));
    YAML::Node root;
    try {
      // First a bounded pass over the events of at most two documents, then the first one loaded.
      std::istringstream in(text);
      YAML::Parser parser(in);
      EventBudget budget(kMaxNodes);
      int documents = 0;
      while (documents < 2 && parser.HandleNextDocument(budget)) ++documents;
      if (documents == 0)
        fail_mark(YAML::Mark(),
                  "the file is empty; a space file is a mapping with family, problems, backends and variants");
      if (documents > 1) fail_mark(budget.starts.at(1), "a space file holds one YAML document, not several");
      root = YAML::Load(text);
    } catch (const EventBudget::Exhausted& e) {
      fail_mark(e.mark, fmt::format("the document has more than {} nodes; refused", kMaxNodes));
    } catch (const YAML::DeepRecursion& e) {
      fail_mark(e.mark, fmt::format("nesting deeper than {} levels is refused", kMaxDepth));
    } catch (const YAML::Exception& e) {
      fail_mark(e.mark, "invalid YAML: " + e.msg);
    }
    std::size_t visited = 0;
    check_shape(root, 0, visited);
    return build(root);
  }

 private:
  std::string file_;
  const Registry& reg_;
  const Family* family_ = nullptr;

  SourcePos pos(const YAML::Mark& m) const {
    if (m.is_null()) return {file_, 1, 1};
    return {file_, m.line + 1, m.column + 1};
  }
  SourcePos pos(const YAML::Node& n) const { return pos(n.Mark()); }
  [[noreturn]] void fail_at(const SourcePos& p, const std::string& message) const {
    std::string m = message;
    std::replace(m.begin(), m.end(), '\n', ' ');
    throw UsageError(p.str() + ": " + m);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const { fail_at(pos(n), message); }
  [[noreturn]] void fail_mark(const YAML::Mark& m, const std::string& message) const { fail_at(pos(m), message); }

  // Refuses documents too deep, lists too long, or aliases expanding to too many nodes (a
  // self-referencing anchor is too deep).
  void check_shape(const YAML::Node& n, int depth, std::size_t& visited) const {
    if (depth > kMaxDepth) fail(n, fmt::format("nesting deeper than {} levels is refused", kMaxDepth));
    if (++visited > kMaxNodes)
      fail(n, fmt::format("the document expands to more than {} nodes (aliases included); refused", kMaxNodes));
    if (n.IsSequence() || n.IsMap()) {
      if (n.size() > kMaxList)
        fail(n, fmt::format("{} of {} entries is refused (at most {})", n.IsMap() ? "a mapping" : "a list", n.size(),
                            kMaxList));
      for (auto it = n.begin(); it != n.end(); ++it) {
        if (n.IsMap()) {
          check_shape(it->first, depth + 1, visited);
          check_shape(it->second, depth + 1, visited);
        } else {
          check_shape(*it, depth + 1, visited);
        }
      }
    }
  }

  // The entries of a mapping, in file order; keys must be text and distinct, and when `allowed`
  // is given, among it.
  std::vector<Entry> entries(const YAML::Node& map, const std::string& what,
                             const std::vector<std::string>& allowed = {}) const {
    if (!map.IsMap()) fail(map, fmt::format("{} must be a mapping, got {}", what, kind(map)));
    std::vector<Entry> out;
    std::map<std::string, int> seen;
    for (auto it = map.begin(); it != map.end(); ++it) {
      const YAML::Node k = it->first;  // a copy: the iterator yields a temporary
      if (!k.IsScalar()) fail(k, fmt::format("keys of {} must be names, got {}", what, kind(k)));
      const std::string& key = k.Scalar();
      if (auto s = seen.find(key); s != seen.end())
        fail(k, fmt::format("duplicate key {} in {} (first at line {})", show(key), what, s->second));
      seen[key] = pos(k).line;
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        fail(k, fmt::format("unknown key {} in {} (allowed: {})", show(key), what, join(allowed)));
      out.push_back({key, k, it->second});
    }
    return out;
  }

  std::string scalar(const YAML::Node& n, const std::string& what) const {
    if (!n.IsScalar()) fail(n, fmt::format("{} must be a value, got {}", what, kind(n)));
    return n.Scalar();
  }

  // An entry's value when it must not be left empty (an empty value's own mark is the next line).
  const YAML::Node& value(const Entry& e, const std::string& what) const {
    if (e.value.IsNull()) fail(e.key_node, fmt::format("{} needs a value", what));
    return e.value;
  }

  std::int64_t integer(const YAML::Node& n, const std::string& what, std::int64_t lo, std::int64_t hi) const {
    std::string s = scalar(n, what);
    std::int64_t v = 0;
    if (!parse_int64(s, v)) fail(n, fmt::format("{} must be an integer, got {}", what, show(s)));
    if (v < lo || v > hi) {
      bool open_ended = hi == INT64_MAX || hi == INT32_MAX;
      std::string range = open_ended ? fmt::format(">= {}", lo) : fmt::format("in {}..{}", lo, hi);
      fail(n, fmt::format("{} must be {}, got {}", what, range, v));
    }
    return v;
  }

  // A value or a non-empty list of values.
  std::vector<YAML::Node> items(const YAML::Node& n, const std::string& what) const {
    if (n.IsScalar()) return {n};
    if (!n.IsSequence()) fail(n, fmt::format("{} must be a value or a list of values, got {}", what, kind(n)));
    if (n.size() == 0) fail(n, fmt::format("{} has an empty value list", what));
    std::vector<YAML::Node> out;
    for (auto it = n.begin(); it != n.end(); ++it) out.push_back(*it);
    return out;
  }

  Space build(const YAML::Node& root) {
    auto top = entries(root, "the space file",
                       {"family", "problems", "backends", "variants", "strategy", "measure", "ladder"});
    auto find = [&](const std::string& key) -> const Entry* {
      for (const auto& e : top)
        if (e.key == key) return &e;
      return nullptr;
    };
    for (const char* key : {"family", "problems", "backends", "variants"})
      if (!find(key))
        fail(root, fmt::format("missing key '{}' (a space file needs family, problems, backends, variants)", key));

    Space space;
    space.file = file_;
    const YAML::Node& fam = value(*find("family"), "family");
    space.family = scalar(fam, "family");
    family_ = reg_.family(space.family);
    if (!family_) {
      std::vector<std::string> names;
      for (const auto* f : reg_.families()) names.push_back(f->name());
      fail(fam, fmt::format("unknown family {}{} (families: {})", show(space.family), did_you_mean(space.family, names),
                            join(names)));
    }
    space.backends = backends(value(*find("backends"), "backends"));
    space.problems = problems(value(*find("problems"), "problems"), space.problem_pos);
    space.variants = variants(value(*find("variants"), "variants"), space.backends);
    space.strategy = strategy(find("strategy"), root);
    if (const Entry* m = find("measure")) space.measure = measure(value(*m, "measure"));
    if (const Entry* l = find("ladder")) space.ladder = ladder(value(*l, "ladder"), space);
    return space;
  }

  // --- ladder --------------------------------------------------------------------------------

  // {name: TEXT, steps: [{step: TEXT, variant: NAME, device: SELECTOR, params: {p: value, ...}}, ...]}:
  // each step one configuration of a variant the space tunes, its parameters checked as in `variants`
  // (one value each; the variant's constraints are not applied: a step may be one the search excludes).
  Ladder ladder(const YAML::Node& n, const Space& space) const {
    Ladder out;
    std::optional<YAML::Node> steps;
    for (const auto& e : entries(n, "ladder", {"name", "steps"})) {
      if (e.key == "name") out.name = scalar(value(e, "ladder.name"), "ladder.name");
      if (e.key == "steps") steps = value(e, "ladder.steps");
    }
    if (out.name.empty()) fail(n, "ladder.name is missing or empty");
    if (!steps) fail(n, "ladder.steps is missing (a list of steps: step, variant, params)");
    if (!steps->IsSequence() || steps->size() == 0)
      fail(*steps, fmt::format("ladder.steps must be a non-empty list of steps, got {}", kind(*steps)));
    for (auto it = steps->begin(); it != steps->end(); ++it) out.steps.push_back(ladder_step(*it, space, out));
    return out;
  }

  LadderStep ladder_step(const YAML::Node& n, const Space& space, const Ladder& so_far) const {
    LadderStep st;
    st.pos = pos(n);
    const std::string what = fmt::format("ladder.steps[{}]", so_far.steps.size());
    std::optional<Entry> variant_entry, params;
    for (const auto& e : entries(n, what, {"step", "variant", "device", "params"})) {
      if (e.key == "step") st.name = scalar(value(e, what + ".step"), what + ".step");
      if (e.key == "variant") variant_entry = e;
      if (e.key == "device") st.device = scalar(value(e, what + ".device"), what + ".device");
      if (e.key == "params") params = e;
    }
    if (st.name.empty()) fail(n, what + ".step (the step's name) is missing or empty");
    for (const LadderStep& s : so_far.steps)
      if (s.name == st.name) fail(n, fmt::format("{}: step {} is named twice", what, show(st.name)));
    if (!variant_entry) fail(n, what + ".variant is missing");
    st.variant = scalar(value(*variant_entry, what + ".variant"), what + ".variant");
    if (std::none_of(space.variants.begin(), space.variants.end(),
                     [&](const VariantSpace& v) { return v.variant == st.variant; }))
      fail(variant_entry->value, fmt::format("{}: variant {} is not under variants (a ladder measures variants the "
                                             "space tunes)", what, show(st.variant)));
    YAML::Node values(YAML::NodeType::Null);
    if (params && !params->value.IsNull()) {
      for (const auto& p : entries(params->value, what + ".params"))
        if (p.key == "constraints") fail(p.key_node, what + ".params: a step is one configuration; no constraints");
      values = params->value;
    }
    const VariantSpace vs = variant({st.variant, variant_entry->value, values}, space.backends);
    for (const ParamValues& p : vs.params) {
      if (p.values.size() != 1)
        fail_at(p.pos, fmt::format("{}.params.{}: a step is one configuration; give one value, got {}", what, p.name,
                                   p.values.size()));
      st.config.set(p.name, p.values.front());
    }
    return st;
  }

  // --- problems ------------------------------------------------------------------------------

  std::vector<Problem> problems(const YAML::Node& list, std::vector<SourcePos>& where) {
    if (!list.IsSequence()) fail(list, fmt::format("problems must be a list of mappings, got {}", kind(list)));
    if (list.size() == 0) fail(list, "problems has an empty value list");
    std::vector<std::string> allowed = {"sizes", "channels"};
    for (const auto& a : family_->attributes()) allowed.push_back(a.name);
    std::vector<Problem> out;
    for (auto it = list.begin(); it != list.end(); ++it) {
      expand(*it, allowed, out);
      where.resize(out.size(), pos(*it));
    }
    return out;
  }

  Choice size_choice(const YAML::Node& n) const {
    std::string s = scalar(n, "problems.sizes");
    auto dim = [](const std::string& t, int& v) {
      std::int64_t x = 0;
      if (t.empty() || !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
          !parse_int64(t, x) || x <= 0 || x > INT32_MAX)
        return false;
      v = static_cast<int>(x);
      return true;
    };
    Choice c{s, 0, 0, n};
    std::size_t x = s.find('x');
    bool ok = x == std::string::npos ? dim(s, c.width) && dim(s, c.height)
                                     : dim(s.substr(0, x), c.width) && dim(s.substr(x + 1), c.height);
    if (!ok) fail(n, fmt::format("problems.sizes: {} is not WxH or a positive integer N (NxN)", show(s)));
    return c;
  }

  // A matrix is a list of rows, each a non-empty list of values: "1,2,1;2,4,2;1,2,1".
  static bool is_matrix(const YAML::Node& n) {
    if (!n.IsSequence() || n.size() == 0) return false;
    for (auto r = n.begin(); r != n.end(); ++r) {
      if (!r->IsSequence() || r->size() == 0) return false;
      for (auto c = r->begin(); c != r->end(); ++c)
        if (!c->IsScalar()) return false;
    }
    return true;
  }
  static std::string matrix_text(const YAML::Node& n) {
    std::string out;
    for (auto r = n.begin(); r != n.end(); ++r) {
      if (r != n.begin()) out += ';';
      for (auto c = r->begin(); c != r->end(); ++c) out += (c == r->begin() ? "" : ",") + c->Scalar();
    }
    return out;
  }

  std::vector<Choice> attr_choices(const Entry& e, const AttrSpec& spec) const {
    const std::string what = "problems." + e.key;
    const YAML::Node& v = value(e, what);
    std::vector<Choice> out;
    if (is_matrix(v)) {
      out.push_back({matrix_text(v), 0, 0, v});
    } else if (v.IsSequence() && v.size() > 0 && is_matrix(v[0])) {
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!is_matrix(*it)) fail(*it, fmt::format("{}: expected a matrix (a list of rows), got {}", what, kind(*it)));
        out.push_back({matrix_text(*it), 0, 0, *it});
      }
    } else {
      for (const auto& n : items(v, what)) out.push_back({scalar(n, what), 0, 0, n});
    }
    for (const auto& c : out)
      if (!spec.allowed.empty() && std::find(spec.allowed.begin(), spec.allowed.end(), c.text) == spec.allowed.end())
        fail(c.node, fmt::format("{}: {} is not one of {}", what, show(c.text), join(spec.allowed)));
    return out;
  }

  void expand(const YAML::Node& entry_node, const std::vector<std::string>& allowed, std::vector<Problem>& out) {
    auto list = entries(entry_node, "a problem", allowed);
    std::vector<Axis> axes;
    for (const auto& e : list) {
      Axis a{e.key, {}};
      if (e.key == "sizes") {
        for (const auto& n : items(value(e, "problems.sizes"), "problems.sizes")) a.choices.push_back(size_choice(n));
      } else if (e.key == "channels") {
        for (const auto& n : items(value(e, "problems.channels"), "problems.channels"))
          a.choices.push_back({std::to_string(integer(n, "problems.channels", 1, INT32_MAX)), 0, 0, n});
      } else {
        for (const auto& spec : family_->attributes())
          if (spec.name == e.key) a.choices = attr_choices(e, spec);
      }
      axes.push_back(std::move(a));
    }
    std::size_t count = 1;
    for (const auto& a : axes) {
      count *= a.choices.size();
      if (count + out.size() > kMaxProblems)
        fail(entry_node, fmt::format("the problems expand to more than {} problems; refused", kMaxProblems));
    }
    std::vector<std::size_t> idx(axes.size(), 0);
    for (;;) {
      int width = 0, height = 0, channels = 1;
      std::map<std::string, std::string> attrs;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        const Choice& c = axes[i].choices[idx[i]];
        if (axes[i].key == "sizes") {
          width = c.width;
          height = c.height;
        } else if (axes[i].key == "channels") {
          channels = std::stoi(c.text);
        } else {
          attrs[axes[i].key] = c.text;
        }
      }
      try {
        out.push_back(family_->make_problem(width, height, channels, attrs));
      } catch (const AttrError& e) {
        for (std::size_t i = 0; i < axes.size(); ++i)
          if (axes[i].key == e.key())
            fail(axes[i].choices[idx[i]].node, fmt::format("problems.{}: {}", e.key(), e.what()));
        fail(entry_node, fmt::format("problem ({} not given): {}", e.key(), e.what()));
      } catch (const std::exception& e) {
        fail(entry_node, fmt::format("problem: {}", e.what()));
      }
      const Problem& made = out.back();
      const auto input = attrs.find("input");
      if (width > 0 && input != attrs.end() && input->second != "random" &&
          (made.width != width || made.height != height))
        for (std::size_t i = 0; i < axes.size(); ++i)
          if (axes[i].key == "sizes")
            fail(axes[i].choices[idx[i]].node,
                 fmt::format("problems.sizes: {}x{} contradicts the image file {} ({}x{}); leave sizes out for an "
                             "image file", width, height, input->second, made.width, made.height));
      std::size_t i = axes.size();
      while (i > 0 && ++idx[i - 1] == axes[i - 1].choices.size()) idx[--i] = 0;
      if (i == 0) break;
    }
  }

  // --- backends ------------------------------------------------------------------------------

  BackendSelection backend(const YAML::Node& name_node, const std::vector<BackendSelection>& so_far) const {
    BackendSelection b;
    b.backend = scalar(name_node, "backends");
    b.pos = pos(name_node);
    if (!reg_.backend(b.backend)) {
      std::vector<std::string> names;
      for (const auto* x : reg_.backends()) names.push_back(x->name());
      fail(name_node, fmt::format("unknown backend {} (backends: {})", show(b.backend), join(names)));
    }
    for (const auto& s : so_far)
      if (s.backend == b.backend) fail(name_node, fmt::format("backend {} is listed twice", show(b.backend)));
    return b;
  }

  std::vector<BackendSelection> backends(const YAML::Node& n) const {
    std::vector<BackendSelection> out;
    if (n.IsSequence() || n.IsScalar()) {
      for (const auto& item : items(n, "backends")) out.push_back(backend(item, out));
      return out;
    }
    if (!n.IsMap())
      fail(n, fmt::format("backends must be a mapping (backend: options) or a list of names, got {}", kind(n)));
    auto list = entries(n, "backends");
    if (list.empty()) fail(n, "backends has no backend");
    for (const auto& e : list) {
      BackendSelection b = backend(e.key_node, out);
      if (!e.value.IsNull()) {
        for (const auto& o : entries(e.value, "the options of backend " + show(e.key), {"devices"})) {
          for (const auto& d : items(value(o, "backends." + e.key + ".devices"), "backends." + e.key + ".devices")) {
            std::string sel = scalar(d, "backends." + e.key + ".devices");
            std::int64_t index = 0;
            if (sel.empty() || (parse_int64(sel, index) && index < 0))
              fail(d, fmt::format("backends.{}.devices: {} is neither a device index (>= 0) nor a name substring",
                                  e.key, show(sel)));
            b.devices.push_back(sel);
          }
        }
      }
      out.push_back(std::move(b));
    }
    return out;
  }

  // --- variants ------------------------------------------------------------------------------

  std::vector<VariantSpace> variants(const YAML::Node& n, const std::vector<BackendSelection>& selected) const {
    auto list = entries(n, "variants");
    if (list.empty()) fail(n, "variants has no variant");
    std::vector<VariantSpace> out;
    for (const auto& e : list) out.push_back(variant(e, selected));
    return out;
  }

  VariantSpace variant(const Entry& e, const std::vector<BackendSelection>& selected) const {
    const Variant* v = reg_.variant(family_->name(), e.key);
    if (!v) {
      std::vector<std::string> names;
      for (const auto* x : reg_.variants(family_->name())) names.push_back(x->name());
      fail(e.key_node,
           fmt::format("unknown variant {} for family {}{} (variants: {})", show(e.key), family_->name(),
                       did_you_mean(e.key, names), join(names)));
    }
    std::vector<std::string> chosen;
    for (const auto& b : selected) chosen.push_back(b.backend);
    if (std::find(chosen.begin(), chosen.end(), v->backend()) == chosen.end())
      fail(e.key_node, fmt::format("variant {} runs on backend '{}', which backends does not select (selected: {})",
                                   show(e.key), v->backend(), join(chosen)));

    VariantSpace vs;
    vs.variant = e.key;
    vs.pos = pos(e.key_node);
    const std::vector<ParamDecl> decls = v->parameters();
    std::vector<std::string> names;
    for (const auto& d : decls) names.push_back(d.name);
    std::vector<Entry> list;
    if (!e.value.IsNull()) list = entries(e.value, "variant " + show(e.key));
    for (const auto& p : list) {
      if (p.key == "constraints") continue;
      auto d = std::find_if(decls.begin(), decls.end(), [&](const ParamDecl& x) { return x.name == p.key; });
      if (d == decls.end())
        fail(p.key_node, fmt::format("unknown parameter {} for variant {}{} ({})", show(p.key), show(e.key),
                                     did_you_mean(p.key, names), decls.empty() ? "it has no parameters" : "parameters: " + join(names)));
      vs.params.push_back(param(*d, p, e.key));
    }
    for (const auto& d : decls)
      if (std::none_of(vs.params.begin(), vs.params.end(), [&](const ParamValues& p) { return p.name == d.name; }))
        vs.params.push_back({d.name, {d.default_value}, vs.pos});
    std::sort(vs.params.begin(), vs.params.end(),
              [](const ParamValues& a, const ParamValues& b) { return a.name < b.name; });

    if (vs.raw_size() > kMaxRawSize)
      fail(e.key_node,
           fmt::format("variant {} has {} raw configurations, more than 10^7; refused (narrow its value lists)", show(e.key),
                       vs.raw_size() == UINT64_MAX ? std::string("over 2^64") : std::to_string(vs.raw_size())));

    std::vector<std::string> text_values;
    for (const auto& d : decls)
      if (d.is_text) text_values.insert(text_values.end(), d.choices.begin(), d.choices.end());
    for (const auto& p : list) {
      if (p.key != "constraints") continue;
      const std::string what = "variants." + e.key + ".constraints";
      for (const auto& c : items(value(p, what), what)) {
        Constraint con{scalar(c, what), pos(c)};
        detail::check_constraint(con, names, text_values);
        vs.constraints.push_back(std::move(con));
      }
    }
    return vs;
  }

  ParamValues param(const ParamDecl& d, const Entry& e, const std::string& variant) const {
    const std::string what = "variants." + variant + "." + d.name;
    ParamValues pv{d.name, {}, pos(value(e, what))};
    if (e.value.IsMap()) {
      pv.values = generated(d, e.value, what);
      for (const auto& v : pv.values)
        if (auto why = param_value_error(d, std::get<std::int64_t>(v))) fail(e.value, fmt::format("{}: {}", what, *why));
      return pv;
    }
    std::vector<std::string> seen;
    for (const auto& n : items(e.value, what)) {
      std::string s = scalar(n, what);
      if (d.is_text) {
        if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), s) == d.choices.end())
          fail(n, fmt::format("{}: {} is not a choice (choices: {})", what, show(s), join(d.choices)));
        pv.values.emplace_back(s);
      } else {
        std::int64_t x = 0;
        if (!parse_int64(s, x)) fail(n, fmt::format("{} takes integers, got {}", what, show(s)));
        if (x < INT32_MIN || x > INT32_MAX)
          fail(n, fmt::format("{}: {} is outside the 32-bit range kernels take", what, x));
        if (auto why = param_value_error(d, x)) fail(n, fmt::format("{}: {}", what, *why));
        s = std::to_string(x);
        pv.values.emplace_back(x);
      }
      if (std::find(seen.begin(), seen.end(), s) != seen.end())
        fail(n, fmt::format("{}: value {} is listed twice", what, show(s)));
      seen.push_back(s);
    }
    return pv;
  }

  // {range: [from, to], step: s} or {pow2: [lo, hi]}.
  std::vector<Value> generated(const ParamDecl& d, const YAML::Node& n, const std::string& what) const {
    auto list = entries(n, what, {"range", "step", "pow2"});
    const Entry *range = nullptr, *step = nullptr, *pow2 = nullptr;
    for (const auto& e : list) (e.key == "range" ? range : e.key == "step" ? step : pow2) = &e;
    if (!range == !pow2) fail(n, fmt::format("{}: give either range or pow2", what));
    if (step && !range) fail(step->key_node, fmt::format("{}: step belongs to range", what));
    if (d.is_text)
      fail(n, fmt::format("{}: {} needs an integer parameter; this one takes {}", what, range ? "range" : "pow2",
                          join(d.choices)));
    const Entry& bounds = range ? *range : *pow2;
    const std::string bw = what + "." + bounds.key;
    const YAML::Node& b = value(bounds, bw);
    if (!b.IsSequence() || b.size() != 2) fail(b, fmt::format("{} must be a list [from, to], got {}", bw, kind(b)));
    std::int64_t lo = integer(b[0], bw, INT32_MIN, INT32_MAX), hi = integer(b[1], bw, INT32_MIN, INT32_MAX);
    if (lo > hi) fail(b, fmt::format("{}: from {} is greater than to {}", bw, lo, hi));
    std::vector<Value> out;
    if (range) {
      std::int64_t s = step ? integer(value(*step, what + ".step"), what + ".step", INT64_MIN, INT64_MAX) : 1;
      if (s <= 0) fail(step->value, fmt::format("{}.step must be positive, got {}", what, s));
      std::uint64_t steps =
          (static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo)) / static_cast<std::uint64_t>(s);
      if (steps >= kMaxList) fail(b, fmt::format("{} yields more than {} values; refused", bw, kMaxList));
      for (std::int64_t i = 0; i <= static_cast<std::int64_t>(steps); ++i) out.emplace_back(lo + i * s);
    } else {
      auto is_pow2 = [](std::int64_t x) { return x >= 1 && (x & (x - 1)) == 0; };
      if (!is_pow2(lo)) fail(b[0], fmt::format("{}: {} is not a power of two", bw, lo));
      if (!is_pow2(hi)) fail(b[1], fmt::format("{}: {} is not a power of two", bw, hi));
      for (std::int64_t x = lo; x <= hi; x *= 2) {
        out.emplace_back(x);
        if (x == hi) break;
      }
    }
    return out;
  }

  // --- strategy and measure ------------------------------------------------------------------

  StrategySpec strategy(const Entry* e, const YAML::Node& root) const {
    StrategySpec s;
    s.pos = pos(root);
    std::optional<YAML::Node> name_node;
    std::vector<Entry> options;
    if (e) {
      const YAML::Node& n = value(*e, "strategy");
      s.pos = pos(n);
      if (n.IsScalar()) {
        s.name = n.Scalar();
        name_node = n;
      } else {
        for (const auto& f : entries(n, "strategy", {"name", "seed", "options"})) {
          if (f.key == "name") {
            s.name = scalar(value(f, "strategy.name"), "strategy.name");
            name_node = f.value;
          } else if (f.key == "seed") {
            std::string t = scalar(value(f, "strategy.seed"), "strategy.seed");
            auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), s.seed);
            if (t.empty() || ec != std::errc() || ptr != t.data() + t.size())
              fail(f.value, fmt::format("strategy.seed must be an integer in 0..2^64-1, got {}", show(t)));
          } else if (!f.value.IsNull()) {
            options = entries(f.value, "strategy.options");
          }
        }
      }
    }
    // A search asked for without a strategy named (options such as a budget, no name): the default
    // search strategy. No strategy entry at all: exhaustive, every configuration.
    if (!name_node && !options.empty()) s.name = reg_.default_strategy();
    const StrategyInfo* info = reg_.strategy(s.name);
    if (info) s.name = info->name;  // `default` stored as the strategy it stands for
    if (!info) {
      std::vector<std::string> names;
      for (const auto* x : reg_.strategies()) names.push_back(x->name);
      names.push_back("default");
      fail_at(name_node ? pos(*name_node) : s.pos,
              fmt::format("unknown strategy {} (strategies: {})", show(s.name), join(names)));
    }
    std::map<std::string, std::string> given;
    for (const auto& o : options) {
      std::string v = scalar(value(o, "strategy.options." + o.key), "strategy.options." + o.key);
      bool declared =
          std::any_of(info->options.begin(), info->options.end(), [&](const OptionDecl& d) { return d.name == o.key; });
      try {
        resolve_options(*info, {{o.key, v}});
      } catch (const std::invalid_argument& x) {
        fail(declared ? o.value : o.key_node, fmt::format("strategy.options: {}", x.what()));
      }
      given[o.key] = v;
    }
    s.options = resolve_options(*info, given);
    return s;
  }

  // A finite real in (lo, hi] from a scalar; NaN and infinities refused.
  double real(const YAML::Node& v, const std::string& what, double lo, double hi) const {
    std::string t = scalar(v, what);
    double x = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
    if (t.empty() || ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(x))
      fail(v, fmt::format("{} must be a number, got {}", what, show(t)));
    if (!(x > lo) || x > hi) fail(v, fmt::format("{} must be above {} and at most {}, got {}", what, lo, hi, t));
    return x;
  }

  std::string choice(const YAML::Node& v, const std::string& what, std::initializer_list<const char*> allowed) const {
    const std::string t = scalar(v, what);
    std::string list;
    for (const char* a : allowed) {
      if (t == a) return t;
      list += (list.empty() ? "" : ", ") + std::string(a);
    }
    fail(v, fmt::format("{} must be one of {}, got {}", what, list, show(t)));
    return t;
  }

  ConfirmSpec confirm(const YAML::Node& n) const {
    ConfirmSpec c;
    for (const auto& e : entries(n, "measure.confirm", {"top", "within", "max", "rounds", "max_rounds", "max_time_s", "preparations", "sessions"})) {
      const std::string what = "measure.confirm." + e.key;
      const YAML::Node& v = value(e, what);
      if (e.key == "top") c.top = static_cast<int>(integer(v, what, 0, 1000));
      if (e.key == "within") c.within = real(v, what, 0, 100);
      if (e.key == "max") c.max = static_cast<int>(integer(v, what, 1, 1000));
      if (e.key == "rounds") c.rounds = static_cast<int>(integer(v, what, 1, 100000));
      if (e.key == "max_rounds") c.max_rounds = static_cast<int>(integer(v, what, 1, 100000));
      if (e.key == "max_time_s") {
        c.max_time_s = real(v, what, 0, 86400);
        c.max_time_given = true;
      }
      if (e.key == "preparations") c.preparations = static_cast<int>(integer(v, what, 1, 8));
      if (e.key == "sessions") c.sessions = static_cast<int>(integer(v, what, 1, 8));
    }
    c.max_rounds = std::max(c.max_rounds, c.rounds);
    c.max = std::max(c.max, c.top);
    return c;
  }

  MeasureSpec measure(const YAML::Node& n) const {
    MeasureSpec m;
    bool max_given = false, cold_given = false;
    for (const auto& e : entries(n, "measure", {"warmups", "repeats", "max_repeats", "noise", "max_time_s", "race", "cache",
                                                "launch", "confirm", "cold", "timeout_s", "isolation",
                                                "energy_s"})) {
      const std::string what = "measure." + e.key;
      const YAML::Node& v = value(e, what);
      if (e.key == "warmups") m.warmups = static_cast<int>(integer(v, what, 0, kMaxWarmups));
      if (e.key == "repeats") m.repeats = static_cast<int>(integer(v, what, 1, kMaxRepeats));
      if (e.key == "max_repeats") {
        m.max_repeats = static_cast<int>(integer(v, what, 1, kMaxRepeats));
        max_given = true;
      }
      if (e.key == "noise") {
        m.noise = real(v, what, 0, 1);
        m.noise_given = true;
      }
      if (e.key == "max_time_s") {
        m.max_time_s = real(v, what, 0, 86400);
        m.max_time_given = true;
      }
      if (e.key == "race") {  // 0 turns racing off
        m.race = real(v, what, -1, 100);
        if (m.race < 0) fail(v, fmt::format("{} must be 0 (off) or a margin up to 100, got {}", what, scalar(v, what)));
      }
      if (e.key == "cache") m.timing.cold = choice(v, what, {"cold", "hot"}) == "cold";
      if (e.key == "launch") m.timing.hide_launch = choice(v, what, {"hidden", "call"}) == "hidden";
      if (e.key == "confirm") m.confirm = confirm(e.value);
      if (e.key == "cold") {
        cold_given = true;
        for (const auto& c : entries(e.value, "measure.cold", {"top"}))
          m.cold.top = static_cast<int>(integer(value(c, "measure.cold.top"), "measure.cold.top", 0, 1000));
      }
      if (e.key == "isolation") {
        const std::string t = scalar(v, what);
        if (t != "true" && t != "false") fail(v, fmt::format("{} must be true or false, got {}", what, show(t)));
        m.isolation = t == "true";
      }
      if (e.key == "timeout_s") m.timeout_s = real(v, what, 0, kMaxTimeoutS);
      if (e.key == "energy_s") {  // 0 runs no window
        m.energy_s = real(v, what, -1, 600);
        if (m.energy_s < 0)
          fail(v, fmt::format("{} must be 0 (no window) or seconds up to 600, got {}", what, scalar(v, what)));
      }
    }
    if (max_given && m.max_repeats < m.repeats)
      fail(n["max_repeats"], fmt::format("measure.max_repeats ({}) is below measure.repeats ({})", m.max_repeats,
                                         m.repeats));
    m.max_repeats = std::max(m.max_repeats, m.repeats);
    if (m.confirm.top == 0 && !cold_given) m.cold.top = 0;
    return m;
  }
};

}  // namespace

Space load_space_text(const std::string& text, const std::string& file_label, const Registry& registry) {
  return Loader(file_label, registry).load(text);
}

Space load_space(const std::string& path, const Registry& registry) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(path, ec)) throw UsageError(fmt::format("{}: cannot read (no such file)", path));
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("{}: cannot read (a directory)", path));
  if (!fs::is_regular_file(path, ec))
    throw UsageError(fmt::format("{}: cannot read (not a regular file: a device, FIFO or socket)", path));
  std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxFileBytes)
    throw UsageError(fmt::format("{}: cannot read (file of {} bytes; at most {})", path, size, kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read (permission denied or I/O error)", path));
  // Read at most one byte past the limit, whatever the file grew to since its size was taken.
  std::string text(kMaxFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw UsageError(fmt::format("{}: cannot read (I/O error)", path));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return load_space_text(text, path, registry);
}

}  // namespace pimg
