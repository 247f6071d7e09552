// A small multi-file C++ application for the shim: templates, classes with
// virtual dispatch, std::vector storage, operator overloading, new/delete.
#ifndef CXX_APP_GRID_H_
#define CXX_APP_GRID_H_

#include <cstddef>
#include <vector>

template <class T>
class Grid {
 public:
  Grid(std::size_t rows, std::size_t cols) : rows_(rows), cols_(cols), cells_(rows * cols, T{}) {}
  T& operator()(std::size_t i, std::size_t j) { return cells_[i * cols_ + j]; }
  const T& operator()(std::size_t i, std::size_t j) const { return cells_[i * cols_ + j]; }
  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  Grid& operator=(const Grid& other) = default;
  T sum() const;

 private:
  std::size_t rows_, cols_;
  std::vector<T> cells_;
};

template <class T>
T Grid<T>::sum() const {
  T total{};
  for (const T& x : cells_) total += x;
  return total;
}

#endif  // CXX_APP_GRID_H_
