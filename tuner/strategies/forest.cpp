// Model-based search: a small random forest of regression trees predicts log time from the value
// indices; the next points are the candidates of highest expected improvement (mean and spread over
// the trees). Stored results of other sizes and devices (prior()) train the model from the first
// ask, each group's log times centred on their mean so that only the shape of the landscape carries
// over; without them the first `init` points are random.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

struct Tree {
  struct Node {
    int feature = -1;  // -1: a leaf
    double threshold = 0, value = 0;
    int left = -1, right = -1;
  };
  std::vector<Node> nodes;
  double predict(const double* x) const {
    int i = 0;
    while (nodes[i].feature >= 0) i = x[nodes[i].feature] <= nodes[i].threshold ? nodes[i].left : nodes[i].right;
    return nodes[i].value;
  }
};

class TreeBuilder {
 public:
  TreeBuilder(const std::vector<double>& x, const std::vector<double>& y, std::size_t dims, Rng& rng)
      : x_(x), y_(y), dims_(dims), rng_(rng) {}
  Tree build(std::vector<std::size_t> rows) {
    Tree t;
    grow(t, rows, 0);
    return t;
  }

 private:
  static constexpr std::size_t kMinLeaf = 2, kMaxDepth = 12;

  int grow(Tree& t, std::vector<std::size_t>& rows, std::size_t depth) {
    const int id = static_cast<int>(t.nodes.size());
    t.nodes.emplace_back();
    double sum = 0;
    for (auto r : rows) sum += y_[r];
    t.nodes[id].value = sum / static_cast<double>(rows.size());
    if (rows.size() < 2 * kMinLeaf || depth >= kMaxDepth) return id;
    // Best split over a random half of the features (at least one): largest drop in squared error.
    double best_gain = 1e-12, best_threshold = 0;
    int best_feature = -1;
    std::vector<std::size_t> features(dims_);
    std::iota(features.begin(), features.end(), std::size_t{0});
    for (std::size_t i = features.size(); i > 1; --i) std::swap(features[i - 1], features[rng_.below(i)]);
    features.resize(std::max<std::size_t>(1, (dims_ + 1) / 2));
    const double n = static_cast<double>(rows.size());
    for (std::size_t f : features) {
      std::sort(rows.begin(), rows.end(), [&](auto a, auto b) { return x_[a * dims_ + f] < x_[b * dims_ + f]; });
      double left = 0;
      for (std::size_t i = 1; i < rows.size(); ++i) {
        left += y_[rows[i - 1]];
        const double xa = x_[rows[i - 1] * dims_ + f], xb = x_[rows[i] * dims_ + f];
        if (xa == xb || i < kMinLeaf || rows.size() - i < kMinLeaf) continue;
        const double nl = static_cast<double>(i), right = sum - left;
        const double gain = left * left / nl + right * right / (n - nl) - sum * sum / n;
        if (gain > best_gain) {
          best_gain = gain;
          best_feature = static_cast<int>(f);
          best_threshold = (xa + xb) / 2;
        }
      }
    }
    if (best_feature < 0) return id;
    std::vector<std::size_t> l, r;
    for (auto row : rows) (x_[row * dims_ + best_feature] <= best_threshold ? l : r).push_back(row);
    const int li = grow(t, l, depth + 1);
    const int ri = grow(t, r, depth + 1);
    t.nodes[id].feature = best_feature;
    t.nodes[id].threshold = best_threshold;
    t.nodes[id].left = li;
    t.nodes[id].right = ri;
    return id;
  }

  const std::vector<double>& x_;
  const std::vector<double>& y_;
  std::size_t dims_;
  Rng& rng_;
};

// Log times centred on the mean of their group; failures one above the group's worst.
std::vector<double> centred(const std::vector<double>& cost) {
  double sum = 0, worst = 0;
  std::size_t ok = 0;
  for (double c : cost)
    if (std::isfinite(c)) {
      sum += std::log(c);
      ++ok;
    }
  const double mean = ok ? sum / static_cast<double>(ok) : 0;
  std::vector<double> y;
  for (double c : cost) y.push_back(std::isfinite(c) ? std::log(c) - mean : 0);
  for (std::size_t i = 0; i < cost.size(); ++i)
    if (std::isfinite(cost[i])) worst = std::max(worst, y[i]);
  for (std::size_t i = 0; i < cost.size(); ++i)
    if (!std::isfinite(cost[i])) y[i] = worst + 1;
  return y;
}

class Forest final : public SearchStrategy {
 public:
  Forest(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed),
        init_(std::stoull(o.at("init"))),
        trees_(std::stoull(o.at("trees"))),
        candidates_(std::stoull(o.at("candidates"))),
        refit_(std::stoull(o.at("refit"))),
        prior_max_(std::stoull(o.at("prior_max"))) {}

  void prior(const std::vector<PriorResult>& results) override {
    std::map<std::string, std::pair<std::vector<std::vector<double>>, std::vector<double>>> groups;
    for (const auto& r : results) {
      auto x = features_of(r.config);
      if (!x) continue;
      auto& g = groups[r.group];
      g.first.push_back(std::move(*x));
      g.second.push_back(r.median_ms ? *r.median_ms : kFailed);
    }
    std::vector<std::pair<std::vector<double>, double>> all;
    for (auto& [_, g] : groups) {
      auto y = centred(g.second);
      for (std::size_t i = 0; i < y.size(); ++i) all.emplace_back(std::move(g.first[i]), y[i]);
    }
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng_.below(i)]);
    if (all.size() > prior_max_) all.resize(prior_max_);
    prior_x_.clear();
    prior_y_.clear();
    for (auto& [x, y] : all) {
      prior_x_.insert(prior_x_.end(), x.begin(), x.end());
      prior_y_.push_back(y);
    }
  }

 private:
  std::optional<PointId> propose() override {
    while (!queue_.empty() && since_fit_ < refit_) {
      const PointId p = queue_.back();
      queue_.pop_back();
      if (!visited(p)) return p;
    }
    std::size_t own_ok = 0;
    for (double c : own_cost_) own_ok += std::isfinite(c);
    if (own_ok < init_ && prior_y_.empty()) return std::nullopt;
    fit();
    rank();
    since_fit_ = 0;
    if (queue_.empty()) return std::nullopt;
    const PointId p = queue_.back();
    queue_.pop_back();
    return p;
  }

  void learn(PointId p, double cost) override {
    own_.push_back(p);
    own_cost_.push_back(cost);
    ++since_fit_;
  }

  std::optional<std::vector<double>> features_of(const Config& c) const {
    std::vector<double> x(space_.dims(), -1);
    std::size_t matched = 0;
    for (std::size_t d = 0; d < space_.dims(); ++d) {
      const auto& prm = space_.params()[d];
      if (!c.has(prm.name)) continue;
      auto it = std::find(prm.values.begin(), prm.values.end(), c.at(prm.name));
      if (it == prm.values.end()) return std::nullopt;
      x[d] = static_cast<double>(it - prm.values.begin());
      ++matched;
    }
    if (matched != c.values().size()) return std::nullopt;
    return x;
  }

  void features(PointId p, double* out) const {
    auto c = space_.point(p);
    for (std::size_t d = 0; d < c.size(); ++d) out[d] = c[d] == SearchSpace::kAbsent ? -1 : c[d];
  }

  void fit() {
    const std::size_t dims = space_.dims();
    x_ = prior_x_;
    y_ = prior_y_;
    own_y_ = centred(own_cost_);
    for (std::size_t i = 0; i < own_.size(); ++i) {
      x_.resize(x_.size() + dims);
      features(own_[i], x_.data() + x_.size() - dims);
      y_.push_back(own_y_[i]);
    }
    forest_.clear();
    if (y_.empty()) return;
    TreeBuilder builder(x_, y_, std::max<std::size_t>(dims, 1), rng_);
    for (std::size_t t = 0; t < trees_; ++t) {
      std::vector<std::size_t> rows(y_.size());
      for (auto& r : rows) r = rng_.below(y_.size());  // bootstrap
      forest_.push_back(builder.build(std::move(rows)));
    }
  }

  // Candidates: random unvisited points and the unvisited neighbours of the best points so far,
  // ranked by expected improvement; the best `refit` of them are asked before the next fit.
  void rank() {
    queue_.clear();
    std::vector<PointId> cand;
    for (std::size_t tries = 0; cand.size() < candidates_ && tries < 4 * candidates_; ++tries) {
      const auto p = static_cast<PointId>(rng_.below(space_.size()));
      if (!visited(p)) cand.push_back(p);
    }
    std::vector<std::size_t> order(own_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return own_cost_[a] < own_cost_[b]; });
    for (std::size_t i = 0; i < std::min<std::size_t>(3, order.size()); ++i) {
      std::vector<PointId> n;
      space_.neighbours(own_[order[i]], n);
      for (PointId q : n)
        if (!visited(q)) cand.push_back(q);
    }
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    if (cand.empty() || forest_.empty()) return;
    std::vector<double> x(std::max<std::size_t>(space_.dims(), 1));
    std::vector<std::pair<double, PointId>> scored;
    std::vector<double> mu(cand.size()), sd(cand.size());
    for (std::size_t i = 0; i < cand.size(); ++i) {
      features(cand[i], x.data());
      double s = 0, s2 = 0;
      for (const auto& t : forest_) {
        const double v = t.predict(x.data());
        s += v;
        s2 += v * v;
      }
      const double k = static_cast<double>(forest_.size());
      mu[i] = s / k;
      sd[i] = std::sqrt(std::max(0.0, s2 / k - mu[i] * mu[i])) + 1e-9;
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < own_.size(); ++i)
      if (std::isfinite(own_cost_[i])) best = std::min(best, own_y_[i]);
    if (!std::isfinite(best)) best = *std::min_element(mu.begin(), mu.end());
    for (std::size_t i = 0; i < cand.size(); ++i) {
      const double z = (best - mu[i]) / sd[i];
      const double ei = (best - mu[i]) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
                        sd[i] * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      scored.emplace_back(ei, cand[i]);
    }
    // Highest expected improvement last (popped first); ties by point id keep runs reproducible.
    std::sort(scored.begin(), scored.end());
    const std::size_t keep = std::min(refit_, scored.size());
    for (std::size_t i = scored.size() - keep; i < scored.size(); ++i) queue_.push_back(scored[i].second);
  }

  std::size_t init_, trees_, candidates_, refit_, prior_max_;
  std::vector<double> prior_x_, prior_y_;
  std::vector<PointId> own_;
  std::vector<double> own_cost_, own_y_;
  std::vector<double> x_, y_;
  std::vector<Tree> forest_;
  std::vector<PointId> queue_;
  std::size_t since_fit_ = 0;
};

}  // namespace

StrategyInfo forest_strategy() {
  using T = OptionDecl::Type;
  return {"forest",
          "model-based: random-forest surrogate with expected improvement; learns from stored results of other "
          "sizes and devices",
          with_budget_options({{T::Int, "init", "10", "random points before the model is used (without priors)", 1,
                                std::nullopt},
                               {T::Int, "trees", "12", "regression trees in the forest", 1, 1000},
                               {T::Int, "candidates", "256", "random candidates scored per fit", 1, 1000000},
                               {T::Int, "refit", "4", "points asked between two fits", 1, 100000},
                               {T::Int, "prior_max", "600", "stored results of earlier runs used at most", 0,
                                std::nullopt}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<Forest>(space, o, seed);
          }};
}

}  // namespace pimg
