// The valid points of a parameter space as coordinates (each parameter's value index), built without
// materialising configurations: membership in O(1), constraint-aware neighbours, and a Config only
// when a point is handed to a runner. Strategies work on point ids of this class.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "pimg/config.hpp"

namespace pimg {

using PointId = std::uint32_t;

struct SpaceParam {
  std::string name;
  std::vector<Value> values;  // the order "one step" refers to
};

class SearchSpace {
 public:
  // A coordinate that marks a parameter the point does not have (a union of variants' spaces).
  static constexpr std::uint32_t kAbsent = UINT32_MAX;

  SearchSpace() = default;
  // `coords` holds size * params.size() value indices, point after point, no point twice. A space
  // without parameters has at most one point, the empty configuration: pass one coordinate for it.
  SearchSpace(std::vector<SpaceParam> params, std::vector<std::uint32_t> coords);

  std::size_t size() const { return size_; }
  std::size_t dims() const { return params_.size(); }
  const std::vector<SpaceParam>& params() const { return params_; }
  std::span<const std::uint32_t> point(PointId p) const {
    return {coords_.data() + static_cast<std::size_t>(p) * dims(), dims()};
  }
  std::optional<PointId> find(std::span<const std::uint32_t> coords) const;
  std::optional<PointId> find(const Config& c) const;  // nullopt: not a valid point
  Config config(PointId p) const;

  // Valid points that differ from p in exactly one parameter by one step in its value list
  // (appended to out, in parameter order, the lower step first).
  void neighbours(PointId p, std::vector<PointId>& out) const;
  // Points whose coordinate `param` is `value` (a posting list, in id order).
  std::span<const PointId> with_value(std::size_t param, std::uint32_t value) const;
  // A space too large to list is a uniform sample of its valid points (VariantSpace::search_space):
  // then the number of raw configurations it was drawn from; 0 when every valid point is here.
  std::uint64_t sampled_from() const { return sampled_from_; }
  void mark_sampled(std::uint64_t raw) { sampled_from_ = raw; }

 private:
  std::uint64_t hash(std::span<const std::uint32_t> coords) const;
  void build_index();

  std::vector<SpaceParam> params_;
  std::vector<std::uint32_t> coords_;
  std::size_t size_ = 0;
  std::uint64_t sampled_from_ = 0;
  std::vector<PointId> table_;  // open addressing, kEmpty where free
  std::vector<std::vector<std::vector<PointId>>> postings_;  // [param][value] (kAbsent: last slot)
};

}  // namespace pimg
