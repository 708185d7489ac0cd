// Whole-series dtw, dk, twed, msm, erp (float32) and softdtw, lcss (float64) of one series
// against a group of equally long series, one SIMD lane per series of the group. msm, erp
// and lcss are the shared cells of common/measure_cells.hpp on Highway lane-vectors. Rows run over
// a, the lanes' columns over j; a single row buffer is updated in place, so memory is O(m) per lane
// whatever the lengths. Two lane-vectors per row give two independent dependency chains (the
// D(i,j-1) -> D(i,j) chain is what bounds a row).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/distance/elastic_kernel.cpp"
// Highway's per-target inclusion needs this order (no include sorting here).
// clang-format off
#include <hwy/foreach_target.h>  // must precede highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
#include "cpu/distance/softdtw_cell-inl.h"
// clang-format on

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "common/measure_cells.hpp"
#include "common/window/window_bounds.hpp"
#include "cpu/distance/elastic_kernel.hpp"
#include "warpwatch/kernels/errors.hpp"

HWY_BEFORE_NAMESPACE();
namespace warpwatch::kernels::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 16>;
using VF = hn::Vec<DF>;

std::size_t Width() {
  return 2 * hn::Lanes(DF());
}

// Local cost (docs/spec.md §2) of a_i against one lane-vector of b_j.
template <Cost kCost>
HWY_INLINE VF LocalCost(DF df, const float* HWY_RESTRICT a_i, const float* HWY_RESTRICT b_j,
                        std::size_t width, std::size_t dims) {
  const auto term = [&](std::size_t k) {
    const VF diff = hn::Sub(hn::Set(df, a_i[k]), hn::LoadU(df, b_j + k * width));
    return kCost == Cost::sq ? hn::Mul(diff, diff) : hn::Abs(diff);
  };
  VF c = term(0);
  for (std::size_t k = 1; k < dims; ++k) c = hn::Add(c, term(k));
  return c;
}

// Columns [lo, hi] of row i, or all when there is no band.
struct RowRange {
  std::size_t lo, hi;
};
HWY_INLINE RowRange Range(const ElasticScratch& s, bool banded, std::size_t i, std::size_t m) {
  if (!banded) return {1, m};
  return {static_cast<std::size_t>(s.band_lo[i]), static_cast<std::size_t>(s.band_hi[i])};
}

// Sets cells [from, to] of the row buffer to +inf (outside the band, or j = 0).
HWY_INLINE void FillInf(DF df, float* row, std::size_t from, std::size_t to, std::size_t width) {
  for (std::size_t j = from; j <= to; ++j)
    for (std::size_t o = 0; o < width; o += hn::Lanes(df))
      hn::StoreU(hn::Inf(df), df, row + j * width + o);
}

// Abandoning after row i (OneVsMany::limit): false once every lane is given up.
template <Metric kMetric>
bool KeepLanes(const OneVsMany& job, std::size_t i, ElasticScratch& s) {
  bool any = false;
  for (std::size_t lane = 0; lane < job.width; ++lane) {
    if (!s.alive[lane]) continue;
    const double least = s.row_min[lane], rest = job.rest[(i + 1) * job.width + lane];
    const double bound = kMetric == Metric::dtw ? least + rest : std::max(least, rest);
    if (bound * (1.0 - job.margin) > job.limit[lane])
      s.alive[lane] = 0;
    else
      any = true;
  }
  return any;
}

template <Metric kMetric, Cost kCost>
void Warping(const OneVsMany& job, bool banded, ElasticScratch& s, double* out) {
  const DF df;
  const std::size_t n = hn::Lanes(df), w = job.width, m = job.m;
  s.f.resize((m + 1) * w);
  float* row = s.f.data();
  FillInf(df, row, 0, m, w);
  hn::StoreU(hn::Zero(df), df, row);  // D(0,0) = 0
  hn::StoreU(hn::Zero(df), df, row + n);
  const bool abandoning = job.limit != nullptr;
  if (abandoning) {
    s.alive.assign(w, 1);
    s.row_min.resize(w);
  }
  // Cells [dirty_lo, dirty_hi] may hold finite values; all others are +inf. A band's rows
  // only move right, so each row resets only what its predecessor wrote and it does not
  // (O(band) a row, not O(m)).
  std::size_t dirty_lo = 0, dirty_hi = 0;  // D(0,0) = 0
  for (std::size_t i = 1; i <= job.n; ++i) {
    const float* a_i = job.a + (i - 1) * job.dims;
    const RowRange r = Range(s, banded, i, m);
    if (r.lo > r.hi) {  // empty row: nothing reachable any more
      FillInf(df, row, 0, m, w);
      dirty_lo = m + 1;
      dirty_hi = 0;
      continue;
    }
    VF diag0 = hn::LoadU(df, row + (r.lo - 1) * w), diag1 = hn::LoadU(df, row + (r.lo - 1) * w + n);
    if (dirty_lo + 1 <= r.lo) FillInf(df, row, dirty_lo, r.lo - 1, w);
    VF left0 = hn::Inf(df), left1 = hn::Inf(df);
    VF least0 = hn::Inf(df), least1 = hn::Inf(df);
    for (std::size_t j = r.lo; j <= r.hi; ++j) {
      float* cell = row + j * w;
      const float* b_j = job.b + (j - 1) * job.dims * w;
      const VF up0 = hn::LoadU(df, cell), up1 = hn::LoadU(df, cell + n);
      const VF best0 = hn::Min(hn::Min(up0, left0), diag0);
      const VF best1 = hn::Min(hn::Min(up1, left1), diag1);
      const VF c0 = LocalCost<kCost>(df, a_i, b_j, w, job.dims);
      const VF c1 = LocalCost<kCost>(df, a_i, b_j + n, w, job.dims);
      left0 = kMetric == Metric::dtw ? hn::Add(c0, best0) : hn::Max(c0, best0);
      left1 = kMetric == Metric::dtw ? hn::Add(c1, best1) : hn::Max(c1, best1);
      hn::StoreU(left0, df, cell);
      hn::StoreU(left1, df, cell + n);
      diag0 = up0;
      diag1 = up1;
      if (abandoning) {
        least0 = hn::Min(least0, left0);
        least1 = hn::Min(least1, left1);
      }
    }
    if (dirty_hi > r.hi) FillInf(df, row, r.hi + 1, dirty_hi, w);
    dirty_lo = r.lo;
    dirty_hi = r.hi;
    if (abandoning) {
      hn::StoreU(least0, df, s.row_min.data());
      hn::StoreU(least1, df, s.row_min.data() + n);
      if (!KeepLanes<kMetric>(job, i, s)) {
        for (std::size_t lane = 0; lane < w; ++lane)
          out[lane] = std::numeric_limits<double>::infinity();
        return;
      }
    }
  }
  for (std::size_t lane = 0; lane < w; ++lane)
    out[lane] =
        abandoning && !s.alive[lane] ? std::numeric_limits<double>::infinity() : row[m * w + lane];
}

// ||x||_p of one lane-vector of differences spread over `dims` components.
HWY_INLINE VF PNorm(DF df, const float* HWY_RESTRICT x_row, bool x_is_zero,
                    const float* HWY_RESTRICT y, std::size_t y_stride, std::size_t dims, float p,
                    bool broadcast_x) {
  const auto diff = [&](std::size_t k) {
    const VF x = x_is_zero
                     ? hn::Zero(df)
                     : (broadcast_x ? hn::Set(df, x_row[k]) : hn::LoadU(df, x_row + k * y_stride));
    return hn::Abs(hn::Sub(x, hn::LoadU(df, y + k * y_stride)));
  };
  if (dims == 1) return diff(0);  // |x| for every p
  VF sum = hn::Zero(df);
  for (std::size_t k = 0; k < dims; ++k) {
    const VF d = diff(k);
    if (p == 1.0f) {
      sum = hn::Add(sum, d);
    } else if (p == 2.0f) {
      sum = hn::Add(sum, hn::Mul(d, d));
    } else {  // |d|^p = exp(p log |d|), 0 for d = 0
      const VF pw = hn::Exp(df, hn::Mul(hn::Set(df, p), hn::Log(df, d)));
      sum = hn::Add(sum, hn::IfThenZeroElse(hn::Eq(d, hn::Zero(df)), pw));
    }
  }
  if (p == 1.0f) return sum;
  if (p == 2.0f) return hn::Sqrt(sum);
  const VF root = hn::Exp(df, hn::Mul(hn::Set(df, 1.0f / p), hn::Log(df, sum)));
  return hn::IfThenZeroElse(hn::Eq(sum, hn::Zero(df)), root);
}

void Twed(const OneVsMany& job, const DistanceParams& params, ElasticScratch& s, double* out) {
  const DF df;
  const std::size_t n = hn::Lanes(df), w = job.width, m = job.m, dims = job.dims;
  const float nu = static_cast<float>(params.nu), lambda = static_cast<float>(params.lambda);
  const float p = static_cast<float>(params.p);
  s.f.resize(3 * (m + 1) * w);
  float* row = s.f.data();              // D(i-1, j) -> D(i, j), in place
  float* g_prev = row + (m + 1) * w;    // g(i-1, j) = ||a_{i-1} - b_j|| + nu |ta_{i-1} - tb_j|
  float* del_b = g_prev + (m + 1) * w;  // ||b_j - b_{j-1}|| + nu (tb_j - tb_{j-1}) + lambda
  const auto tb = [&](std::size_t j, std::size_t o) {  // 1-based j, lane-vector at o
    return job.b_times ? hn::LoadU(df, job.b_times + (j - 1) * w + o)
                       : hn::Set(df, static_cast<float>(j - 1));
  };
  const auto ta = [&](std::size_t i) {
    return job.a_times ? job.a_times[i - 1] : static_cast<float>(i - 1);
  };
  for (std::size_t j = 1; j <= m; ++j) {
    for (std::size_t o = 0; o < w; o += n) {
      const float* b_j = job.b + (j - 1) * dims * w + o;
      const VF step = j == 1 ? PNorm(df, nullptr, true, b_j, w, dims, p, false)
                             : PNorm(df, b_j - dims * w, false, b_j, w, dims, p, false);
      const VF dt = j == 1 ? tb(j, o) : hn::Sub(tb(j, o), tb(j - 1, o));
      hn::StoreU(hn::Add(hn::Add(step, hn::Mul(hn::Set(df, nu), dt)), hn::Set(df, lambda)), df,
                 del_b + j * w + o);
    }
  }
  FillInf(df, row, 1, m, w);
  hn::StoreU(hn::Zero(df), df, row);
  hn::StoreU(hn::Zero(df), df, row + n);
  for (std::size_t i = 1; i <= job.n; ++i) {
    const float* a_i = job.a + (i - 1) * dims;
    float del_a = 0;  // ||a_i - a_{i-1}|| + nu (ta_i - ta_{i-1}) + lambda, a_0 = 0 at time 0
    {
      double sum = 0;
      for (std::size_t k = 0; k < dims; ++k) {
        const double d = std::fabs(static_cast<double>(a_i[k]) - (i > 1 ? (a_i - dims)[k] : 0.0));
        sum += dims == 1 ? d : std::pow(d, params.p);
      }
      const double norm = dims == 1 ? sum : std::pow(sum, 1.0 / params.p);
      del_a = static_cast<float>(norm + params.nu * (ta(i) - (i > 1 ? ta(i - 1) : 0.0f)) +
                                 params.lambda);
    }
    for (std::size_t o = 0; o < w; o += n) {
      VF diag = hn::LoadU(df, row + o);
      VF left = hn::Inf(df);  // D(i, 0)
      hn::StoreU(left, df, row + o);
      VF g_left = hn::Zero(df);
      const VF ta_i = hn::Set(df, ta(i));
      for (std::size_t j = 1; j <= m; ++j) {
        float* cell = row + j * w + o;
        const VF up = hn::LoadU(df, cell);
        const VF g =
            hn::Add(PNorm(df, a_i, false, job.b + (j - 1) * dims * w + o, w, dims, p, true),
                    hn::Mul(hn::Set(df, nu), hn::Abs(hn::Sub(ta_i, tb(j, o)))));
        VF match = hn::Add(diag, g);
        if (i > 1 && j > 1) match = hn::Add(match, hn::LoadU(df, g_prev + (j - 1) * w + o));
        if (j > 1) hn::StoreU(g_left, df, g_prev + (j - 1) * w + o);  // g(i, j-1) for row i+1
        const VF from_a = hn::Add(up, hn::Set(df, del_a));
        const VF from_b = hn::Add(left, hn::LoadU(df, del_b + j * w + o));
        left = hn::Min(match, hn::Min(from_a, from_b));
        hn::StoreU(left, df, cell);
        diag = up;
        g_left = g;
      }
      hn::StoreU(g_left, df, g_prev + m * w + o);
    }
  }
  for (std::size_t lane = 0; lane < w; ++lane) out[lane] = row[m * w + lane];
}

// softdtw in float64: one double lane-vector at a time over the group.
template <Cost kCost>
void SoftDtw(const OneVsMany& job, const DistanceParams& params, bool banded, ElasticScratch& s,
             double* out) {
  const SoftDD dd;
  const std::size_t nd = hn::Lanes(dd), w = job.width, m = job.m, dims = job.dims;
  const auto vinf = hn::Set(dd, std::numeric_limits<double>::infinity());
  const auto gamma = hn::Set(dd, params.gamma), inv_gamma = hn::Set(dd, 1.0 / params.gamma);
  s.g.resize((m + 1) * nd);
  double* row = s.g.data();
  for (std::size_t o = 0; o < w; o += nd) {
    for (std::size_t j = 0; j <= m; ++j) hn::StoreU(j == 0 ? hn::Zero(dd) : vinf, dd, row + j * nd);
    for (std::size_t i = 1; i <= job.n; ++i) {
      const float* a_i = job.a + (i - 1) * dims;
      const RowRange r = Range(s, banded, i, m);
      auto diag = hn::LoadU(dd, row);
      hn::StoreU(vinf, dd, row);
      auto left = vinf;
      for (std::size_t j = 1; j <= m; ++j) {
        double* cell = row + j * nd;
        const auto up = hn::LoadU(dd, cell);
        auto value = vinf;
        if (j >= r.lo && j <= r.hi) {
          const auto c = SoftLocalCost<kCost>(dd, a_i, job.b + (j - 1) * dims * w + o, w, dims);
          value = hn::Add(c, SoftMin(dd, up, left, diag, gamma, inv_gamma));
        }
        hn::StoreU(value, dd, cell);
        left = value;
        diag = up;
      }
    }
    for (std::size_t lane = 0; lane < nd; ++lane) out[o + lane] = row[m * nd + lane];
  }
}

// --- the shared cells (common/measure_cells.hpp): msm, erp, lcss -----------------------

// Their definitions compiled for this target: the table sweep passes this target's vectors
// from function to function, so it must be built with the target's attributes (one copy of
// the text per target, as Highway's own -inl headers are).
namespace cells {
// clang-format off
#include "common/measure_cells-inl.h"
// clang-format on
}  // namespace cells

// Their arithmetic on lane-vectors of D (float for msm and erp, double for lcss).
template <class D>
struct LaneOps {
  using T = hn::TFromD<D>;
  using V = hn::Vec<D>;
  using M = hn::Mask<D>;
  D d;
  V set(double x) const { return hn::Set(d, static_cast<T>(x)); }
  V inf() const { return hn::Inf(d); }
  V add(V a, V b) const { return hn::Add(a, b); }
  V sub(V a, V b) const { return hn::Sub(a, b); }
  V mul(V a, V b) const { return hn::Mul(a, b); }
  V abs(V a) const { return hn::Abs(a); }
  V min(V a, V b) const { return hn::Min(a, b); }
  V max(V a, V b) const { return hn::Max(a, b); }
  M le(V a, V b) const { return hn::Le(a, b); }
  M and_(M a, M b) const { return hn::And(a, b); }
  M all() const { return hn::FirstN(d, hn::Lanes(d)); }
  V select(M m, V yes, V no) const { return hn::IfThenElse(m, yes, no); }
};

// a's samples, the same for every lane.
template <class D>
struct BroadcastSamples {
  D d;
  const float* a;
  std::size_t dims;
  hn::Vec<D> operator()(std::size_t i, std::size_t k) const {
    return hn::Set(d, static_cast<hn::TFromD<D>>(a[(i - 1) * dims + k]));
  }
};

// The lanes' samples of b ([m][dims][width] floats), from lane `o` on.
template <class D>
struct LaneSamples {
  D d;
  const float* b;
  std::size_t dims, width;
  hn::Vec<D> operator()(std::size_t j, std::size_t k) const {
    const float* p = b + ((j - 1) * dims + k) * width;
    if constexpr (std::is_same_v<hn::TFromD<D>, float>)
      return hn::LoadU(d, p);
    else
      return hn::PromoteTo(d, hn::LoadU(hn::Rebind<float, D>(), p));
  }
};

template <class D>
struct LaneRow {
  D d;
  hn::TFromD<D>* base;  // m + 1 lane-vectors
  hn::Vec<D> load(std::size_t j) const { return hn::LoadU(d, base + j * hn::Lanes(d)); }
  void store(std::size_t j, hn::Vec<D> v) const { hn::StoreU(v, d, base + j * hn::Lanes(d)); }
};

// The band's columns of each row as band_ranges gives them (the reference's predicate).
struct RangeBand {
  const std::int32_t* lo;
  const std::int32_t* hi;
  bool operator()(std::size_t i, std::size_t j) const {
    return static_cast<std::int64_t>(j) >= lo[i] && static_cast<std::int64_t>(j) <= hi[i];
  }
};

// One lane-vector of D at a time over the group, each through the cell's own sweep.
template <class D, class Cell, class InBand>
void SharedCells(D d, const Cell& cell, const OneVsMany& job, const InBand& in_band,
                 ElasticScratch& s, double* out) {
  WW_ASSERT(job.limit == nullptr, "one_vs_many: no early abandoning for this measure");
  using T = hn::TFromD<D>;
  const std::size_t lanes = hn::Lanes(d), m = job.m;
  T* buffer = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    s.f.resize((m + 1) * lanes);
    buffer = s.f.data();
  } else {
    s.g.resize((m + 1) * lanes);
    buffer = s.g.data();
  }
  const LaneOps<D> ops{d};
  const BroadcastSamples<D> a{d, job.a, job.dims};
  LaneRow<D> row{d, buffer};
  T last[16];  // a lane-vector: at most 16 floats or 8 doubles (CappedTag)
  for (std::size_t o = 0; o < job.width; o += lanes) {
    const LaneSamples<D> b{d, job.b + o, job.dims, job.width};
    hn::StoreU(cell.distance(ops, a, b, job.n, m, job.dims, row, in_band), d, last);
    for (std::size_t lane = 0; lane < lanes; ++lane)
      out[o + lane] = Cell::finish(static_cast<double>(last[lane]), job.n, m);
  }
}

// A measure's cell over the group: float32 or float64 lanes as the cell asks (kFloat64),
// inside the band when one is set (validate() lets a band through only to the measures it
// applies to).
template <class Cell>
void SharedCellsOf(const Cell& cell, const OneVsMany& job, bool banded, ElasticScratch& s,
                   double* out) {
  using D = std::conditional_t<Cell::kFloat64, SoftDD, DF>;
  if (banded)
    SharedCells(D(), cell, job, RangeBand{s.band_lo.data(), s.band_hi.data()}, s, out);
  else
    SharedCells(D(), cell, job, cells::NoBand{}, s, out);
}

void OneVsManyImpl(const OneVsMany& job, const DistanceParams& params, ElasticScratch& s,
                   double* out) {
  const bool banded = params.band.has_value();
  if (banded) common::band_ranges(job.n, job.m, *params.band, s.band_lo, s.band_hi);
  const bool sq = params.cost == Cost::sq;
  switch (params.metric) {
    case Metric::dtw:
      return sq ? Warping<Metric::dtw, Cost::sq>(job, banded, s, out)
                : Warping<Metric::dtw, Cost::abs>(job, banded, s, out);
    case Metric::dk:
      return sq ? Warping<Metric::dk, Cost::sq>(job, banded, s, out)
                : Warping<Metric::dk, Cost::abs>(job, banded, s, out);
    case Metric::softdtw:
      return sq ? SoftDtw<Cost::sq>(job, params, banded, s, out)
                : SoftDtw<Cost::abs>(job, params, banded, s, out);
    case Metric::twed:
      return Twed(job, params, s, out);
    case Metric::ed:  // lock-step, not elastic: cpu/window_ed.hpp
      WW_ASSERT(false, "one_vs_many: ed has no table to fill");
      return;
      WARPWATCH_CELL_MEASURE_CASES
      return cells::with_cell(params.metric, measure_params(params), sq,
                              [&](const auto& cell) { SharedCellsOf(cell, job, banded, s, out); });
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace warpwatch::kernels::cpu {

HWY_EXPORT(Width);
HWY_EXPORT(OneVsManyImpl);

std::size_t elastic_group_width() {
  static const std::size_t width = HWY_DYNAMIC_DISPATCH(Width)();
  return width;
}

void one_vs_many(const OneVsMany& job, const DistanceParams& params, ElasticScratch& scratch,
                 double* out) {
  HWY_DYNAMIC_DISPATCH(OneVsManyImpl)(job, params, scratch, out);
}

}  // namespace warpwatch::kernels::cpu
#endif  // HWY_ONCE
