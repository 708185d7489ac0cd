// The float64 tables of the reference's whole-series measures (docs/spec.md §4), shared by
// their distances (whole_series.cpp) and their paths and edit operations (edit_path.cpp).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/measure_cells.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::reference {

inline constexpr double inf = std::numeric_limits<double>::infinity();

// An (n+1) x (m+1) table, cell (i, j) for 0 <= i <= n, 0 <= j <= m.
template <typename T>
class TableOf {
 public:
  TableOf(std::size_t n, std::size_t m, T fill) : cols_(m + 1), cells_((n + 1) * (m + 1), fill) {}
  T& operator()(std::size_t i, std::size_t j) { return cells_[i * cols_ + j]; }
  T operator()(std::size_t i, std::size_t j) const { return cells_[i * cols_ + j]; }

 private:
  std::size_t cols_;
  std::vector<T> cells_;
};
using Table = TableOf<double>;

inline double local_cost(const float* x, const float* y, std::size_t dims, Cost cost) {
  double c = 0.0;
  for (std::size_t k = 0; k < dims; ++k) {
    const double diff = static_cast<double>(x[k]) - static_cast<double>(y[k]);
    c += cost == Cost::sq ? diff * diff : std::fabs(diff);
  }
  return c;
}

// 1-based cell (i, j) of an n x m table lies inside the Sakoe-Chiba band.
inline bool in_band(std::size_t i, std::size_t j, std::size_t n, std::size_t m,
                    const std::optional<double>& band) {
  if (!band) return true;
  const double centre = static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
  return std::fabs(static_cast<double>(i) - centre) <= *band;
}

inline void check_pair(const SeriesView& a, const SeriesView& b) {
  if (a.dims != b.dims) throw std::invalid_argument("series have different dimensions");
  if (a.length == 0 || b.length == 0) throw std::invalid_argument("empty series");
}

// p-norm of the difference of two samples (docs/spec.md §4.3); `y` null means the zero vector.
inline double pnorm_diff(const float* x, const float* y, std::size_t dims, double p) {
  double s = 0.0;
  for (std::size_t k = 0; k < dims; ++k) {
    const double diff =
        std::fabs(static_cast<double>(x[k]) - (y ? static_cast<double>(y[k]) : 0.0));
    s += p == 1.0 ? diff : p == 2.0 ? diff * diff : std::pow(diff, p);
  }
  return p == 1.0 ? s : p == 2.0 ? std::sqrt(s) : std::pow(s, 1.0 / p);
}

// The shared cells (common/measure_cells.hpp) in float64: samples read 1-based, the kept
// row a vector, the band the predicate above.
struct SampleOf {
  const SeriesView& s;
  double operator()(std::size_t i, std::size_t k) const {
    return static_cast<double>(s.sample(i - 1)[k]);
  }
};
struct VectorRow {
  std::vector<double> cells;
  double load(std::size_t j) const { return cells[j]; }
  void store(std::size_t j, double v) { cells[j] = v; }
};
struct BandOf {
  std::size_t n, m;
  std::optional<double> band;
  bool operator()(std::size_t i, std::size_t j) const { return in_band(i, j, n, m, band); }
};

}  // namespace warpwatch::kernels::reference
