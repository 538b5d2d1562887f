// SearchSpace: an open-addressing hash of coordinate tuples for membership, posting lists per
// parameter value for repairs, and neighbours by one step in one parameter.
#include "pimg/search_space.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "pimg/errors.hpp"

namespace pimg {
namespace {

constexpr PointId kEmpty = UINT32_MAX;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

}  // namespace

SearchSpace::SearchSpace(std::vector<SpaceParam> params, std::vector<std::uint32_t> coords)
    : params_(std::move(params)), coords_(std::move(coords)) {
  size_ = params_.empty() ? coords_.size() : coords_.size() / params_.size();
  PIMG_CHECK(params_.empty() ? size_ <= 1 : size_ * params_.size() == coords_.size(),
             "coordinates do not fill whole points");
  if (params_.empty()) coords_.clear();
  PIMG_CHECK(size_ < kEmpty, "space too large for 32-bit point ids");
  build_index();
}

std::uint64_t SearchSpace::hash(std::span<const std::uint32_t> coords) const {
  std::uint64_t h = 0x243f6a8885a308d3ull;
  for (std::uint32_t c : coords) h = mix(h, c);
  return h;
}

void SearchSpace::build_index() {
  std::size_t cap = 16;
  while (cap < 2 * size_) cap *= 2;
  table_.assign(cap, kEmpty);
  for (PointId p = 0; p < size_; ++p) {
    std::size_t slot = hash(point(p)) & (cap - 1);
    while (table_[slot] != kEmpty) {
      PIMG_CHECK(!std::equal(point(p).begin(), point(p).end(), point(table_[slot]).begin()),
                 "a point appears twice in a search space");
      slot = (slot + 1) & (cap - 1);
    }
    table_[slot] = p;
  }
  postings_.assign(dims(), {});
  for (std::size_t d = 0; d < dims(); ++d) postings_[d].resize(params_[d].values.size() + 1);
  for (PointId p = 0; p < size_; ++p)
    for (std::size_t d = 0; d < dims(); ++d) {
      const std::uint32_t v = coords_[static_cast<std::size_t>(p) * dims() + d];
      postings_[d][v == kAbsent ? params_[d].values.size() : v].push_back(p);
    }
}

std::optional<PointId> SearchSpace::find(std::span<const std::uint32_t> coords) const {
  if (size_ == 0 || coords.size() != dims()) return std::nullopt;
  const std::size_t mask = table_.size() - 1;
  for (std::size_t slot = hash(coords) & mask;; slot = (slot + 1) & mask) {
    const PointId p = table_[slot];
    if (p == kEmpty) return std::nullopt;
    if (std::equal(coords.begin(), coords.end(), point(p).begin())) return p;
  }
}

std::optional<PointId> SearchSpace::find(const Config& c) const {
  std::vector<std::uint32_t> coords(dims(), kAbsent);
  std::size_t matched = 0;
  for (std::size_t d = 0; d < dims(); ++d) {
    if (!c.has(params_[d].name)) continue;
    const Value& v = c.at(params_[d].name);
    const auto& vals = params_[d].values;
    auto it = std::find(vals.begin(), vals.end(), v);
    if (it == vals.end()) return std::nullopt;
    coords[d] = static_cast<std::uint32_t>(it - vals.begin());
    ++matched;
  }
  if (matched != c.values().size()) return std::nullopt;
  return find(coords);
}

Config SearchSpace::config(PointId p) const {
  Config c;
  auto coords = point(p);
  for (std::size_t d = 0; d < dims(); ++d)
    if (coords[d] != kAbsent) c.set(params_[d].name, params_[d].values[coords[d]]);
  return c;
}

void SearchSpace::neighbours(PointId p, std::vector<PointId>& out) const {
  std::vector<std::uint32_t> c(point(p).begin(), point(p).end());
  for (std::size_t d = 0; d < dims(); ++d) {
    const std::uint32_t v = c[d];
    if (v == kAbsent) continue;
    if (v > 0) {
      c[d] = v - 1;
      if (auto q = find(c)) out.push_back(*q);
    }
    if (v + 1 < params_[d].values.size()) {
      c[d] = v + 1;
      if (auto q = find(c)) out.push_back(*q);
    }
    c[d] = v;
  }
}

std::span<const PointId> SearchSpace::with_value(std::size_t param, std::uint32_t value) const {
  const auto& lists = postings_.at(param);
  return lists.at(value == kAbsent ? lists.size() - 1 : value);
}

}  // namespace pimg
