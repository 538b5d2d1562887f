// The shared machinery of searching strategies: generator, budgets, visited set, sampling, repair.
#include "pimg/search_strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "pimg/errors.hpp"

namespace pimg {
namespace {

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

// Calls f with line[d] at each value of parameter d other than c[d] (none where c lacks d), then puts c[d]
// back: the neighbours' loops over one changed parameter, nested for two.
template <class Coords, class F>
void each_other_value(const SearchSpace& space, std::vector<std::uint32_t>& line, const Coords& c, std::size_t d,
                      F&& f) {
  if (c[d] == SearchSpace::kAbsent) return;
  const auto n = static_cast<std::uint32_t>(space.params()[d].values.size());
  for (std::uint32_t v = 0; v < n; ++v) {
    if (v == c[d]) continue;
    line[d] = v;
    f();
  }
  line[d] = c[d];
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::size_t Rng::below(std::size_t n) {
  PIMG_CHECK(n > 0, "Rng::below(0)");
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // rejection keeps it exactly uniform
  std::uint64_t x;
  do x = next();
  while (x >= limit);
  return static_cast<std::size_t>(x % n);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::vector<OptionDecl> budget_options(const char* default_fraction) {
  using T = OptionDecl::Type;
  return {{T::Int, "budget", "0", "evaluations at most (0: use fraction)", 0, std::nullopt},
          {T::Real, "fraction", default_fraction, "share of the space to evaluate when budget is 0", 0, 1},
          {T::Real, "time_s", "0", "wall-time limit in seconds (0: none)", 0, std::nullopt},
          {T::Int, "plateau", "0", "stop after this many evaluations without a better result (0: never)", 0,
           std::nullopt}};
}

std::vector<OptionDecl> with_budget_options(std::vector<OptionDecl> own, const char* default_fraction) {
  auto out = budget_options(default_fraction);
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

Budget Budget::from(const OptionValues& o, std::size_t space_size) {
  Budget b;
  b.evaluations = std::stoull(o.at("budget"));
  if (b.evaluations == 0) {
    const double f = std::clamp(std::stod(o.at("fraction")), 0.0, 1.0);
    b.evaluations = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(f * static_cast<double>(space_size))));
  }
  b.evaluations = std::min(b.evaluations, space_size);
  b.seconds = std::stod(o.at("time_s"));
  b.plateau = std::stoull(o.at("plateau"));
  return b;
}

SearchStrategy::SearchStrategy(const SearchSpace& space, const OptionValues& o, std::uint64_t seed)
    : Strategy(space), rng_(seed), budget_(Budget::from(o, space.size())), visited_(space.size(), 0) {}

std::optional<PointId> SearchStrategy::ask() {
  if (asked_ >= budget_.evaluations || visited_count_ >= space_.size()) return std::nullopt;
  if (budget_.plateau && since_better_ >= budget_.plateau) return std::nullopt;
  const auto now = std::chrono::steady_clock::now();
  if (!started_) started_ = now;
  if (budget_.seconds > 0 && std::chrono::duration<double>(now - *started_).count() >= budget_.seconds)
    return std::nullopt;
  std::optional<PointId> p = propose();
  if (!p || visited(*p)) p = random_unvisited();
  PIMG_CHECK(p && !visited(*p), "no unvisited point although the space is not exhausted");
  visited_[*p] = 1;
  ++visited_count_;
  ++asked_;
  last_asked_ = p;
  return p;
}

void SearchStrategy::observe(PointId p, const Outcome& o) {
  // A point told without being asked (a portfolio tells each member what another one asked) is
  // visited too, so it is never proposed again.
  if (p < visited_.size() && !visited_[p]) {
    visited_[p] = 1;
    ++visited_count_;
  }
  own_outcome_ = last_asked_ == p;
  if (own_outcome_) last_asked_.reset();
  const double cost = o.status == Status::ok ? o.median_ms : kFailed;
  if (cost < best_cost_) {
    best_cost_ = cost;
    best_ = p;
    since_better_ = 0;
  } else {
    ++since_better_;
  }
  learn(p, cost);
}

std::vector<PointId> SearchStrategy::random_unvisited_ahead(std::size_t n) const {
  Rng rng = rng_;
  std::vector<PointId> order = order_;
  if (order.empty()) {
    order.resize(space_.size());
    std::iota(order.begin(), order.end(), PointId{0});
  }
  std::vector<PointId> out;
  for (std::size_t drawn = drawn_; out.size() < n && drawn < order.size();) {
    const std::size_t j = drawn + rng.below(order.size() - drawn);
    std::swap(order[drawn], order[j]);
    const PointId p = order[drawn++];
    if (!visited(p)) out.push_back(p);
  }
  return out;
}

std::optional<PointId> SearchStrategy::random_unvisited() {
  if (order_.empty()) {
    order_.resize(space_.size());
    std::iota(order_.begin(), order_.end(), PointId{0});
  }
  while (drawn_ < order_.size()) {
    const std::size_t j = drawn_ + rng_.below(order_.size() - drawn_);
    std::swap(order_[drawn_], order_[j]);
    const PointId p = order_[drawn_++];
    if (!visited(p)) return p;
  }
  return std::nullopt;
}

std::optional<PointId> SearchStrategy::random_unvisited_neighbour(PointId p) {
  scratch_.clear();
  space_.neighbours(p, scratch_);
  std::erase_if(scratch_, [&](PointId q) { return visited(q); });
  if (scratch_.empty()) return std::nullopt;
  return scratch_[rng_.below(scratch_.size())];
}

void SearchStrategy::any_value_neighbours(PointId p, std::vector<PointId>& out) const {
  const auto c = space_.point(p);
  std::vector<std::uint32_t> line(c.begin(), c.end());
  for (std::size_t d = 0; d < line.size(); ++d)
    each_other_value(space_, line, c, d, [&] {
      if (auto q = space_.find(line)) out.push_back(*q);
    });
}

void SearchStrategy::pair_neighbours(PointId p, std::vector<PointId>& out) const {
  const auto c = space_.point(p);
  std::vector<std::uint32_t> line(c.begin(), c.end());
  for (std::size_t d = 0; d < line.size(); ++d)
    for (std::size_t e = d + 1; e < line.size(); ++e)
      each_other_value(space_, line, c, d, [&] {
        each_other_value(space_, line, c, e, [&] {
          if (auto q = space_.find(line)) out.push_back(*q);
        });
      });
}

std::optional<PointId> SearchStrategy::repair(std::span<const std::uint32_t> coords) {
  if (auto p = space_.find(coords); p && !visited(*p)) return p;
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < coords.size(); ++d)
    if (coords[d] != SearchSpace::kAbsent) dims.push_back(d);
  if (dims.empty()) return std::nullopt;
  constexpr std::size_t kSamples = 48;
  std::optional<PointId> best;
  std::size_t best_dist = 0;
  for (std::size_t attempt = 0; attempt < 3 && !best; ++attempt) {
    const std::size_t d = dims[rng_.below(dims.size())];
    auto list = space_.with_value(d, coords[d]);
    if (list.empty()) continue;
    // The samples are drawn first (the same draws, in the same order, as one at a time) and their
    // visited flags and coordinates prefetched, so the random reads of a large space overlap
    // instead of waiting one after another.
    const std::size_t n = std::min(kSamples, list.size());
    PointId sample[kSamples];
    for (std::size_t s = 0; s < n; ++s) {
      sample[s] = list.size() <= kSamples ? list[s] : list[rng_.below(list.size())];
      __builtin_prefetch(&visited_[sample[s]]);
      __builtin_prefetch(space_.point(sample[s]).data());
    }
    for (std::size_t s = 0; s < n; ++s) {
      const PointId q = sample[s];
      if (visited(q)) continue;
      // Integer distance, given up once it cannot beat the nearest so far (the same pick).
      std::size_t dist = 0;
      auto qc = space_.point(q);
      for (std::size_t k = 0; k < coords.size() && !(best && dist >= best_dist); ++k) {
        if ((qc[k] == SearchSpace::kAbsent) != (coords[k] == SearchSpace::kAbsent))
          dist += 4;
        else if (qc[k] != SearchSpace::kAbsent)
          dist += qc[k] > coords[k] ? qc[k] - coords[k] : coords[k] - qc[k];
      }
      if (!best || dist < best_dist) {
        best = q;
        best_dist = dist;
      }
    }
  }
  return best;
}

}  // namespace pimg
