// SPEC.md 4: whole-series distances in float64, one full DP table row at a time.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

double local_cost(const float* x, const float* y, std::size_t dims, Cost cost) {
  double c = 0.0;
  for (std::size_t k = 0; k < dims; ++k) {
    const double diff = static_cast<double>(x[k]) - static_cast<double>(y[k]);
    c += cost == Cost::sq ? diff * diff : std::fabs(diff);
  }
  return c;
}

// 1-based cell (i, j) of an n x m table lies inside the Sakoe-Chiba band.
bool in_band(std::size_t i, std::size_t j, std::size_t n, std::size_t m,
             const std::optional<double>& band) {
  if (!band) return true;
  const double centre = static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
  return std::fabs(static_cast<double>(i) - centre) <= *band;
}

void check_pair(const SeriesView& a, const SeriesView& b) {
  if (a.dims != b.dims) throw std::invalid_argument("series have different dimensions");
  if (a.length == 0 || b.length == 0) throw std::invalid_argument("empty series");
}

}  // namespace

double dtw(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  check_pair(a, b);
  const std::size_t n = a.length, m = b.length;
  std::vector<double> prev(m + 1, inf), cur(m + 1, inf);
  prev[0] = 0.0;  // D(0,0)
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = inf;
    for (std::size_t j = 1; j <= m; ++j) {
      if (!in_band(i, j, n, m, band)) {
        cur[j] = inf;
        continue;
      }
      const double best = std::min({cur[j - 1], prev[j - 1], prev[j]});
      cur[j] = local_cost(a.sample(i - 1), b.sample(j - 1), a.dims, cost) + best;
    }
    std::swap(prev, cur);
  }
  return prev[m];
}

}  // namespace warpwatch::kernels::reference
