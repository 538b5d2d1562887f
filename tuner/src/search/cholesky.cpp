// Appending to and removing from a Cholesky factor in O(n^2) (see cholesky.hpp).
#include "pimg/cholesky.hpp"

#include <algorithm>
#include <cmath>

#include "pimg/errors.hpp"

namespace pimg {

void Cholesky::append(std::span<const double> a, double diag, double floor) {
  PIMG_CHECK(a.size() == n_, "Cholesky::append: the new column must have one entry per row");
  if (n_ + 1 > stride_) {  // grow the storage, keeping the rows
    const std::size_t s = std::max<std::size_t>(16, 2 * stride_);
    std::vector<double> l(s * s, 0.0);
    for (std::size_t i = 0; i < n_; ++i) std::copy_n(&l_[i * stride_], i + 1, &l[i * s]);
    l_ = std::move(l);
    stride_ = s;
  }
  double* row = &l_[n_ * stride_];
  std::copy(a.begin(), a.end(), row);
  forward({row, n_});
  double d = diag;
  for (std::size_t k = 0; k < n_; ++k) d -= row[k] * row[k];
  row[n_] = std::sqrt(std::max(d, floor));
  ++n_;
}

void Cholesky::remove(std::size_t k) {
  PIMG_CHECK(k < n_, "Cholesky::remove: no such row");
  // The rows after k lose column k: their block B satisfies B' B'^T = B B^T + x x^T with x the
  // removed column below the diagonal, a rank-one update done in place (stable: no subtraction).
  x_.assign(n_ - k - 1, 0.0);
  for (std::size_t i = k + 1; i < n_; ++i) x_[i - k - 1] = ref(i, k);
  for (std::size_t j = k + 1; j < n_; ++j) {
    const double ljj = ref(j, j), xj = x_[j - k - 1];
    const double r = std::hypot(ljj, xj), c = r / ljj, s = xj / ljj;
    ref(j, j) = r;
    for (std::size_t i = j + 1; i < n_; ++i) {
      ref(i, j) = (ref(i, j) + s * x_[i - k - 1]) / c;
      x_[i - k - 1] = c * x_[i - k - 1] - s * ref(i, j);
    }
  }
  // Close the gap: row i moves to i - 1, and column k drops out of it.
  for (std::size_t i = k + 1; i < n_; ++i) {
    double* to = &l_[(i - 1) * stride_];
    const double* from = &l_[i * stride_];
    for (std::size_t j = 0; j < k; ++j) to[j] = from[j];
    for (std::size_t j = k + 1; j <= i; ++j) to[j - 1] = from[j];
  }
  --n_;
}

void Cholesky::forward(std::span<double> v) const {
  // Four partial sums: the dot product is not one chain of dependent additions (about 3x faster
  // on rows of a hundred or more).
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double* row = &l_[i * stride_];
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::size_t k = 0;
    for (; k + 4 <= i; k += 4) {
      s0 += row[k] * v[k];
      s1 += row[k + 1] * v[k + 1];
      s2 += row[k + 2] * v[k + 2];
      s3 += row[k + 3] * v[k + 3];
    }
    for (; k < i; ++k) s0 += row[k] * v[k];
    v[i] = (v[i] - ((s0 + s1) + (s2 + s3))) / row[i];
  }
}

void Cholesky::backward(std::span<double> v) const {
  for (std::size_t i = v.size(); i-- > 0;) {
    double s = v[i];
    for (std::size_t k = i + 1; k < v.size(); ++k) s -= l_[k * stride_ + i] * v[k];
    v[i] = s / l_[i * stride_ + i];
  }
}

}  // namespace pimg
