// The incremental Cholesky factor against the matrix it factors: after appends and removals at the
// front, middle and end, L L^T reproduces the remaining matrix, and the solves invert it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pimg/cholesky.hpp"
#include "pimg/search_strategy.hpp"

using namespace pimg;

namespace {

// A kernel matrix over random points in the unit square plus a nugget: symmetric positive definite.
std::vector<std::vector<double>> kernel_matrix(std::size_t n) {
  Rng rng(11);
  std::vector<std::pair<double, double>> x(n);
  for (auto& p : x) p = {rng.uniform(), rng.uniform()};
  std::vector<std::vector<double>> a(n, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double dx = x[i].first - x[j].first, dy = x[i].second - x[j].second;
      a[i][j] = std::exp(-(dx * dx + dy * dy) / (2 * 0.3 * 0.3)) + (i == j ? 0.01 : 0);
    }
  return a;
}

void expect_factors(const Cholesky& c, const std::vector<std::vector<double>>& a, const std::vector<std::size_t>& keep) {
  ASSERT_EQ(c.size(), keep.size());
  for (std::size_t i = 0; i < keep.size(); ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double s = 0;
      for (std::size_t k = 0; k <= j; ++k) s += c.at(i, k) * c.at(j, k);
      EXPECT_NEAR(s, a[keep[i]][keep[j]], 1e-9) << i << "," << j;
    }
}

}  // namespace

TEST(Cholesky, AppendsAndRemovesRowsAnywhere) {
  const auto a = kernel_matrix(40);
  Cholesky c;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::vector<double> col;
    for (std::size_t r : keep) col.push_back(a[i][r]);
    c.append(col, a[i][i]);
    keep.push_back(i);
  }
  expect_factors(c, a, keep);
  for (std::size_t k : {std::size_t{0}, std::size_t{17}, std::size_t{37}, std::size_t{5}}) {
    c.remove(k);
    keep.erase(keep.begin() + static_cast<std::ptrdiff_t>(k));
    expect_factors(c, a, keep);
  }
  // Appending after removals (the storage keeps its stride) still factors the matrix.
  std::vector<double> col;
  for (std::size_t r : keep) col.push_back(a[0][r]);
  c.append(col, a[0][0]);
  keep.push_back(0);
  expect_factors(c, a, keep);
  // forward then backward solves A x = b.
  std::vector<double> b(keep.size());
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::sin(static_cast<double>(i));
  std::vector<double> x = b;
  c.forward(x);
  c.backward(x);
  for (std::size_t i = 0; i < b.size(); ++i) {
    double s = 0;
    for (std::size_t j = 0; j < b.size(); ++j) s += a[keep[i]][keep[j]] * x[j];
    EXPECT_NEAR(s, b[i], 1e-7);
  }
}
