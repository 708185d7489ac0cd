// The definitions of common/measure_cells.hpp (read that first), included into a namespace
// by its includer: no include guard, no #include (std::size_t, WW_HOST_DEVICE and
// warpwatch/kernels/measures.hpp come from the includer), so that the cpu backend can
// compile them once per SIMD target. A new measure computed by a cell is its struct here,
// its CellOf line at the end, and its rows in measures.hpp.

// Scalar arithmetic of type T (double on the reference and the device).
template <typename T>
struct ScalarOps {
  using V = T;
  using M = bool;
  WW_HOST_DEVICE static V set(double x) { return static_cast<T>(x); }
  WW_HOST_DEVICE static V inf() { return static_cast<T>(__builtin_huge_val()); }
  WW_HOST_DEVICE static V add(V a, V b) { return a + b; }
  WW_HOST_DEVICE static V sub(V a, V b) { return a - b; }
  WW_HOST_DEVICE static V mul(V a, V b) { return a * b; }
  WW_HOST_DEVICE static V abs(V a) { return a < 0 ? -a : a; }
  WW_HOST_DEVICE static V min(V a, V b) { return b < a ? b : a; }
  WW_HOST_DEVICE static V max(V a, V b) { return a < b ? b : a; }
  WW_HOST_DEVICE static M le(V a, V b) { return a <= b; }
  WW_HOST_DEVICE static M and_(M a, M b) { return a && b; }
  WW_HOST_DEVICE static M all() { return true; }
  WW_HOST_DEVICE static V select(M m, V yes, V no) { return m ? yes : no; }
};

// Every cell is inside (no band).
struct NoBand {
  WW_HOST_DEVICE bool operator()(std::size_t, std::size_t) const { return true; }
};

// Component `k` of a sample accessor, as a one-dimensional accessor (msm sums one table per
// component).
template <typename A>
struct Component {
  const A& a;
  std::size_t k;
  WW_HOST_DEVICE auto operator()(std::size_t i, std::size_t) const { return a(i, k); }
};

// The table of a measure swept row by row (rows i = 1..n over a, columns j = 1..m over b),
// keeping one row (m + 1 cells, updated in place) and the diagonal and left neighbours:
// O(m) memory whatever n. Cells (i, j >= 1) outside `in_band` are +inf; row 0 and column 0
// are the measure's own (corner, top, side). Returns D(n, m).
template <class Ops, class Cell, class A, class B, class Row, class InBand>
WW_HOST_DEVICE typename Ops::V sweep_table(const Ops& o, const Cell& cell, const A& a, const B& b,
                                           std::size_t n, std::size_t m, std::size_t dims, Row& row,
                                           const InBand& in_band) {
  using V = typename Ops::V;
  V prev = cell.corner(o);
  row.store(0, prev);
  for (std::size_t j = 1; j <= m; ++j) {
    prev = cell.top(o, prev, b, j, dims);
    row.store(j, prev);
  }
  for (std::size_t i = 1; i <= n; ++i) {
    V diag = row.load(0);
    V left = cell.side(o, diag, a, i, dims);
    row.store(0, left);
    for (std::size_t j = 1; j <= m; ++j) {
      const V up = row.load(j);
      const V v = in_band(i, j) ? cell.cell(o, diag, up, left, a, i, b, j, dims) : o.inf();
      row.store(j, v);
      diag = up;
      left = v;
    }
  }
  return row.load(m);
}

// --- msm (docs/spec.md §4.4) ------------------------------------------------------------
// One dimension per table: D(0, 0) = 0 and the rest of row 0 and column 0 +inf make the
// general cell give the spec's first row and column (D(1,1) = |a_1 - b_1| from the
// diagonal; D(i,1) and D(1,j) from their one finite neighbour). The components' tables are
// summed (the "independent" form).
struct MsmCell {
  double c = 1.0;  // cost of a split or a merge, >= 0

  WW_HOST_DEVICE static MsmCell from(const MeasureParams& p, bool) { return MsmCell{p.c}; }
  static constexpr bool kFloat64 = false;  // the cpu sums in float32, like dtw

  // C(x, y, z): c when x lies between y and z (either order), else c plus the distance of x
  // to the nearer of them.
  template <class Ops, class V>
  WW_HOST_DEVICE V split_merge(const Ops& o, V x, V y, V z) const {
    const V lo = o.min(y, z), hi = o.max(y, z);
    const V cv = o.set(c);
    const V far = o.add(cv, o.min(o.abs(o.sub(x, y)), o.abs(o.sub(x, z))));
    return o.select(o.and_(o.le(lo, x), o.le(x, hi)), cv, far);
  }

  template <class Ops>
  WW_HOST_DEVICE typename Ops::V corner(const Ops& o) const {
    return o.set(0.0);
  }
  template <class Ops, class B>
  WW_HOST_DEVICE typename Ops::V top(const Ops& o, typename Ops::V, const B&, std::size_t,
                                     std::size_t) const {
    return o.inf();
  }
  template <class Ops, class A>
  WW_HOST_DEVICE typename Ops::V side(const Ops& o, typename Ops::V, const A&, std::size_t,
                                      std::size_t) const {
    return o.inf();
  }
  // One dimension: a and b are one-dimensional accessors (Component). a_0 and b_0 do not
  // exist; the terms that would read them add to +inf neighbours, so any finite stand-in
  // (the sample itself) leaves the cell as the spec has it.
  template <class Ops, class A, class B>
  WW_HOST_DEVICE typename Ops::V cell(const Ops& o, typename Ops::V diag, typename Ops::V up,
                                      typename Ops::V left, const A& a, std::size_t i, const B& b,
                                      std::size_t j, std::size_t) const {
    using V = typename Ops::V;
    const V ai = a(i, 0), bj = b(j, 0);
    const V a_prev = a(i > 1 ? i - 1 : i, 0), b_prev = b(j > 1 ? j - 1 : j, 0);
    const V move = o.add(diag, o.abs(o.sub(ai, bj)));
    const V split = o.add(up, split_merge(o, ai, a_prev, bj));
    const V merge = o.add(left, split_merge(o, bj, ai, b_prev));
    return o.min(move, o.min(split, merge));
  }

  // The sum over the components of each one's table.
  template <class Ops, class A, class B, class Row, class InBand>
  WW_HOST_DEVICE typename Ops::V distance(const Ops& o, const A& a, const B& b, std::size_t n,
                                          std::size_t m, std::size_t dims, Row& row,
                                          const InBand& in_band) const {
    typename Ops::V sum = o.set(0.0);
    for (std::size_t k = 0; k < dims; ++k)
      sum = o.add(sum, sweep_table(o, *this, Component<A>{a, k}, Component<B>{b, k}, n, m, 1, row,
                                   in_band));
    return sum;
  }
  // The distance from what `distance` returns (one lane's value, in double).
  WW_HOST_DEVICE static double finish(double value, std::size_t, std::size_t) { return value; }
};

// --- erp (docs/spec.md §4.5) ------------------------------------------------------------
// The gap g is one value for every component; the local cost is docs/spec.md §2's (sq or
// abs) over the whole sample, as dtw's. Row 0 and column 0 are the gap-only prefixes (the
// band constrains cells i, j >= 1 only, as dtw's does).
struct ErpCell {
  double g = 0.0;  // gap value
  bool sq = true;  // Cost::sq, else Cost::abs

  WW_HOST_DEVICE static ErpCell from(const MeasureParams& p, bool sq) { return ErpCell{p.g, sq}; }
  static constexpr bool kFloat64 = false;

  template <class Ops, class V>
  WW_HOST_DEVICE V term(const Ops& o, V diff) const {
    return sq ? o.mul(diff, diff) : o.abs(diff);
  }
  // c(x, g) of sample i of an accessor.
  template <class Ops, class X>
  WW_HOST_DEVICE typename Ops::V gap(const Ops& o, const X& x, std::size_t i,
                                     std::size_t dims) const {
    typename Ops::V sum = term(o, o.sub(x(i, 0), o.set(g)));
    for (std::size_t k = 1; k < dims; ++k) sum = o.add(sum, term(o, o.sub(x(i, k), o.set(g))));
    return sum;
  }

  template <class Ops>
  WW_HOST_DEVICE typename Ops::V corner(const Ops& o) const {
    return o.set(0.0);
  }
  template <class Ops, class B>
  WW_HOST_DEVICE typename Ops::V top(const Ops& o, typename Ops::V prev, const B& b, std::size_t j,
                                     std::size_t dims) const {
    return o.add(prev, gap(o, b, j, dims));
  }
  template <class Ops, class A>
  WW_HOST_DEVICE typename Ops::V side(const Ops& o, typename Ops::V prev, const A& a, std::size_t i,
                                      std::size_t dims) const {
    return o.add(prev, gap(o, a, i, dims));
  }
  template <class Ops, class A, class B>
  WW_HOST_DEVICE typename Ops::V cell(const Ops& o, typename Ops::V diag, typename Ops::V up,
                                      typename Ops::V left, const A& a, std::size_t i, const B& b,
                                      std::size_t j, std::size_t dims) const {
    using V = typename Ops::V;
    V match = term(o, o.sub(a(i, 0), b(j, 0)));
    for (std::size_t k = 1; k < dims; ++k) match = o.add(match, term(o, o.sub(a(i, k), b(j, k))));
    const V both = o.add(diag, match);
    const V skip_a = o.add(up, gap(o, a, i, dims));
    const V skip_b = o.add(left, gap(o, b, j, dims));
    return o.min(both, o.min(skip_a, skip_b));
  }

  template <class Ops, class A, class B, class Row, class InBand>
  WW_HOST_DEVICE typename Ops::V distance(const Ops& o, const A& a, const B& b, std::size_t n,
                                          std::size_t m, std::size_t dims, Row& row,
                                          const InBand& in_band) const {
    return sweep_table(o, *this, a, b, n, m, dims, row, in_band);
  }
  WW_HOST_DEVICE static double finish(double value, std::size_t, std::size_t) { return value; }
};

// --- lcss (docs/spec.md §4.6) -----------------------------------------------------------
// L counts matches: whole numbers, exact in any float type up to 2^24; the match test is
// run in the Ops' type, double on every backend, so that every backend decides each match
// as the reference does and lcss comes out bit-identical to it.
struct LcssCell {
  double epsilon = 1.0;          // components match when they differ by at most this
  std::size_t delta = kNoLimit;  // samples match only when |i - j| <= delta (default: any)

  WW_HOST_DEVICE static LcssCell from(const MeasureParams& p, bool) {
    return LcssCell{p.epsilon, p.delta};
  }
  // Each match decided in float64 as the reference decides it (a float32 |a - b| <= epsilon
  // could differ at the boundary).
  static constexpr bool kFloat64 = true;

  template <class Ops>
  WW_HOST_DEVICE typename Ops::V corner(const Ops& o) const {
    return o.set(0.0);
  }
  template <class Ops, class B>
  WW_HOST_DEVICE typename Ops::V top(const Ops& o, typename Ops::V, const B&, std::size_t,
                                     std::size_t) const {
    return o.set(0.0);
  }
  template <class Ops, class A>
  WW_HOST_DEVICE typename Ops::V side(const Ops& o, typename Ops::V, const A&, std::size_t,
                                      std::size_t) const {
    return o.set(0.0);
  }
  template <class Ops, class A, class B>
  WW_HOST_DEVICE typename Ops::V cell(const Ops& o, typename Ops::V diag, typename Ops::V up,
                                      typename Ops::V left, const A& a, std::size_t i, const B& b,
                                      std::size_t j, std::size_t dims) const {
    using V = typename Ops::V;
    const V skip = o.max(up, left);
    if ((i > j ? i - j : j - i) > delta) return skip;
    const V eps = o.set(epsilon);
    typename Ops::M match = o.all();
    for (std::size_t k = 0; k < dims; ++k)
      match = o.and_(match, o.le(o.abs(o.sub(a(i, k), b(j, k))), eps));
    return o.select(match, o.add(diag, o.set(1.0)), skip);
  }

  template <class Ops, class A, class B, class Row, class InBand>
  WW_HOST_DEVICE typename Ops::V distance(const Ops& o, const A& a, const B& b, std::size_t n,
                                          std::size_t m, std::size_t dims, Row& row,
                                          const InBand& in_band) const {
    return sweep_table(o, *this, a, b, n, m, dims, row, in_band);
  }
  // 1 - L(n, m) / min(n, m).
  WW_HOST_DEVICE static double finish(double value, std::size_t n, std::size_t m) {
    return 1.0 - value / static_cast<double>(n < m ? n : m);
  }
};

// --- the measures' cells by Metric ---------------------------------------------------------
// CellOf<Metric::id>::type is the cell of a measure whose kernel is `cells` (measures.hpp).
// A cell has `from(MeasureParams, sq)` (its parameters), kFloat64 (the cpu computes it in
// float64, else float32), and corner/top/side/cell/distance/finish above.
template <Metric M>
struct CellOf;
template <>
struct CellOf<Metric::msm> {
  using type = MsmCell;
};
template <>
struct CellOf<Metric::erp> {
  using type = ErpCell;
};
template <>
struct CellOf<Metric::lcss> {
  using type = LcssCell;
};

// Calls f(cell) with the cell of `metric` made from its parameters (sq: Cost::sq). For a
// measure with a kernel of its own f is not called: the backends come here from
// WARPWATCH_CELL_MEASURE_CASES only.
#define WW_WITH_CELL_cells(id)                     \
  case Metric::id:                                 \
    f(CellOf<Metric::id>::type::from(params, sq)); \
    return;
#define WW_WITH_CELL_own(id)
#define WW_WITH_CELL(id, name, stream, band, times, cost, lock_step, bounds, path, kernel, \
                     summary)                                                              \
  WW_WITH_CELL_##kernel(id)
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <class F>
WW_HOST_DEVICE void with_cell(Metric metric, const MeasureParams& params, bool sq, F&& f) {
  switch (metric) {
    WARPWATCH_MEASURES(WW_WITH_CELL)
    default:
      break;
  }
}
#undef WW_WITH_CELL
#undef WW_WITH_CELL_own
#undef WW_WITH_CELL_cells
