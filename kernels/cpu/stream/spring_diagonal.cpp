// One pair's SPRING columns along the anti-diagonal (spring_diagonal.hpp). Compiled once
// per instruction set (Highway's foreach_target) and dispatched at run time.
//
// A stripe is V consecutive columns t0 .. t0+V-1 (V: the float lanes). Step k computes,
// in lane j, the cell of column t0+j and row i = k-j: its up is lane j of step k-1, its
// left lane j-1 of step k-1 (lane 0: the column before the stripe), its diagonal the
// left of step k-1. So a step is one lane shift and the reference's cell arithmetic, and
// lanes whose row is negative hold the boundary D(t, -1) = 0, S = t. The cells go to a
// buffer [step][lane] as they are made. Two stripes run at a time, the second V steps
// behind the first (its column before is the first's last lane), so that two dependency
// chains fill the core's pipelines.
//
// SPRING's rules need the whole of a column, and a stripe finishes its columns one step
// apart. So the rules run after the stripe, column by column, in the reference's order:
//  - rule 1's test (every cell D >= d_min or S > t_e) is made during the stripe against
//    the candidate pending when it began; when rule 2 changes the candidate in the middle
//    of the stripe, the later columns are tested again from the buffer;
//  - a report resets cells of its column, which changes every later column: the stripe
//    ends there (the second stripe is void), the reset column becomes the state, and the
//    next stripe starts after it.
// Every cell is computed with the reference's float32 operations in its order (the
// predecessor choice as in spring_kernel.cpp; the build has -ffp-contract=off), so the
// results are the reference's bit for bit.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/stream/spring_diagonal.cpp"
// Highway's per-target inclusion needs this order (no include sorting here).
// clang-format off
#include <hwy/foreach_target.h>  // must precede highway.h
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <bit>
#include <limits>

#include "cpu/stream/spring_diagonal.hpp"
#include "cpu/stream/spring_dispatch.hpp"
#include "warpwatch/kernels/errors.hpp"

HWY_BEFORE_NAMESPACE();
namespace warpwatch::kernels::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DF = hn::CappedTag<float, 16>;
using DI = hn::RebindToSigned<DF>;
using VF = hn::Vec<DF>;
using VI = hn::Vec<DI>;
using MF = hn::Mask<DF>;
using MI = hn::Mask<DI>;

constexpr float kInf = std::numeric_limits<float>::infinity();

std::size_t DiagonalWidth() {
  return hn::Lanes(DF());
}

template <Cost kCost>
HWY_INLINE VF Term(VF x, VF p) {
  const VF diff = hn::Sub(x, p);
  return kCost == Cost::sq ? hn::Mul(diff, diff) : hn::Abs(diff);
}

struct StripeIn {
  const float* col_d;  // the column before the stripe
  const std::int32_t* col_s;
  const float* reversed;  // component q's row i at reversed[q * rev_len + m + V - 1 - i]
  std::size_t rev_len;
  const float* x;  // the stripe's samples, [component][lane]
  std::size_t m, dims, n;
  std::int32_t col0;  // low 32 bits of column t0's index
  float d_min;        // kTrack: the candidate the columns are tested against
  std::int32_t t_e;
  float* bd;  // out: cells, [step][lane]
  std::int32_t* bs;
  std::int32_t* ok;  // out (kTrack): rule 1's test per lane, -1 passed
};

// At step k >= m, lanes j <= k - m are below the last row: not cells.
HWY_INLINE MI BelowLastRow(DI di, VI lane, std::size_t k, std::size_t m) {
  return hn::Not(hn::Gt(lane, hn::Set(di, static_cast<std::int32_t>(k - m))));
}

// Rule 1's test of one step's cells: D >= d_min or S > t_e (wrap-around compare).
HWY_INLINE MI Passes(DI di, VF d, VI s, VF d_min, VI t_e) {
  return hn::Or(hn::RebindMask(di, hn::Ge(d, d_min)), hn::Gt(hn::Sub(s, t_e), hn::Zero(di)));
}

// One stripe's running vectors: the last step's cells (up), the last step's left (the
// next diagonal), rule 1's test so far, and what does not change along the stripe.
struct StripeLanes {
  VF up_d, diag_d, x0, d_min;
  VI up_s, diag_s, boundary_s, t_e;
  MI ok;
  // The column before the stripe, read at k * stride: the pair's state (stride 1), or the
  // last lane of the stripe before it in the buffer (stride V).
  const float* left_d;
  const std::int32_t* left_s;
  std::size_t stride;
};

HWY_INLINE StripeLanes StartStripe(const StripeIn& in, const float* left_d,
                                   const std::int32_t* left_s, std::size_t stride) {
  const DF df;
  const DI di;
  StripeLanes L;
  L.boundary_s = hn::Add(hn::Set(di, in.col0), hn::Iota(di, 0));  // S = t on the boundary row
  L.up_d = L.diag_d = hn::Zero(df);  // step -1: the boundary row; the diagonal of (t0, 0)
  L.up_s = L.diag_s = L.boundary_s;
  L.x0 = hn::LoadU(df, in.x);
  L.d_min = hn::Set(df, in.d_min);
  L.t_e = hn::Set(di, in.t_e);
  L.ok = hn::FirstN(di, hn::Lanes(df));
  L.left_d = left_d;
  L.left_s = left_s;
  L.stride = stride;
  return L;
}

// Step k of a stripe: lane j computes the cell of column t0 + j, row k - j.
template <Metric kMetric, Cost kCost, bool kOneDim, bool kTrack>
HWY_INLINE void StripeStep(const StripeIn& in, StripeLanes& L, std::size_t k) {
  const DF df;
  const DI di;
  const std::size_t V = hn::Lanes(df), m = in.m;
  // Lane j takes lane j-1 (lane 0 is then replaced by the column before the stripe).
  alignas(64) static constexpr std::int32_t kShift[16] = {0, 0, 1, 2,  3,  4,  5,  6,
                                                          7, 8, 9, 10, 11, 12, 13, 14};
  const bool row = k < m;
  const VF left_d =
      hn::IfThenElse(hn::FirstN(df, 1), hn::Set(df, row ? L.left_d[k * L.stride] : kInf),
                     hn::TableLookupLanes(L.up_d, hn::SetTableIndices(df, kShift)));
  const VI left_s = hn::IfThenElse(hn::FirstN(di, 1), hn::Set(di, row ? L.left_s[k * L.stride] : 0),
                                   hn::TableLookupLanes(L.up_s, hn::SetTableIndices(di, kShift)));
  const float* p = in.reversed + (m + V - 1) - k;
  VF c = Term<kCost>(L.x0, hn::LoadU(df, p));  // = 0 + term exactly, as the reference starts
  if (!kOneDim)
    for (std::size_t q = 1; q < in.dims; ++q)
      c = hn::Add(c, Term<kCost>(hn::LoadU(df, in.x + q * V), hn::LoadU(df, p + q * in.rev_len)));
  const MF left_wins = hn::Lt(left_d, L.diag_d);
  const VF pre_d = hn::IfThenElse(left_wins, left_d, L.diag_d);
  const VI pre_s = hn::IfThenElse(hn::RebindMask(di, left_wins), left_s, L.diag_s);
  const MF pre_wins = hn::Lt(pre_d, L.up_d);
  const VF best_d = hn::IfThenElse(pre_wins, pre_d, L.up_d);
  VI s = hn::IfThenElse(hn::RebindMask(di, pre_wins), pre_s, L.up_s);
  VF d = kMetric == Metric::dtw ? hn::Add(c, best_d) : hn::Max(c, best_d);
  const VI lane = hn::Iota(di, 0);
  if (k + 1 < V) {  // lanes j > k are above row 0: the boundary
    const MI above = hn::Gt(lane, hn::Set(di, static_cast<std::int32_t>(k)));
    d = hn::IfThenElse(hn::RebindMask(df, above), hn::Zero(df), d);
    s = hn::IfThenElse(above, L.boundary_s, s);
  }
  hn::StoreU(d, df, in.bd + k * V);
  hn::StoreU(s, di, in.bs + k * V);
  if (kTrack) {
    MI pass = Passes(di, d, s, L.d_min, L.t_e);
    if (k >= m) pass = hn::Or(pass, BelowLastRow(di, lane, k, m));
    L.ok = hn::And(L.ok, pass);
  }
  L.diag_d = left_d;
  L.diag_s = left_s;
  L.up_d = d;
  L.up_s = s;
}

// Stripe a (full: V columns) and, when b.n > 0, stripe b (the V columns after it) V steps
// behind it: b's column before it is a's last lane, made one step earlier, and the two
// dependency chains run side by side.
template <Metric kMetric, Cost kCost, bool kOneDim, bool kTrack>
HWY_NOINLINE void Stripes(const StripeIn& a, const StripeIn& b) {
  const DI di;
  const std::size_t V = hn::Lanes(di), steps_a = a.m + a.n - 1, steps_b = b.m + b.n - 1;
  StripeLanes la = StartStripe(a, a.col_d, a.col_s, 1);
  if (b.n == 0) {
    for (std::size_t k = 0; k < steps_a; ++k) StripeStep<kMetric, kCost, kOneDim, kTrack>(a, la, k);
  } else {
    StripeLanes lb = StartStripe(b, a.bd + (V - 1) * V + (V - 1), a.bs + (V - 1) * V + (V - 1), V);
    std::size_t k = 0;
    for (; k < V; ++k) StripeStep<kMetric, kCost, kOneDim, kTrack>(a, la, k);
    for (; k < steps_a; ++k) {
      StripeStep<kMetric, kCost, kOneDim, kTrack>(a, la, k);
      StripeStep<kMetric, kCost, kOneDim, kTrack>(b, lb, k - V);
    }
    for (; k < V + steps_b; ++k) StripeStep<kMetric, kCost, kOneDim, kTrack>(b, lb, k - V);
    if (kTrack) hn::StoreU(hn::VecFromMask(di, lb.ok), di, b.ok);
  }
  if (kTrack) hn::StoreU(hn::VecFromMask(di, la.ok), di, a.ok);
}

// Rule 1's test of every column of a finished stripe against a candidate that the stripe
// did not know (lanes at or before the candidate's column come out meaningless).
HWY_NOINLINE void Retest(const float* bd, const std::int32_t* bs, std::size_t m, std::size_t n,
                         float d_min_value, std::int32_t t_e_value, std::int32_t* ok_out) {
  const DF df;
  const DI di;
  const std::size_t V = hn::Lanes(df);
  const VI lane = hn::Iota(di, 0);
  const VF d_min = hn::Set(df, d_min_value);
  const VI t_e = hn::Set(di, t_e_value);
  MI ok = hn::FirstN(di, V);
  for (std::size_t k = 0; k + 1 < m + n; ++k) {
    MI pass = Passes(di, hn::LoadU(df, bd + k * V), hn::LoadU(di, bs + k * V), d_min, t_e);
    if (k >= m) pass = hn::Or(pass, BelowLastRow(di, lane, k, m));
    ok = hn::And(ok, pass);
  }
  hn::StoreU(hn::VecFromMask(di, ok), di, ok_out);
}

std::int32_t plus32(std::int32_t a, std::size_t b) {  // low 32 bits, wrapping
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// The rules for the stripe's columns in order (see the top of this file); the state
// becomes the last column settled. Returns how many columns that is (fewer than n when a
// report ended the stripe).
std::size_t SettleStripe(const SpringGroupState& st, const StripeIn& in, std::size_t t0,
                         bool tested, std::uint32_t lane, std::vector<SpringLaneReport>& reports) {
  const std::size_t V = DiagonalWidth(), m = st.m, n = in.n;
  const auto cell = [&](std::size_t i, std::size_t j) { return (i + j) * V + j; };
  const auto take_column = [&](std::size_t j) {
    for (std::size_t i = 0; i < m; ++i) {
      st.d[i] = in.bd[cell(i, j)];
      st.s[i] = in.bs[cell(i, j)];
    }
  };
  const auto rule2 = [&](float d_m, std::int32_t s_m, std::size_t j) {
    if (d_m <= st.eps && d_m < *st.d_min) {
      *st.d_min = d_m;
      *st.t_s = s_m;
      *st.t_e = plus32(in.col0, j);
      return true;
    }
    return false;
  };
  bool fresh = tested;  // in.ok holds the test against the pending candidate
  for (std::size_t j = 0; j < n; ++j) {
    if (*st.d_min <= st.eps) {
      if (!fresh) {
        Retest(in.bd, in.bs, m, n, *st.d_min, *st.t_e, in.ok);
        fresh = true;
      }
      if (in.ok[j]) {
        reports.push_back({lane, static_cast<std::uint32_t>(t0 + j), *st.d_min, *st.t_s, *st.t_e});
        *st.d_min = kInf;
        take_column(j);
        for (std::size_t i = 0; i < m; ++i)  // D(t,i) = inf where S(t,i) <= t_e
          if (static_cast<std::int32_t>(static_cast<std::uint32_t>(st.s[i]) -
                                        static_cast<std::uint32_t>(*st.t_e)) <= 0)
            st.d[i] = kInf;
        rule2(st.d[m - 1], st.s[m - 1], j);
        return j + 1;
      }
    }
    if (rule2(in.bd[cell(m - 1, j)], in.bs[cell(m - 1, j)], j)) fresh = false;
  }
  take_column(n - 1);
  return n;
}

template <Metric kMetric, Cost kCost>
void RunPairTyped(const SpringGroupState& st, const float* x, std::uint32_t count,
                  std::int32_t first, std::uint32_t lane, SpringDiagonalScratch& sc,
                  std::vector<SpringLaneReport>& reports) {
  const std::size_t V = DiagonalWidth(), m = st.m, dims = st.dims;
  const std::size_t rev_len = m + 2 * V;
  sc.reversed.assign(dims * rev_len, 0.0f);
  for (std::size_t q = 0; q < dims; ++q)
    for (std::size_t i = 0; i < m; ++i)
      sc.reversed[q * rev_len + m + V - 1 - i] = st.pattern[i * dims + q];
  sc.x.resize(2 * dims * V);
  sc.d.resize(2 * (m + V) * V);
  sc.s.resize(2 * (m + V) * V);
  alignas(64) std::int32_t ok_a[16] = {}, ok_b[16] = {};
  using StripesFn = void (*)(const StripeIn&, const StripeIn&);
  static constexpr StripesFn stripes[2][2] = {
      {Stripes<kMetric, kCost, false, false>, Stripes<kMetric, kCost, false, true>},
      {Stripes<kMetric, kCost, true, false>, Stripes<kMetric, kCost, true, true>}};
  for (std::size_t t = 0; t < count;) {
    // Two stripes at a time: a of V columns (fewer only at the end) and b of the next.
    const std::size_t n_a = std::min<std::size_t>(V, count - t);
    const std::size_t n_b = n_a == V ? std::min<std::size_t>(V, count - t - n_a) : 0;
    for (std::size_t q = 0; q < dims; ++q)
      for (std::size_t j = 0; j < 2 * V; ++j)
        sc.x[(j / V) * dims * V + q * V + j % V] = j < n_a + n_b ? x[(t + j) * dims + q] : 0.0f;
    const bool tested = *st.d_min <= st.eps;
    const StripeIn a{st.d,        st.s, sc.reversed.data(), rev_len,   sc.x.data(), m,
                     dims,        n_a,  plus32(first, t),   *st.d_min, *st.t_e,     sc.d.data(),
                     sc.s.data(), ok_a};
    StripeIn b = a;
    b.x = sc.x.data() + dims * V;
    b.n = n_b;
    b.col0 = plus32(first, t + n_a);
    b.bd = sc.d.data() + (m + V) * V;
    b.bs = sc.s.data() + (m + V) * V;
    b.ok = ok_b;
    stripes[dims == 1][tested](a, b);
    const float d_min = *st.d_min;
    const std::int32_t t_e = *st.t_e;
    const std::size_t reported = reports.size();
    t += SettleStripe(st, a, t, tested, lane, reports);
    // A report in a (at its last column too) resets cells that b started from: b is void.
    if (reports.size() != reported || n_b == 0) continue;
    // b's test holds when the candidate it was made against did not change in a.
    const bool same = *st.t_e == t_e && std::bit_cast<std::uint32_t>(*st.d_min) ==
                                            std::bit_cast<std::uint32_t>(d_min);
    t += SettleStripe(st, b, t, tested && same, lane, reports);
  }
}

void RunPair(const SpringGroupState& st, const float* x, std::uint32_t count, std::int32_t first,
             std::uint32_t lane, SpringDiagonalScratch& sc,
             std::vector<SpringLaneReport>& reports) {
  if (count == 0) return;
  with_spring_metric(st.metric, st.cost, [&](auto metric, auto cost) {
    RunPairTyped<decltype(metric)::value, decltype(cost)::value>(st, x, count, first, lane, sc,
                                                                 reports);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace warpwatch::kernels::cpu {

HWY_EXPORT(DiagonalWidth);
HWY_EXPORT(RunPair);

std::size_t spring_diagonal_width() {
  static const std::size_t width = HWY_DYNAMIC_DISPATCH(DiagonalWidth)();
  return width;
}

void spring_pair_run(const SpringGroupState& state, const float* x, std::uint32_t count,
                     std::int32_t first, std::uint32_t lane, SpringDiagonalScratch& scratch,
                     std::vector<SpringLaneReport>& reports) {
  WW_ASSERT(state.width == 1, "spring_pair_run: one pair, a contiguous column");
  HWY_DYNAMIC_DISPATCH(RunPair)(state, x, count, first, lane, scratch, reports);
}

}  // namespace warpwatch::kernels::cpu
#endif  // HWY_ONCE
