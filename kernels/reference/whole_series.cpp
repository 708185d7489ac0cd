// docs/spec.md §4: whole-series distances in float64, written as literally as the spec reads.
// Tables are kept whole ((n+1) x (m+1)): this is the oracle, not the fast path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/measure_cells.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

// An (n+1) x (m+1) table, cell (i, j) for 0 <= i <= n, 0 <= j <= m.
class Table {
 public:
  Table(std::size_t n, std::size_t m, double fill)
      : cols_(m + 1), cells_((n + 1) * (m + 1), fill) {}
  double& operator()(std::size_t i, std::size_t j) { return cells_[i * cols_ + j]; }
  double operator()(std::size_t i, std::size_t j) const { return cells_[i * cols_ + j]; }

 private:
  std::size_t cols_;
  std::vector<double> cells_;
};

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

// softmin_gamma of three values, factoring out the smallest (docs/spec.md §4.2).
double softmin(double x, double y, double z, double gamma) {
  const double r = std::min({x, y, z});
  if (r == inf) return inf;
  const double sum =
      std::exp(-(x - r) / gamma) + std::exp(-(y - r) / gamma) + std::exp(-(z - r) / gamma);
  return r - gamma * std::log(sum);
}

// The table shared by dtw, dk and softdtw (docs/spec.md §4.1, 4.2): D(0,0) = 0, the rest of
// row and column 0 and every cell outside the band +inf, and
// D(i,j) = cell(c(a_i, b_j), D(i-1,j), D(i,j-1), D(i-1,j-1)) inside.
template <typename Cell>
Table warping_table(const SeriesView& a, const SeriesView& b, Cost cost,
                    const std::optional<double>& band, Cell cell) {
  check_pair(a, b);
  const std::size_t n = a.length, m = b.length;
  Table d(n, m, inf);
  d(0, 0) = 0.0;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      if (in_band(i, j, n, m, band))
        d(i, j) = cell(local_cost(a.sample(i - 1), b.sample(j - 1), a.dims, cost), d(i - 1, j),
                       d(i, j - 1), d(i - 1, j - 1));
  return d;
}

Table softdtw_table(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
                    const std::optional<double>& band) {
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  return warping_table(a, b, cost, band, [gamma](double c, double up, double left, double diag) {
    return c + softmin(up, left, diag, gamma);
  });
}

// p-norm of the difference of two samples (docs/spec.md §4.3); `y` null means the zero vector.
double pnorm_diff(const float* x, const float* y, std::size_t dims, double p) {
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

template <class Cell>
double measure(const Cell& cell, const SeriesView& a, const SeriesView& b,
               const std::optional<double>& band = std::nullopt) {
  check_pair(a, b);
  VectorRow row{std::vector<double>(b.length + 1)};
  const cells::ScalarOps<double> ops;
  const double value = cell.distance(ops, SampleOf{a}, SampleOf{b}, a.length, b.length, a.dims, row,
                                     BandOf{a.length, b.length, band});
  return Cell::finish(value, a.length, b.length);
}

}  // namespace

double ed(const SeriesView& a, const SeriesView& b, Cost cost) {
  check_pair(a, b);
  if (a.length != b.length)
    throw std::invalid_argument("ed compares series of equal length: " + std::to_string(a.length) +
                                " and " + std::to_string(b.length) + " samples");
  double sum = 0.0;
  for (std::size_t i = 0; i < a.length; ++i)
    sum += local_cost(a.sample(i), b.sample(i), a.dims, cost);
  return sum;
}

double dtw(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  return warping_table(a, b, cost, band, [](double c, double up, double left, double diag) {
    return c + std::min({up, left, diag});
  })(a.length, b.length);
}

std::vector<PathStep> dtw_path(const SeriesView& a, const SeriesView& b, Cost cost,
                               std::optional<double> band) {
  const auto sum = [](double c, double up, double left, double diag) {
    return c + std::min({up, left, diag});
  };
  const Table d = warping_table(a, b, cost, band, sum);
  const std::size_t n = a.length, m = b.length;
  if (d(n, m) == inf) return {};
  // Back from (n, m): the predecessor docs/spec.md §3.1 picks, in its order (i, j-1),
  // (i-1, j-1), (i-1, j), a later one only when strictly smaller.
  std::vector<PathStep> path;
  std::size_t i = n, j = m;
  while (true) {
    path.push_back({i - 1, j - 1, local_cost(a.sample(i - 1), b.sample(j - 1), a.dims, cost)});
    if (i == 1 && j == 1) break;
    std::size_t pi = i, pj = j - 1;
    double best = d(i, j - 1);
    if (d(i - 1, j - 1) < best) pi = i - 1, pj = j - 1, best = d(i - 1, j - 1);
    if (d(i - 1, j) < best) pi = i - 1, pj = j;
    i = pi, j = pj;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

double dk(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  return warping_table(a, b, cost, band, [](double c, double up, double left, double diag) {
    return std::max(c, std::min({up, left, diag}));
  })(a.length, b.length);
}

double softdtw(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
               std::optional<double> band) {
  return softdtw_table(a, b, cost, gamma, band)(a.length, b.length);
}

// Backward recursion of Cuturi & Blondel (2017), Algorithm 2: E(i,j) = d value / d R(i,j),
// then the chain rule through the local costs c(a_i, b_j).
double softdtw_grad(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
                    std::optional<double> band, std::vector<double>& grad_a) {
  const Table r = softdtw_table(a, b, cost, gamma, band);
  const std::size_t n = a.length, m = b.length, dims = a.dims;
  grad_a.assign(n * dims, 0.0);
  if (!std::isfinite(r(n, m))) return r(n, m);
  Table e(n, m, 0.0);  // successors beyond row n or column m contribute nothing
  e(n, m) = 1.0;
  // Contribution of successor (si, sj) to E(i, j): E(s) * d R(s) / d R(i, j).
  const auto term = [&](std::size_t i, std::size_t j, std::size_t si, std::size_t sj) {
    if (si > n || sj > m || e(si, sj) == 0.0 || !std::isfinite(r(si, sj))) return 0.0;
    const double c = local_cost(a.sample(si - 1), b.sample(sj - 1), dims, cost);
    return e(si, sj) * std::exp((r(si, sj) - c - r(i, j)) / gamma);
  };
  for (std::size_t i = n; i >= 1; --i) {
    for (std::size_t j = m; j >= 1; --j) {
      if (!std::isfinite(r(i, j))) continue;
      if (i != n || j != m)
        e(i, j) = term(i, j, i + 1, j) + term(i, j, i, j + 1) + term(i, j, i + 1, j + 1);
      if (e(i, j) == 0.0) continue;
      for (std::size_t k = 0; k < dims; ++k) {
        const double diff =
            static_cast<double>(a.sample(i - 1)[k]) - static_cast<double>(b.sample(j - 1)[k]);
        const double dcost = cost == Cost::sq ? 2.0 * diff : (diff > 0.0) - (diff < 0.0);
        grad_a[(i - 1) * dims + k] += e(i, j) * dcost;
      }
    }
  }
  return r(n, m);
}

double twed(const SeriesView& a, const SeriesView& b, double nu, double lambda, double p) {
  check_pair(a, b);
  DistanceParams params;
  params.metric = Metric::twed;
  params.nu = nu;
  params.lambda = lambda;
  params.p = p;
  validate(params);
  const std::size_t n = a.length, m = b.length, dims = a.dims;
  // 1-based accessors with the zero sample at time 0 in front (docs/spec.md §4.3).
  const auto av = [&](std::size_t i) { return i == 0 ? nullptr : a.sample(i - 1); };
  const auto bv = [&](std::size_t j) { return j == 0 ? nullptr : b.sample(j - 1); };
  const auto ta = [&](std::size_t i) { return i == 0 ? 0.0 : a.time(i - 1); };
  const auto tb = [&](std::size_t j) { return j == 0 ? 0.0 : b.time(j - 1); };
  const auto dist = [&](const float* x, const float* y) {
    if (!x) std::swap(x, y);
    return x ? pnorm_diff(x, y, dims, p) : 0.0;
  };
  Table d(n, m, inf);
  d(0, 0) = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      double match = d(i - 1, j - 1) + dist(av(i), bv(j)) + nu * std::fabs(ta(i) - tb(j));
      if (i > 1 && j > 1)
        match += dist(av(i - 1), bv(j - 1)) + nu * std::fabs(ta(i - 1) - tb(j - 1));
      const double del_a = d(i - 1, j) + dist(av(i), av(i - 1)) + nu * (ta(i) - ta(i - 1)) + lambda;
      const double del_b = d(i, j - 1) + dist(bv(j), bv(j - 1)) + nu * (tb(j) - tb(j - 1)) + lambda;
      d(i, j) = std::min({match, del_a, del_b});
    }
  }
  return d(n, m);
}

double distance(const SeriesView& a, const SeriesView& b, const DistanceParams& params) {
  validate(params);
  switch (params.metric) {
    case Metric::dtw:
      return dtw(a, b, params.cost, params.band);
    case Metric::dk:
      return dk(a, b, params.cost, params.band);
    case Metric::softdtw:
      return softdtw(a, b, params.cost, params.gamma, params.band);
    case Metric::twed:
      return twed(a, b, params.nu, params.lambda, params.p);
    case Metric::ed:
      return ed(a, b, params.cost);
      WARPWATCH_CELL_MEASURE_CASES {
        double value = 0.0;
        cells::with_cell(params.metric, measure_params(params), params.cost == Cost::sq,
                         [&](const auto& cell) { value = measure(cell, a, b, params.band); });
        return value;
      }
  }
  throw std::invalid_argument("unknown metric");
}

}  // namespace warpwatch::kernels::reference
