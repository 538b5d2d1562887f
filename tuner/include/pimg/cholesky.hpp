// The Cholesky factor L (lower triangular, A = L L^T) of a symmetric positive-definite matrix that
// grows by one row and column at the end and shrinks by any one, each in O(n^2) instead of the
// O(n^3) of factorising again: a model refitted after every evaluation on a changing training set
// (gp: the best points and the latest ones) keeps its factor and updates it.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

namespace pimg {

class Cholesky {
 public:
  std::size_t size() const { return n_; }
  void clear() { n_ = 0; }
  // Appends row/column n: `a` holds its n entries against the current rows, `diag` its diagonal.
  // A diagonal the rows before explain (not positive definite) is floored at `floor`.
  void append(std::span<const double> a, double diag, double floor = 1e-12);
  // Removes row and column k (a rank-one update of the rows after it).
  void remove(std::size_t k);
  void forward(std::span<double> v) const;   // v <- L^-1 v
  void backward(std::span<double> v) const;  // v <- L^-T v
  double at(std::size_t i, std::size_t j) const { return l_[i * stride_ + j]; }

 private:
  double& ref(std::size_t i, std::size_t j) { return l_[i * stride_ + j]; }
  std::size_t n_ = 0, stride_ = 0;
  std::vector<double> l_;  // row-major, stride_ columns
  std::vector<double> x_;
};

}  // namespace pimg
