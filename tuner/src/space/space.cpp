// The space file loader: reads the YAML, refuses hostile shapes, and checks every key and value
// against the registry (family attributes, backends, variants and their parameters, strategies).
// Every error is one line, "FILE:LINE:COLUMN: message", thrown as a UsageError.
// This file holds the loading and the helpers; the sections of the file are read in space_problems.cpp,
// space_variants.cpp and space_measure.cpp, and space_loader.hpp declares what they share.
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
#include "space/space_loader.hpp"

namespace pimg::space_detail {

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

namespace {

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

}  // namespace

Space Loader::load(const std::string& text) {
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

// Refuses documents too deep, lists too long, or aliases expanding to too many nodes (a
// self-referencing anchor is too deep).
void Loader::check_shape(const YAML::Node& n, int depth, std::size_t& visited) const {
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
std::vector<Entry> Loader::entries(const YAML::Node& map, const std::string& what,
                           const std::vector<std::string>& allowed) const {
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

std::string Loader::scalar(const YAML::Node& n, const std::string& what) const {
  if (!n.IsScalar()) fail(n, fmt::format("{} must be a value, got {}", what, kind(n)));
  return n.Scalar();
}

// An entry's value when it must not be left empty (an empty value's own mark is the next line).
const YAML::Node& Loader::value(const Entry& e, const std::string& what) const {
  if (e.value.IsNull()) fail(e.key_node, fmt::format("{} needs a value", what));
  return e.value;
}

std::int64_t Loader::integer(const YAML::Node& n, const std::string& what, std::int64_t lo, std::int64_t hi) const {
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
std::vector<YAML::Node> Loader::items(const YAML::Node& n, const std::string& what) const {
  if (n.IsScalar()) return {n};
  if (!n.IsSequence()) fail(n, fmt::format("{} must be a value or a list of values, got {}", what, kind(n)));
  if (n.size() == 0) fail(n, fmt::format("{} has an empty value list", what));
  std::vector<YAML::Node> out;
  for (auto it = n.begin(); it != n.end(); ++it) out.push_back(*it);
  return out;
}

Space Loader::build(const YAML::Node& root) {
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

}  // namespace pimg::space_detail

namespace pimg {

Space load_space_text(const std::string& text, const std::string& file_label, const Registry& registry) {
  return space_detail::Loader(file_label, registry).load(text);
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
