// The edit distances' tables kept whole and walked back (docs/spec.md §4.3-§4.6, §7): twed's
// own table (also twed()'s distance), and msm's, erp's and lcss's through their shared cells
// (common/measure_cells.hpp), swept in the order sweep_table sweeps them, so that every cell
// is the float64 value distance() computes.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/measure_cells.hpp"
#include "reference/tables.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {
namespace {

// docs/spec.md §4.3: each move's cost on its own, so that a cell is its predecessor plus
// the cost of the move from it (and a path's costs summed in order are its cell).
struct TwedCosts {
  const SeriesView& a;
  const SeriesView& b;
  double nu, lambda, p;

  // 1-based, with the zero sample at time 0 in front.
  const float* av(std::size_t i) const { return i == 0 ? nullptr : a.sample(i - 1); }
  const float* bv(std::size_t j) const { return j == 0 ? nullptr : b.sample(j - 1); }
  double ta(std::size_t i) const { return i == 0 ? 0.0 : a.time(i - 1); }
  double tb(std::size_t j) const { return j == 0 ? 0.0 : b.time(j - 1); }
  double dist(const float* x, const float* y) const {
    if (!x) std::swap(x, y);
    return x ? pnorm_diff(x, y, a.dims, p) : 0.0;
  }
  double match(std::size_t i, std::size_t j) const {
    double c = dist(av(i), bv(j)) + nu * std::fabs(ta(i) - tb(j));
    if (i > 1 && j > 1) c += dist(av(i - 1), bv(j - 1)) + nu * std::fabs(ta(i - 1) - tb(j - 1));
    return c;
  }
  double delete_a(std::size_t i) const {
    return dist(av(i), av(i - 1)) + nu * (ta(i) - ta(i - 1)) + lambda;
  }
  double delete_b(std::size_t j) const {
    return dist(bv(j), bv(j - 1)) + nu * (tb(j) - tb(j - 1)) + lambda;
  }
};

Table twed_table(const TwedCosts& t) {
  const std::size_t n = t.a.length, m = t.b.length;
  Table d(n, m, inf);
  d(0, 0) = 0.0;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      d(i, j) = std::min({d(i - 1, j - 1) + t.match(i, j), d(i - 1, j) + t.delete_a(i),
                          d(i, j - 1) + t.delete_b(j)});
  return d;
}

// The three moves into cell (i, j), in the order a walk back prefers them.
constexpr EditMove kMoves[] = {EditMove::diagonal, EditMove::a_step, EditMove::b_step};

std::pair<std::size_t, std::size_t> from(EditMove move, std::size_t i, std::size_t j) {
  switch (move) {
    case EditMove::diagonal:
      return {i - 1, j - 1};
    case EditMove::a_step:
      return {i - 1, j};
    case EditMove::b_step:
      break;
  }
  return {i, j - 1};
}

// Walks back from (n, m) to (0, 0): at each cell the first move (diagonal, a_step, b_step)
// whose predecessor plus its cost is the cell (`cost(move, i, j)`; nullopt where the move
// does not exist or does not reach the cell). Appends the steps in path order.
template <typename Cost>
void walk_back(const Table& d, std::size_t n, std::size_t m, std::size_t component, Cost cost,
               std::vector<EditStep>& out) {
  std::vector<EditStep> steps;
  std::size_t i = n, j = m;
  while (i > 0 || j > 0) {
    bool found = false;
    for (const EditMove move : kMoves) {
      if ((move != EditMove::b_step && i == 0) || (move != EditMove::a_step && j == 0)) continue;
      const auto c = cost(move, i, j);
      const auto [pi, pj] = from(move, i, j);
      if (c && d(pi, pj) + *c == d(i, j)) {
        steps.push_back({i, j, move, *c, component});
        i = pi, j = pj;
        found = true;
        break;
      }
    }
    WW_ASSERT(found, "an edit table's cell is one of its moves");
  }
  out.insert(out.end(), steps.rbegin(), steps.rend());
}

// A measure of common/measure_cells.hpp: its table whole (one per component for msm), in
// sweep_table's order of operations, walked back. A move's cost is the cell with that
// predecessor at 0 and the others neutral (+inf for the minimum of msm and erp; -inf for
// lcss's maximum, whose match adds one to the diagonal).
template <class Cell, class A, class B, class InBand>
void cell_path(const Cell& cell, const A& a, const B& b, std::size_t n, std::size_t m,
               std::size_t dims, const InBand& in_band, double neutral, std::size_t component,
               std::vector<EditStep>& out, double& value) {
  const cells::ScalarOps<double> o;
  Table d(n, m, inf);
  d(0, 0) = cell.corner(o);
  for (std::size_t j = 1; j <= m; ++j) d(0, j) = cell.top(o, d(0, j - 1), b, j, dims);
  for (std::size_t i = 1; i <= n; ++i) {
    d(i, 0) = cell.side(o, d(i - 1, 0), a, i, dims);
    for (std::size_t j = 1; j <= m; ++j)
      d(i, j) = in_band(i, j)
                    ? cell.cell(o, d(i - 1, j - 1), d(i - 1, j), d(i, j - 1), a, i, b, j, dims)
                    : o.inf();
  }
  value = d(n, m);
  if (!std::isfinite(value)) return;
  walk_back(
      d, n, m, component,
      [&](EditMove move, std::size_t i, std::size_t j) -> std::optional<double> {
        if (j == 0) return cell.side(o, 0.0, a, i, dims);
        if (i == 0) return cell.top(o, 0.0, b, j, dims);
        if (!in_band(i, j)) return std::nullopt;
        const double c = cell.cell(o, move == EditMove::diagonal ? 0.0 : neutral,
                                   move == EditMove::a_step ? 0.0 : neutral,
                                   move == EditMove::b_step ? 0.0 : neutral, a, i, b, j, dims);
        if (!std::isfinite(c)) return std::nullopt;
        return c;
      },
      out);
}

}  // namespace

double twed(const SeriesView& a, const SeriesView& b, double nu, double lambda, double p) {
  check_pair(a, b);
  DistanceParams params;
  params.metric = Metric::twed;
  params.nu = nu;
  params.lambda = lambda;
  params.p = p;
  validate(params);
  return twed_table(TwedCosts{a, b, nu, lambda, p})(a.length, b.length);
}

EditPath edit_path(const SeriesView& a, const SeriesView& b, const DistanceParams& params) {
  validate(params);
  check_pair(a, b);
  const std::size_t n = a.length, m = b.length;
  EditPath out;
  if (params.metric == Metric::twed) {
    const TwedCosts t{a, b, params.nu, params.lambda, params.p};
    const Table d = twed_table(t);
    out.distance = d(n, m);
    if (std::isfinite(out.distance))
      walk_back(
          d, n, m, 0,
          [&](EditMove move, std::size_t i, std::size_t j) -> std::optional<double> {
            if (move == EditMove::diagonal) return t.match(i, j);
            return move == EditMove::a_step ? t.delete_a(i) : t.delete_b(j);
          },
          out.steps);
    return out;
  }
  bool done = false;
  cells::with_cell(params.metric, measure_params(params), params.cost == Cost::sq,
                   [&](const auto& cell) {
                     using Cell = std::decay_t<decltype(cell)>;
                     const BandOf band{n, m, params.band};
                     if constexpr (std::is_same_v<Cell, cells::MsmCell>) {
                       // One table per component, summed (docs/spec.md §4.4).
                       out.distance = 0.0;
                       for (std::size_t k = 0; k < a.dims; ++k) {
                         double value = 0.0;
                         cell_path(cell, cells::Component<SampleOf>{SampleOf{a}, k},
                                   cells::Component<SampleOf>{SampleOf{b}, k}, n, m, 1, band, inf,
                                   k, out.steps, value);
                         out.distance += value;
                       }
                     } else {
                       const double neutral = std::is_same_v<Cell, cells::LcssCell> ? -inf : inf;
                       double value = 0.0;
                       cell_path(cell, SampleOf{a}, SampleOf{b}, n, m, a.dims, band, neutral, 0,
                                 out.steps, value);
                       out.distance = Cell::finish(value, n, m);
                     }
                     done = true;
                   });
  if (!done)
    throw std::invalid_argument("edit_path: twed, msm, erp or lcss, not " +
                                std::string(to_string(params.metric)));
  return out;
}

}  // namespace warpwatch::kernels::reference
