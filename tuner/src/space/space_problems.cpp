// The space file's problems: each entry's sizes, channels and family attributes (values, lists, matrices)
// expanded into every combination, each made by the family.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "pimg/errors.hpp"
#include "pimg/registry.hpp"
#include "pimg/space.hpp"
#include "pimg/suggest.hpp"
#include "space/space_loader.hpp"

namespace pimg::space_detail {

std::vector<Problem> Loader::problems(const YAML::Node& list, std::vector<SourcePos>& where) {
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

Choice Loader::size_choice(const YAML::Node& n) const {
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
bool Loader::is_matrix(const YAML::Node& n) {
  if (!n.IsSequence() || n.size() == 0) return false;
  for (auto r = n.begin(); r != n.end(); ++r) {
    if (!r->IsSequence() || r->size() == 0) return false;
    for (auto c = r->begin(); c != r->end(); ++c)
      if (!c->IsScalar()) return false;
  }
  return true;
}

std::string Loader::matrix_text(const YAML::Node& n) {
  std::string out;
  for (auto r = n.begin(); r != n.end(); ++r) {
    if (r != n.begin()) out += ';';
    for (auto c = r->begin(); c != r->end(); ++c) out += (c == r->begin() ? "" : ",") + c->Scalar();
  }
  return out;
}

std::vector<Choice> Loader::attr_choices(const Entry& e, const AttrSpec& spec) const {
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

void Loader::expand(const YAML::Node& entry_node, const std::vector<std::string>& allowed, std::vector<Problem>& out) {
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

}  // namespace pimg::space_detail
