// docs/spec.md §4: whole-series distances in float64, written as literally as the spec reads.
// Tables are kept whole ((n+1) x (m+1)): this is the oracle, not the fast path.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/measure_cells.hpp"
#include "common/window/window_grouping.hpp"
#include "reference/spring.hpp"
#include "reference/tables.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {
namespace {

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
// D(i,j) = cell(a_i, b_j, D(i-1,j), D(i,j-1), D(i-1,j-1)) inside, in T.
template <typename T, typename Cell>
TableOf<T> warping_table(const SeriesView& a, const SeriesView& b,
                         const std::optional<double>& band, Cell cell) {
  check_pair(a, b);
  const std::size_t n = a.length, m = b.length;
  TableOf<T> d(n, m, std::numeric_limits<T>::infinity());
  d(0, 0) = 0;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      if (in_band(i, j, n, m, band))
        d(i, j) = cell(a.sample(i - 1), b.sample(j - 1), d(i - 1, j), d(i, j - 1), d(i - 1, j - 1));
  return d;
}

// The float64 cell of dtw, dk and softdtw: `f` of the local cost and the three predecessors.
template <typename F>
auto float64_cell(std::size_t dims, Cost cost, F f) {
  return [dims, cost, f](const float* x, const float* y, double up, double left, double diag) {
    return f(local_cost(x, y, dims, cost), up, left, diag);
  };
}

Table softdtw_table(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
                    const std::optional<double>& band) {
  if (!(gamma > 0.0)) throw std::invalid_argument("gamma must be > 0");
  return warping_table<double>(
      a, b, band,
      float64_cell(a.dims, cost, [gamma](double c, double up, double left, double diag) {
        return c + softmin(up, left, diag, gamma);
      }));
}

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
  return warping_table<double>(
      a, b, band, float64_cell(a.dims, cost, [](double c, double up, double left, double diag) {
        return c + std::min({up, left, diag});
      }))(a.length, b.length);
}

namespace {

// One cell of dtw or dk in an Arithmetic (reference.hpp): the step's local cost, and the
// cell from the best predecessor. float64 is dtw()'s and dk()'s own; float32 is
// spring.hpp's (stream mode on every backend; the cpu's windows, whose lane-vectors compute
// the same operations in the same order); float32_fma is the cuda window kernels' cell
// (one dimension: fma(d, d, best) for dtw with sq, the rest as float32).
template <typename T>
struct PathCell {
  Metric metric;
  Cost cost;
  Arithmetic arithmetic;
  std::size_t dims;

  T local(const float* x, const float* y) const {
    if constexpr (std::is_same_v<T, double>)
      return local_cost(x, y, dims, cost);
    else
      return local_cost_f32(x, y, dims, cost);
  }
  T operator()(const float* x, const float* y, T best) const {
    if constexpr (std::is_same_v<T, float>)
      if (arithmetic == Arithmetic::float32_fma && metric == Metric::dtw && cost == Cost::sq) {
        const float d = x[0] - y[0];
        return std::fma(d, d, best);
      }
    const T c = local(x, y);
    return metric == Metric::dtw ? c + best : std::max(c, best);
  }
};

template <typename T>
WarpingPath warping_path_as(const SeriesView& a, const SeriesView& b, Metric metric, Cost cost,
                            const std::optional<double>& band, Arithmetic arithmetic,
                            PathTies ties) {
  const PathCell<T> cell{metric, cost, arithmetic, a.dims};
  const TableOf<T> d =
      warping_table<T>(a, b, band, [&](const float* x, const float* y, T up, T left, T diag) {
        return cell(x, y, std::min({up, left, diag}));
      });
  const std::size_t n = a.length, m = b.length;
  constexpr T inf_t = std::numeric_limits<T>::infinity();
  WarpingPath out;
  out.distance = static_cast<double>(d(n, m));
  if (d(n, m) == inf_t) return out;
  // Back from (n, m): the predecessor docs/spec.md §3.1 picks, in its order ((t, i-1),
  // (t-1, i-1), (t-1, i) with t the stream's sample), a later one only when strictly smaller.
  const bool a_stream = ties == PathTies::a_is_stream;
  std::size_t i = n, j = m;
  while (true) {
    out.steps.push_back(
        {i - 1, j - 1, static_cast<double>(cell.local(a.sample(i - 1), b.sample(j - 1)))});
    if (i == 1 && j == 1) break;
    std::size_t pi = a_stream ? i : i - 1, pj = a_stream ? j - 1 : j;
    T best = d(pi, pj);
    if (d(i - 1, j - 1) < best) pi = i - 1, pj = j - 1, best = d(i - 1, j - 1);
    const std::size_t li = a_stream ? i - 1 : i, lj = a_stream ? j : j - 1;
    if (d(li, lj) < best) pi = li, pj = lj;
    i = pi, j = pj;
  }
  std::reverse(out.steps.begin(), out.steps.end());
  // The path's cost accumulated in its order, in the table's arithmetic: D(n, m) again.
  T total = 0;
  for (const PathStep& s : out.steps) total = cell(a.sample(s.i), b.sample(s.j), total);
  WW_ASSERT(total == d(n, m), "a warping path's accumulated cost is its table's distance");
  return out;
}

}  // namespace

WarpingPath warping_path(const SeriesView& a, const SeriesView& b, const DistanceParams& params,
                         Arithmetic arithmetic, PathTies ties) {
  validate(params);
  const Metric metric = params.metric;
  if (metric != Metric::dtw && metric != Metric::dk)
    throw std::invalid_argument("warping_path: dtw or dk, not " + std::string(to_string(metric)));
  if (arithmetic == Arithmetic::float32_fma && a.dims != 1)
    throw std::invalid_argument("warping_path: float32_fma is the cell of one dimension");
  if (arithmetic == Arithmetic::float64)
    return warping_path_as<double>(a, b, metric, params.cost, params.band, arithmetic, ties);
  return warping_path_as<float>(a, b, metric, params.cost, params.band, arithmetic, ties);
}

std::vector<PathStep> dtw_path(const SeriesView& a, const SeriesView& b, Cost cost,
                               std::optional<double> band) {
  DistanceParams params;
  params.metric = Metric::dtw;
  params.cost = cost;
  params.band = band;
  return warping_path(a, b, params, Arithmetic::float64, PathTies::a_is_stream).steps;
}

bool znormalize(std::vector<float>& values, std::size_t dims) {
  return common::znormalize(values, dims);
}

double dk(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  return warping_table<double>(
      a, b, band, float64_cell(a.dims, cost, [](double c, double up, double left, double diag) {
        return std::max(c, std::min({up, left, diag}));
      }))(a.length, b.length);
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
