// Stream mode on the CPU: the SPRING column update of docs/spec.md §3.1 for a group of pairs,
// one pair per SIMD lane. Compiled once per instruction set (Highway's foreach_target)
// and dispatched at run time.
//
// Bit-identity with the reference (kernels/reference/spring.cpp) rests on three facts:
// each lane does the same float32 operations in the same order; the predecessor choice
// "up, then diag, then left, a later one only if strictly smaller" is computed as
// pre = (left < diag ? left : diag), best = (pre < up ? pre : up), which picks the same
// predecessor in every case (ties included); and the project builds with
// -ffp-contract=off, so no multiply-add is fused.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/stream/spring_kernel.cpp"
// Highway's per-target inclusion needs this order (no include sorting here).
// clang-format off
#include <hwy/foreach_target.h>  // must precede highway.h
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <limits>

#include "common/low32_index.hpp"
#include "cpu/stream/spring_dispatch.hpp"
#include "cpu/stream/spring_kernel.hpp"

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

std::size_t GroupWidth() {
  return 2 * hn::Lanes(DF());
}

// c(x, p) of docs/spec.md §2 for one lane-vector; x holds component k at x + k * width, and
// x0 is component 0 already loaded (the sample is the same all down the column).
template <Cost kCost>
HWY_INLINE VF LocalCost(DF df, VF x0, const float* HWY_RESTRICT x, std::size_t width,
                        const float* HWY_RESTRICT p, std::size_t dims) {
  const auto term = [&](VF xk, std::size_t k) {
    const VF diff = hn::Sub(xk, hn::Set(df, p[k]));
    return kCost == Cost::sq ? hn::Mul(diff, diff) : hn::Abs(diff);
  };
  VF c = term(x0, 0);  // = 0 + term exactly: the reference's accumulation starts at 0
  for (std::size_t k = 1; k < dims; ++k) c = hn::Add(c, term(hn::LoadU(df, x + k * width), k));
  return c;
}

// One cell update for one lane-vector: reads left = (t-1, i) from memory, returns the new
// D and S in d_out / s_out, keeps diag/up moving down the column.
template <Metric kMetric, Cost kCost, bool kAllActive>
HWY_INLINE void Cell(DF df, DI di, float* HWY_RESTRICT drow, std::int32_t* HWY_RESTRICT srow, VF x0,
                     const float* HWY_RESTRICT x, std::size_t width, const float* HWY_RESTRICT p,
                     std::size_t dims, MF active, VF& up_d, VI& up_s, VF& diag_d, VI& diag_s) {
  const VF left_d = hn::LoadU(df, drow);
  const VI left_s = hn::LoadU(di, srow);
  const VF c = LocalCost<kCost>(df, x0, x, width, p, dims);
  const MF left_wins = hn::Lt(left_d, diag_d);
  const VF pre_d = hn::IfThenElse(left_wins, left_d, diag_d);
  const VI pre_s = hn::IfThenElse(hn::RebindMask(di, left_wins), left_s, diag_s);
  const MF pre_wins = hn::Lt(pre_d, up_d);
  const VF best_d = hn::IfThenElse(pre_wins, pre_d, up_d);
  VI best_s = hn::IfThenElse(hn::RebindMask(di, pre_wins), pre_s, up_s);
  VF d = kMetric == Metric::dtw ? hn::Add(c, best_d) : hn::Max(c, best_d);
  if (!kAllActive) {  // lanes whose stream has no sample at this step keep their column
    d = hn::IfThenElse(active, d, left_d);
    best_s = hn::IfThenElse(hn::RebindMask(di, active), best_s, left_s);
  }
  hn::StoreU(d, df, drow);
  hn::StoreU(best_s, di, srow);
  diag_d = left_d;
  diag_s = left_s;
  up_d = d;
  up_s = best_s;
}

// Rule 1's test, accumulated down the column: D(t,i) >= d_min or S(t,i) > t_e.
HWY_INLINE MI StillFinal(DF, DI di, MI ok, VF d, VI s, VF d_min, VI t_e) {
  const MI not_better = hn::RebindMask(di, hn::Ge(d, d_min));
  const MI starts_after = hn::Gt(hn::Sub(s, t_e), hn::Zero(di));  // wrap-around compare
  return hn::And(ok, hn::Or(not_better, starts_after));
}

// One column (one time step) for both lane-vectors (only the first when kUpper is false:
// a group whose upper lanes hold no pair); returns rule 1's verdict per lane.
template <Metric kMetric, Cost kCost, bool kTrack, bool kAllActive, bool kUpper>
HWY_NOINLINE void Column(const SpringGroupState& st, const float* HWY_RESTRICT x_t, VI cur0,
                         VI cur1, MF act0, MF act1, MI& ok0, MI& ok1) {
  const DF df;
  const DI di;
  const std::size_t n = hn::Lanes(df), w = st.width;
  VF up0 = hn::Zero(df), up1 = hn::Zero(df), diag0 = hn::Zero(df), diag1 = hn::Zero(df);
  VI ups0 = cur0, ups1 = cur1, diags0 = cur0, diags1 = cur1;  // boundary: D(t,0) = 0, S = t
  const VF dmin0 = hn::LoadU(df, st.d_min), dmin1 = hn::LoadU(df, st.d_min + n);
  const VI te0 = hn::LoadU(di, st.t_e), te1 = hn::LoadU(di, st.t_e + n);
  const VF x00 = hn::LoadU(df, x_t), x01 = hn::LoadU(df, x_t + n);
  // Locals, not st's fields: vector stores may alias anything (the intrinsics' types are
  // may_alias), so fields read in the loop would be reloaded after every store.
  const std::size_t m = st.m, dims = st.dims;
  float* drow = st.d;
  std::int32_t* srow = st.s;
  const float* p = st.pattern;
  for (std::size_t i = 0; i < m; ++i, drow += w, srow += w, p += dims) {
    Cell<kMetric, kCost, kAllActive>(df, di, drow, srow, x00, x_t, w, p, dims, act0, up0, ups0,
                                     diag0, diags0);
    if (kUpper)
      Cell<kMetric, kCost, kAllActive>(df, di, drow + n, srow + n, x01, x_t + n, w, p, dims, act1,
                                       up1, ups1, diag1, diags1);
    if (kTrack) {
      ok0 = StillFinal(df, di, ok0, up0, ups0, dmin0, te0);
      if (kUpper) ok1 = StillFinal(df, di, ok1, up1, ups1, dmin1, te1);
    }
  }
}

// Rules 1 (report, then forget overlapping cells) and 2 (new candidate) for one
// lane-vector at offset `o`, after its column was computed.
void Report(const SpringGroupState& st, std::size_t o, std::size_t lanes, std::uint32_t step,
            VI cur, MF active, MI ok, bool tracked, std::vector<SpringLaneReport>& reports) {
  const DF df;
  const DI di;
  const std::size_t w = st.width;
  const VF eps = hn::Set(df, st.eps);
  VF d_min = hn::LoadU(df, st.d_min + o);
  VI t_s = hn::LoadU(di, st.t_s + o), t_e = hn::LoadU(di, st.t_e + o);
  if (tracked) {
    const MF pending = hn::And(active, hn::Le(d_min, eps));
    const MF report = hn::And(pending, hn::RebindMask(df, ok));
    if (!hn::AllFalse(df, report)) {
      alignas(64) std::int32_t flags[16];
      hn::StoreU(hn::VecFromMask(di, hn::RebindMask(di, report)), di, flags);
      for (std::size_t lane = 0; lane < hn::Lanes(df); ++lane)
        if (flags[lane] && o + lane < lanes)
          reports.push_back({static_cast<std::uint32_t>(o + lane), step, st.d_min[o + lane],
                             st.t_s[o + lane], st.t_e[o + lane]});
      const MI report_i = hn::RebindMask(di, report);
      for (std::size_t i = 0; i < st.m; ++i) {  // D(t,i) = inf where S(t,i) <= t_e
        float* drow = st.d + i * w + o;
        // S - t_e <= 0, written as 1 > S - t_e (this Highway has no integer <=)
        const MI overlaps = hn::Gt(hn::Set(di, 1), hn::Sub(hn::LoadU(di, st.s + i * w + o), t_e));
        const MF forget = hn::RebindMask(df, hn::And(report_i, overlaps));
        hn::StoreU(hn::IfThenElse(forget, hn::Inf(df), hn::LoadU(df, drow)), df, drow);
      }
      d_min = hn::IfThenElse(report, hn::Inf(df), d_min);
    }
  }
  const VF d_m = hn::LoadU(df, st.d + (st.m - 1) * w + o);
  const MF better = hn::And(active, hn::And(hn::Le(d_m, eps), hn::Lt(d_m, d_min)));
  const MI better_i = hn::RebindMask(di, better);
  hn::StoreU(hn::IfThenElse(better, d_m, d_min), df, st.d_min + o);
  hn::StoreU(hn::IfThenElse(better_i, hn::LoadU(di, st.s + (st.m - 1) * w + o), t_s), di,
             st.t_s + o);
  hn::StoreU(hn::IfThenElse(better_i, cur, t_e), di, st.t_e + o);
}

template <Metric kMetric, Cost kCost>
void RunTyped(const SpringGroupState& st, const SpringBatch& batch,
              std::vector<SpringLaneReport>& reports) {
  const DF df;
  const DI di;
  const std::size_t n = hn::Lanes(df);
  const std::size_t w = st.width;
  // Lanes without a pair run along as if active (their columns are reset when a pair
  // moves in, and their reports are dropped), so a partly filled group keeps the
  // unmasked path and skips the second vector when it is empty.
  alignas(64) std::int32_t count[64];
  std::uint32_t min_count = static_cast<std::uint32_t>(batch.steps);
  for (std::size_t lane = 0; lane < w; ++lane) {
    count[lane] = static_cast<std::int32_t>(lane < batch.lanes ? batch.count[lane] : batch.steps);
    if (lane < batch.lanes) min_count = std::min(min_count, batch.count[lane]);
  }
  const bool upper = batch.lanes > n;
  const VI count0 = hn::LoadU(di, count), count1 = hn::LoadU(di, count + n);
  const VI first0 = hn::LoadU(di, batch.first), first1 = hn::LoadU(di, batch.first + n);
  const VF eps = hn::Set(df, st.eps);
  for (std::size_t t = 0; t < batch.steps; ++t) {
    const VI step = hn::Set(di, static_cast<std::int32_t>(t));
    const VI cur0 = hn::Add(first0, step), cur1 = hn::Add(first1, step);  // wraps: low 32 bits
    const MF act0 = hn::RebindMask(df, hn::Lt(step, count0));
    const MF act1 = hn::RebindMask(df, hn::Lt(step, count1));
    const bool all_active = t < min_count;
    // Rule 1 only has work when a lane holds a pending candidate.
    const bool track = !hn::AllFalse(df, hn::Le(hn::LoadU(df, st.d_min), eps)) ||
                       !hn::AllFalse(df, hn::Le(hn::LoadU(df, st.d_min + n), eps));
    MI ok0 = hn::RebindMask(di, act0), ok1 = hn::RebindMask(di, act1);
    const float* x_t = batch.x + t * st.dims * w;
    using ColumnFn = void (*)(const SpringGroupState&, const float*, VI, VI, MF, MF, MI&, MI&);
    static constexpr ColumnFn columns[2][2][2] = {
        {{Column<kMetric, kCost, false, false, false>, Column<kMetric, kCost, false, false, true>},
         {Column<kMetric, kCost, false, true, false>, Column<kMetric, kCost, false, true, true>}},
        {{Column<kMetric, kCost, true, false, false>, Column<kMetric, kCost, true, false, true>},
         {Column<kMetric, kCost, true, true, false>, Column<kMetric, kCost, true, true, true>}}};
    columns[track][all_active][upper](st, x_t, cur0, cur1, act0, act1, ok0, ok1);
    const auto s = static_cast<std::uint32_t>(t);
    Report(st, 0, batch.lanes, s, cur0, act0, ok0, track, reports);
    if (upper) Report(st, n, batch.lanes, s, cur1, act1, ok1, track, reports);
  }
}

void Run(const SpringGroupState& st, const SpringBatch& batch,
         std::vector<SpringLaneReport>& reports) {
  with_spring_metric(st.metric, st.cost, [&](auto metric, auto cost) {
    RunTyped<decltype(metric)::value, decltype(cost)::value>(st, batch, reports);
  });
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace warpwatch::kernels::cpu {

HWY_EXPORT(GroupWidth);
HWY_EXPORT(Run);

std::size_t spring_group_width() {
  static const std::size_t width = HWY_DYNAMIC_DISPATCH(GroupWidth)();
  return width;
}

void spring_group_run(const SpringGroupState& state, const SpringBatch& batch,
                      std::vector<SpringLaneReport>& reports) {
  HWY_DYNAMIC_DISPATCH(Run)(state, batch, reports);
}

std::uint32_t spring_lane_live_age(const SpringGroupState& st, std::size_t lane,
                                   std::int32_t next) {
  // The wrap-around distance back in time (fits 32 bits: starts are low 32 bits).
  const auto back = [&](std::int32_t start) {
    return static_cast<std::uint32_t>(common::samples_back(next, start));
  };
  std::uint32_t oldest = 0;
  if (st.d_min[lane] <= st.eps) oldest = back(st.t_s[lane]);
  for (std::size_t i = 0; i < st.m; ++i)
    if (st.d[i * st.width + lane] <= st.eps)
      oldest = std::max(oldest, back(st.s[i * st.width + lane]));
  return oldest;
}

}  // namespace warpwatch::kernels::cpu
#endif  // HWY_ONCE
