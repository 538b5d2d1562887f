// Bayesian optimisation that respects the space: a Gaussian process over the points' scaled value
// indices models log time, and the next point is the candidate of highest expected improvement
// (random unvisited points, the unvisited neighbours of the best ones and crossover children of the
// best ones repaired to valid points, so every proposal is valid). Failed configurations are learnt as slow (a step above the slowest ok one), so the model
// steers away from regions that fail. Stored results of the same kernel on other devices and sizes
// (prior()) give the process its mean: each point's prior is its mean centred log time over those
// groups, and the first points asked are the best of them instead of random ones.
// With `pow2` an integer parameter whose values mix powers of two and others gets a second kernel
// dimension, whether the value is a power of two: on a GPU such values (block and tile sizes that
// divide warps, memory transactions and power-of-two problem sizes) often differ from their
// neighbours in the value list by a factor, which a kernel over value indices alone smooths away.
// Cost per proposal: the kernel is a product of per-parameter factors looked up by index distance,
// and the Cholesky factor of the training set is updated (rows removed and appended), not refactorised.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <variant>
#include <vector>

#include "pimg/cholesky.hpp"
#include "pimg/search_strategy.hpp"
#include "pimg/strategies.hpp"

namespace pimg {
namespace {

class GaussianProcess final : public SearchStrategy {
 public:
  GaussianProcess(const SearchSpace& s, const OptionValues& o, std::uint64_t seed)
      : SearchStrategy(s, o, seed),
        init_(std::stoull(o.at("init"))),
        length_(std::stod(o.at("length"))),
        candidates_(std::stoull(o.at("candidates"))),
        max_points_(std::stoull(o.at("max_points"))),
        explore_(std::stod(o.at("explore"))),
        local_(std::stod(o.at("local"))),
        children_(std::stoull(o.at("children"))),
        evolve_(std::stod(o.at("evolve"))),
        any_value_(std::stoi(o.at("any_value")) == 1),
        pairs_(std::stoull(o.at("pairs"))),
        learn_(std::stoull(o.at("learn"))) {
    pow2_.resize(space_.dims());
    if (std::stoi(o.at("pow2")) == 1)
      for (std::size_t d = 0; d < space_.dims(); ++d) {
        // An integer parameter with at least two powers of two and two other values among its values.
        auto& code = pow2_[d];
        std::size_t powers = 0;
        for (const auto& v : space_.params()[d].values) {
          const auto* i = std::get_if<std::int64_t>(&v);
          if (!i) break;
          code.push_back(*i > 0 && (*i & (*i - 1)) == 0);
          powers += code.back();
        }
        if (code.size() == space_.params()[d].values.size() && powers >= 2 && code.size() - powers >= 2)
          ++pow2_count_;
        else
          code.clear();
      }
  }

  void prior(const std::vector<PriorResult>& results) override {
    // Per group, log times centred on the group's mean (failures a step above its slowest), then
    // averaged per point over the groups that hold it.
    std::map<std::string, std::vector<std::pair<PointId, double>>> groups;
    for (const auto& r : results)
      if (auto p = space_.find(r.config)) groups[r.group].emplace_back(*p, r.median_ms ? *r.median_ms : kFailed);
    std::vector<double> sum(space_.size(), 0);
    std::vector<std::uint32_t> count(space_.size(), 0);
    for (const auto& [_, g] : groups) {
      double mean = 0, worst = -1e300;
      std::size_t ok = 0;
      for (const auto& [p, c] : g)
        if (std::isfinite(c)) mean += std::log(c), ++ok;
      if (ok < 2) continue;
      mean /= static_cast<double>(ok);
      for (const auto& [p, c] : g)
        if (std::isfinite(c)) worst = std::max(worst, std::log(c) - mean);
      for (const auto& [p, c] : g) {
        sum[p] += std::isfinite(c) ? std::log(c) - mean : worst + kFailStep;
        ++count[p];
      }
    }
    prior_.assign(space_.size(), 0);
    prior_order_.clear();
    for (PointId p = 0; p < space_.size(); ++p)
      if (count[p]) {
        prior_[p] = sum[p] / count[p];
        prior_order_.push_back(p);
      }
    has_prior_ = !prior_order_.empty();
    if (!has_prior_) prior_.clear();
    // Best prior first; ties by id keep runs reproducible.
    std::stable_sort(prior_order_.begin(), prior_order_.end(), [&](PointId a, PointId b) { return prior_[a] < prior_[b]; });
  }

 private:
  static constexpr double kFailStep = 1.0;  // failures: this far (in log time) above the slowest ok point
  static constexpr double kNugget = 1e-2;   // observation noise, relative to the signal variance
  struct Bound {
    double ei, mu;
    std::size_t index;
  };

  std::optional<PointId> propose() override {
    if (own_.size() < init_) {
      if (has_prior_) {
        while (next_prior_ < prior_order_.size())
          if (const PointId p = prior_order_[next_prior_++]; !visited(p)) return p;
      }
      return std::nullopt;  // a random unvisited point
    }
    if (best_ && rng_.chance(local_))
      if (auto q = random_unvisited_neighbour(*best_)) return q;
    if (rng_.chance(evolve_))
      if (auto q = child()) return q;
    return best_candidate();
  }

  void learn(PointId p, double cost) override {
    own_.push_back(p);
    own_cost_.push_back(cost);
  }

  // A child of the best points: uniform crossover of two of the best 16, each value mutated with
  // chance 0.2, repaired to a valid unvisited point. Children reach beyond the neighbourhoods while
  // keeping what the best points share.
  std::optional<PointId> child() {
    if (own_.size() < 2) return std::nullopt;
    if (elite_at_ != own_.size()) {
      elite_.resize(own_.size());
      std::iota(elite_.begin(), elite_.end(), std::size_t{0});
      const std::size_t n = std::min<std::size_t>(16, elite_.size());
      std::partial_sort(elite_.begin(), elite_.begin() + static_cast<std::ptrdiff_t>(n), elite_.end(),
                        [&](auto a, auto b) { return own_cost_[a] < own_cost_[b]; });
      elite_.resize(n);
      elite_at_ = own_.size();
    }
    const auto a = space_.point(own_[elite_[rng_.below(elite_.size())]]);
    const auto b = space_.point(own_[elite_[rng_.below(elite_.size())]]);
    line_.resize(a.size());
    for (std::size_t d = 0; d < a.size(); ++d) {
      line_[d] = rng_.chance(0.5) ? a[d] : b[d];
      const std::size_t n = space_.params()[d].values.size();
      if (line_[d] != SearchSpace::kAbsent && n > 1 && rng_.chance(0.2)) line_[d] = static_cast<std::uint32_t>(rng_.below(n));
    }
    return repair(line_);
  }

  double mean_of(PointId p) const { return has_prior_ ? slope_ * prior_[p] : 0; }

  // exp(-|a-b|^2 / 2 length^2) over the scaled coordinates, as a product of per-parameter factors
  // looked up by the index distance (the last entry: present in one point only), so no exp per pair;
  // a parameter with a power-of-two dimension times that dimension's factor where the two differ in it.
  using Factors = std::vector<std::vector<double>>;
  double kernel(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b) const { return kernel(a, b, factor_); }
  double kernel(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, const Factors& factor) const {
    double k = 1;
    for (std::size_t d = 0; d < a.size(); ++d) {
      const auto& f = factor[d];
      if (f.empty()) continue;
      const bool aa = a[d] == SearchSpace::kAbsent, ba = b[d] == SearchSpace::kAbsent;
      if (aa || ba) {
        if (aa != ba) k *= f.back();
      } else {
        const double by_index = f[a[d] > b[d] ? a[d] - b[d] : b[d] - a[d]];
        const auto& code = pow2_[d];
        k *= code.empty() || code[a[d]] == code[b[d]] ? by_index : by_index * factor[a.size()][1];
      }
    }
    return k;
  }

  // The kernel between point c and every training point (pts_), into out: per parameter, c's
  // factor against each value index (the last: absent) is tabled once (ftab_), and the training
  // points' indices (train_, one column per parameter) pick from it, so each entry is a product of
  // lookups kept in a register. Same products, in the same order, as kernel().
  void kernel_row(std::span<const std::uint32_t> c, double* out) {
    const std::size_t m = pts_.size();
    ftab_.resize(c.size());
    tab_.clear();
    idx_.clear();
    for (std::size_t d = 0; d < c.size(); ++d) {
      const auto& f = factor_[d];
      if (f.empty()) continue;
      const std::size_t n = f.size() - 1;  // values; index n: absent
      auto& r = ftab_[d];
      r.resize(n + 1);
      if (c[d] == SearchSpace::kAbsent) {
        std::fill(r.begin(), r.end() - 1, f.back());
        r[n] = 1;
      } else {
        for (std::size_t x = 0; x < n; ++x) r[x] = f[c[d] > x ? c[d] - x : x - c[d]];
        if (const auto& code = pow2_[d]; !code.empty()) {  // times the power-of-two dimension's factor
          const double g = factor_[c.size()][1];
          for (std::size_t x = 0; x < n; ++x)
            if (code[x] != code[c[d]]) r[x] *= g;
        }
        r[n] = f.back();
      }
      tab_.push_back(r.data());
      idx_.push_back(&train_[d * m]);
    }
    const std::size_t dims = tab_.size();
    for (std::size_t i = 0; i < m; ++i) {
      double k = 1;
      for (std::size_t j = 0; j < dims; ++j) k *= tab_[j][idx_[j][i]];
      out[i] = k;
    }
  }

  // Per parameter, the kernel's factor by index distance for the given length scales.
  Factors factors(const std::vector<double>& lengths) const {
    Factors out;
    for (std::size_t d = 0; d < space_.dims(); ++d) {
      const std::size_t n = space_.params()[d].values.size();
      auto& f = out.emplace_back();
      if (n < 2) continue;  // one value: no distance
      for (std::size_t i = 0; i <= n; ++i) {
        const double diff = i < n ? static_cast<double>(i) / static_cast<double>(n - 1) : 1.0;
        f.push_back(std::exp(-diff * diff / (2 * lengths[d] * lengths[d])));
      }
    }
    if (pow2_count_) {  // by the number of parameters whose power-of-two-ness differs
      const double l = lengths[space_.dims()], g = std::exp(-1.0 / (2 * l * l));
      auto& f = out.emplace_back(1, 1.0);
      for (std::size_t i = 0; i < pow2_count_; ++i) f.push_back(f.back() * g);
    }
    return out;
  }

  // Minus the log marginal likelihood of y over the points pair_ was built for (the signal variance
  // profiled out). The kernel of pair p is the product over parameters of the factor pair_ names
  // for it (the same products, in the same order, as kernel()).
  double neg_log_likelihood(const std::vector<double>& y, const Factors& f) {
    const std::size_t n = y.size(), pairs = n * (n - 1) / 2;
    kpair_.assign(pairs, 1.0);
    for (std::size_t d = 0; d < f.size(); ++d) {
      if (f[d].empty()) continue;
      table_.assign(f[d].begin(), f[d].end());
      table_.push_back(1.0);  // absent in both points
      const std::uint32_t* idx = &pair_[d * pairs];
      for (std::size_t p = 0; p < pairs; ++p) kpair_[p] *= table_[idx[p]];
    }
    scratch_chol_.clear();
    for (std::size_t i = 0; i < n; ++i) scratch_chol_.append({&kpair_[i * (i - 1) / 2], i}, 1 + kNugget);
    std::vector<double> q = y;
    scratch_chol_.forward(q);
    double yky = 0, logdet = 0;
    for (double v : q) yky += v * v;
    for (std::size_t i = 0; i < n; ++i) logdet += 2 * std::log(scratch_chol_.at(i, i));
    return 0.5 * static_cast<double>(n) * std::log(std::max(yky / static_cast<double>(n), 1e-12)) + 0.5 * logdet;
  }

  // Automatic relevance determination on a budget: one pass of coordinate search over each
  // parameter's length scale (a grid), by the marginal likelihood of at most 64 training points
  // (spread evenly over the set). True when a length changed.
  bool learn_lengths() {
    static constexpr double kGrid[] = {0.1, 0.2, 0.35, 0.6, 1.0, 2.0};
    std::vector<PointId> pts;
    std::vector<double> y;
    const std::size_t n = pts_.size(), take = std::min<std::size_t>(n, 64);
    for (std::size_t k = 0; k < take; ++k) {
      pts.push_back(pts_[k * n / take]);
      y.push_back(y_[k * n / take]);
    }
    // Per parameter and pair of points (row i, column j < i), the index into the parameter's
    // factor table: the index distance, the value count (absent in one), one more (absent in both).
    const std::size_t pairs = take * (take - 1) / 2;
    pair_.assign((space_.dims() + (pow2_count_ > 0)) * pairs, 0);
    for (std::size_t d = 0; d < space_.dims(); ++d) {
      const std::size_t nv = space_.params()[d].values.size();
      if (nv < 2) continue;
      std::uint32_t* idx = &pair_[d * pairs];
      for (std::size_t i = 0, p = 0; i < take; ++i)
        for (std::size_t j = 0; j < i; ++j, ++p) {
          const std::uint32_t a = space_.point(pts[i])[d], b = space_.point(pts[j])[d];
          const bool aa = a == SearchSpace::kAbsent, ba = b == SearchSpace::kAbsent;
          const std::size_t k = aa && ba ? nv + 1 : aa || ba ? nv : a > b ? a - b : b - a;
          idx[p] = static_cast<std::uint32_t>(k);
        }
    }
    for (std::size_t d = 0; d < space_.dims(); ++d) {  // the power-of-two dimension: parameters that differ in it
      const auto& code = pow2_[d];
      if (code.empty()) continue;
      std::uint32_t* idx = &pair_[space_.dims() * pairs];
      for (std::size_t i = 0, p = 0; i < take; ++i)
        for (std::size_t k = 0; k < i; ++k, ++p) {
          const std::uint32_t a = space_.point(pts[i])[d], b = space_.point(pts[k])[d];
          idx[p] += a != SearchSpace::kAbsent && b != SearchSpace::kAbsent && code[a] != code[b];
        }
    }
    std::vector<double> lengths = lengths_;
    double best = neg_log_likelihood(y, factors(lengths));
    bool changed = false;
    for (std::size_t d = 0; d < lengths.size(); ++d) {
      if (d < space_.dims() && space_.params()[d].values.size() < 2) continue;
      const double keep = lengths[d];
      double pick = keep;
      for (double l : kGrid) {
        if (l == keep) continue;
        lengths[d] = l;
        if (const double v = neg_log_likelihood(y, factors(lengths)); v < best - 1e-9) best = v, pick = l;
      }
      lengths[d] = pick;
      changed = changed || pick != keep;
    }
    lengths_ = lengths;
    return changed;
  }

  // The training set: the best half of `max_points` and the latest others, log times with failures
  // mapped a step above the slowest ok one, centred on their mean; the prior's slope fitted to them.
  bool fit() {
    if (factor_.empty()) {
      lengths_.assign(space_.dims(), length_);
      if (pow2_count_) lengths_.push_back(kPow2Length);
      factor_ = factors(lengths_);
    }
    std::vector<char> take(own_.size(), 1);
    if (own_.size() > max_points_) {
      std::vector<std::size_t> by_cost(own_.size());
      std::iota(by_cost.begin(), by_cost.end(), std::size_t{0});
      std::stable_sort(by_cost.begin(), by_cost.end(), [&](auto a, auto b) { return own_cost_[a] < own_cost_[b]; });
      std::fill(take.begin(), take.end(), 0);
      for (std::size_t i = 0; i < max_points_ / 2; ++i) take[by_cost[i]] = 1;
      std::size_t n = max_points_ / 2;
      for (std::size_t i = own_.size(); i-- > 0 && n < max_points_;)
        if (!take[i]) take[i] = 1, ++n;
    }
    // The factor of K + noise I follows the set: rows that left it are removed, new ones appended
    // (O(m^2) each), so a step that swaps a point or two costs no refactorisation.
    std::vector<char> present(own_.size(), 0);
    for (std::size_t r = rows_.size(); r-- > 0;) {
      if (take[rows_[r]]) {
        present[rows_[r]] = 1;
      } else {
        chol_.remove(r);
        rows_.erase(rows_.begin() + static_cast<std::ptrdiff_t>(r));
      }
    }
    std::vector<double> column;
    for (std::size_t i = 0; i < own_.size(); ++i) {
      if (!take[i] || present[i]) continue;
      column.clear();
      for (std::size_t r : rows_) column.push_back(kernel(space_.point(own_[i]), space_.point(own_[r])));
      chol_.append(column, 1 + kNugget);
      rows_.push_back(i);
    }
    const std::vector<std::size_t>& idx = rows_;
    double worst = -1e300, best_ok = 1e300;
    for (std::size_t i : idx)
      if (std::isfinite(own_cost_[i])) {
        worst = std::max(worst, std::log(own_cost_[i]));
        best_ok = std::min(best_ok, std::log(own_cost_[i]));
      }
    if (worst < -1e299) return false;  // nothing ok yet
    pts_.clear();
    y_.clear();
    for (std::size_t i : idx) {
      pts_.push_back(own_[i]);
      y_.push_back(std::isfinite(own_cost_[i]) ? std::log(own_cost_[i]) : worst + kFailStep);
    }
    train_.resize(space_.dims() * pts_.size());
    for (std::size_t d = 0; d < space_.dims(); ++d)
      for (std::size_t i = 0; i < pts_.size(); ++i) {
        const std::uint32_t x = space_.point(pts_[i])[d];
        train_[d * pts_.size() + i] = x == SearchSpace::kAbsent ? static_cast<std::uint32_t>(space_.params()[d].values.size()) : x;
      }
    const double n = static_cast<double>(y_.size());
    offset_ = std::accumulate(y_.begin(), y_.end(), 0.0) / n;
    for (auto& v : y_) v -= offset_;
    slope_ = 1;
    if (has_prior_ && y_.size() >= 4) {
      // Least squares of y on the prior through the origin, shrunk towards 1 with few points.
      double sxy = 0, sxx = 0, mx = 0;
      for (std::size_t i = 0; i < y_.size(); ++i) mx += prior_[pts_[i]] / n;
      for (std::size_t i = 0; i < y_.size(); ++i) {
        const double x = prior_[pts_[i]] - mx;
        sxy += x * y_[i];
        sxx += x * x;
      }
      const double k = 4;  // pseudo-points at slope 1
      slope_ = std::clamp((sxy + k * 0.25) / (sxx + k * 0.25), 0.0, 2.0);
      double shift = 0;
      for (std::size_t i = 0; i < y_.size(); ++i) shift += (y_[i] - slope_ * prior_[pts_[i]]) / n;
      offset_ += shift;
      for (auto& v : y_) v -= shift;
    }
    for (std::size_t i = 0; i < y_.size(); ++i) y_[i] -= mean_of(pts_[i]);
    sigma2_ = 0;
    for (double v : y_) sigma2_ += v * v / n;
    sigma2_ = std::max(sigma2_, 1e-4);
    if (learn_ && own_.size() >= next_learn_ && y_.size() >= 8) {
      next_learn_ = own_.size() + learn_;
      if (learn_lengths()) {  // a new kernel: factorise the training set anew
        factor_ = factors(lengths_);
        chol_.clear();
        rows_.clear();
        return fit();
      }
    }
    // alpha = (sigma2 (K + noise I))^-1 y, the weights of the posterior mean.
    alpha_ = y_;
    chol_.forward(alpha_);
    chol_.backward(alpha_);
    for (auto& v : alpha_) v /= sigma2_;
    best_y_ = best_ok - offset_;
    return true;
  }

  std::optional<PointId> best_candidate() {
    if (!fit()) return std::nullopt;
    cand_.clear();
    for (std::size_t tries = 0; cand_.size() < candidates_ && tries < 4 * candidates_; ++tries) {
      const auto p = static_cast<PointId>(rng_.below(space_.size()));
      if (!visited(p)) cand_.push_back(p);
    }
    if (has_prior_)  // the best unvisited points by the prior are always candidates
      for (std::size_t i = 0, n = 0; i < prior_order_.size() && n < candidates_ / 8; ++i)
        if (!visited(prior_order_[i])) cand_.push_back(prior_order_[i]), ++n;
    std::vector<std::size_t> order(own_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::size_t top = std::min<std::size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [&](auto a, auto b) { return own_cost_[a] < own_cost_[b]; });
    for (std::size_t i = 0; i < top; ++i) {
      nb_.clear();
      if (any_value_)
        any_value_neighbours(own_[order[i]], nb_);
      else
        space_.neighbours(own_[order[i]], nb_);
      for (PointId q : nb_)
        if (!visited(q)) cand_.push_back(q);
    }
    // Two parameters changed at once around the best `pairs` points (a random `candidates` of them
    // at most): the model ranks the moves across an interaction that no one-parameter step makes.
    for (std::size_t i = 0; i < std::min(pairs_, top); ++i) {
      nb_.clear();
      pair_neighbours(own_[order[i]], nb_);
      std::erase_if(nb_, [&](PointId q) { return visited(q); });
      const std::size_t keep = std::min(nb_.size(), candidates_);
      for (std::size_t k = 0; k < keep; ++k) std::swap(nb_[k], nb_[k + rng_.below(nb_.size() - k)]);
      cand_.insert(cand_.end(), nb_.begin(), nb_.begin() + static_cast<std::ptrdiff_t>(keep));
    }
    for (std::size_t k = 0; k < children_; ++k)
      if (auto q = child()) cand_.push_back(*q);
    std::sort(cand_.begin(), cand_.end());
    cand_.erase(std::unique(cand_.begin(), cand_.end()), cand_.end());
    if (cand_.empty()) return std::nullopt;
    const std::size_t m = pts_.size();
    double best_ei = -1;
    std::optional<PointId> pick;
    // Branch and bound on expected improvement: the variance given the nearest training point alone
    // bounds the posterior variance from above, so it bounds EI from above; exact EI (an O(m^2)
    // solve) only for candidates whose bound beats the best exact EI so far. Same pick, less work.
    const double target = best_y_ - explore_;
    auto ei_of = [&](double mu, double sd) {
      const double z = (target - mu) / sd;
      return (target - mu) * 0.5 * std::erfc(-z / std::sqrt(2.0)) + sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    };
    bounds_.clear();
    kall_.resize(cand_.size() * m);
    for (std::size_t k = 0; k < cand_.size(); ++k) {
      double* kx = &kall_[k * m];
      kernel_row(space_.point(cand_[k]), kx);
      // Posterior mean, four partial sums at a time.
      double s[4] = {0, 0, 0, 0};
      std::size_t i = 0;
      for (; i + 4 <= m; i += 4)
        for (std::size_t j = 0; j < 4; ++j) s[j] += kx[i + j] * alpha_[i + j];
      for (; i < m; ++i) s[0] += kx[i] * alpha_[i];
      const double mu = mean_of(cand_[k]) + sigma2_ * ((s[0] + s[1]) + (s[2] + s[3]));
      // The variance given the two training points of largest covariance alone bounds the
      // posterior variance from above (more observations never raise it).
      std::size_t i1 = 0, i2 = 0;
      for (std::size_t j = 1; j < m; ++j)
        if (kx[j] > kx[i1]) i2 = i1, i1 = j;
        else if (i2 == i1 || kx[j] > kx[i2]) i2 = j;
      double explained = kx[i1] * kx[i1] / (1 + kNugget);
      if (i2 != i1) {
        const double a = kx[i1], b = kx[i2], c = kernel(space_.point(pts_[i1]), space_.point(pts_[i2]));
        const double d = 1 + kNugget, det = d * d - c * c;
        if (det > 1e-12) explained = std::max(explained, (d * a * a - 2 * c * a * b + d * b * b) / det);
      }
      const double var_ub = sigma2_ * (1 - explained);
      bounds_.push_back({ei_of(mu, std::sqrt(std::max(var_ub, 1e-12))), mu, k});
    }
    std::sort(bounds_.begin(), bounds_.end(), [](const Bound& a, const Bound& b) {
      return a.ei != b.ei ? a.ei > b.ei : a.index < b.index;
    });
    for (const Bound& b : bounds_) {
      if (b.ei <= best_ei) break;
      const std::span<double> kx(&kall_[b.index * m], m);
      chol_.forward(kx);
      double var = 1;
      for (double v : kx) var -= v * v;
      var *= sigma2_;
      const double ei = ei_of(b.mu, std::sqrt(std::max(var, 1e-12)));
      if (ei > best_ei) {
        best_ei = ei;
        pick = cand_[b.index];
      }
    }
    return pick;
  }

  // The power-of-two dimension of an integer parameter: whether its value is a power of two (warps,
  // memory transactions and power-of-two problem sizes make such values behave apart from their
  // neighbours in the value list). One length scale for all such parameters, after the parameters'
  // in lengths_ (one more coordinate for the length fit, however many parameters have it).
  static constexpr double kPow2Length = 2.0;     // at first nearly no effect (factor 0.88 across)
  std::vector<std::vector<std::uint8_t>> pow2_;  // per parameter and value index: 1 for a power of two; empty: none
  std::size_t pow2_count_ = 0;                   // parameters with the dimension
  std::size_t init_;
  double length_;
  std::size_t candidates_, max_points_;
  double explore_, local_;
  std::size_t children_;
  double evolve_;
  bool any_value_;
  std::size_t pairs_;
  std::size_t learn_, next_learn_ = 0;  // learn_: own evaluations between two length fits; 0: never
  std::vector<double> lengths_;         // per parameter
  Cholesky scratch_chol_;              // learn_lengths: the factor of a candidate kernel
  std::vector<std::uint32_t> pair_;     // learn_lengths: [parameter * pairs + pair] factor index
  std::vector<double> kpair_, table_;   // learn_lengths: the kernel per pair; one parameter's factors
  std::vector<std::size_t> elite_;
  std::size_t elite_at_ = 0;
  bool has_prior_ = false;
  std::vector<double> prior_;
  std::vector<PointId> prior_order_;
  std::size_t next_prior_ = 0;
  std::vector<PointId> own_;
  std::vector<double> own_cost_;
  std::vector<std::vector<double>> factor_;  // per parameter: the kernel's factor by index distance
  std::vector<PointId> pts_, cand_, nb_;
  std::vector<std::uint32_t> line_;
  std::vector<std::size_t> rows_;  // the training set: indices into own_, in the factor's row order
  Cholesky chol_;                   // of K + noise I over rows_ (the kernel without sigma2)
  std::vector<double> y_, alpha_;
  std::vector<Bound> bounds_;
  std::vector<std::uint32_t> train_;  // [parameter * m + i]: training point i's value index (absent: the value count)
  std::vector<std::vector<double>> ftab_;  // kernel_row: per parameter, the factor by value index
  std::vector<const double*> tab_;         // kernel_row: the parameters' tables that count
  std::vector<const std::uint32_t*> idx_;  // kernel_row: their columns of train_
  std::vector<double> kall_;               // every candidate's kernel row
  double offset_ = 0, slope_ = 1, sigma2_ = 1, best_y_ = 0;
};

}  // namespace

StrategyInfo gp_strategy() {
  using T = OptionDecl::Type;
  return {"gp",
          "Bayesian optimisation: Gaussian process over value indices with expected improvement, failures learnt "
          "as slow, stored results of other devices and sizes as its prior mean",
          with_budget_options({{T::Int, "init", "8", "first points: the best by the prior, else random", 1, std::nullopt},
                               {T::Real, "length", "0.35", "kernel length scale (value indices scaled to 0..1)", 0.01, 10},
                               {T::Int, "candidates", "384", "random candidates scored per proposal", 1, 1000000},
                               {T::Int, "max_points", "160", "evaluations the model is fitted on at most", 4, 5000},
                               {T::Real, "explore", "0", "log-time margin expected improvement is measured from", 0, 10},
                               {T::Real, "local", "0.1", "chance of a random unvisited neighbour of the best instead", 0, 1},
                               {T::Int, "children", "128", "crossover children of the best points among the candidates", 0, 100000},
                               {T::Real, "evolve", "0", "chance of asking a crossover child of the best points directly", 0, 1},
                               {T::Int, "any_value", "0", "candidates around the best: 1: one parameter changed to any value, 0: by one step", 0, 1},
                               {T::Int, "pairs", "0", "best points (up to 5) whose two-parameter changes are candidates too", 0, 5},
                               {T::Int, "pow2", "0", "1: an integer parameter with two or more powers of two and two or more other values also gets a kernel dimension that says whether its value is a power of two (one length scale for all such parameters, learnt with the others)", 0, 1},
                               {T::Int, "learn", "0", "evaluations between two fits of per-parameter length scales by marginal likelihood (starting from `length`); 0: fixed", 0, 100000}}),
          [](const SearchSpace& space, const OptionValues& o, std::uint64_t seed) {
            return std::make_unique<GaussianProcess>(space, o, seed);
          }};
}

}  // namespace pimg
