// cpu/window_bounds_simd.hpp: common::keogh_terms in double lane-vectors. The float32
// operands are loaded half a register wide and promoted; a raw window value is normalized
// as common::znormal does it, (x - mean) * scale in double rounded to float32 (the build
// contracts no multiply-add), so each term is the scalar term exactly.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/window/window_bounds_simd.cpp"
// Highway's per-target inclusion needs this order (no include sorting here).
// clang-format off
#include <hwy/foreach_target.h>  // must precede highway.h
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <cstdint>

#include "common/window/window_stats.hpp"
#include "cpu/window/window_bounds_simd.hpp"

HWY_BEFORE_NAMESPACE();
namespace warpwatch::kernels::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using common::KeoghNormalize;
using DD = hn::ScalableTag<double>;
using DF = hn::Rebind<float, DD>;
using VD = hn::Vec<DD>;

template <Metric kMetric, Cost kCost, KeoghNormalize kNorm>
double Terms(const common::KeoghTerms& t, double cut) {
  const DD dd;
  const DF df;
  const std::size_t lanes = hn::Lanes(dd);
  const VD mean = hn::Set(dd, t.mean), scale = hn::Set(dd, t.scale), zero = hn::Zero(dd);
  // common::znormal, lane by lane.
  const auto normal = [&](hn::Vec<DF> x) {
    return hn::PromoteTo(dd, hn::DemoteTo(df, hn::Mul(hn::Sub(hn::PromoteTo(dd, x), mean), scale)));
  };
  const auto term = [&](std::size_t u) {
    const hn::Vec<DF> raw = hn::LoadU(df, t.values + u);
    const VD x = kNorm == KeoghNormalize::values ? normal(raw) : hn::PromoteTo(dd, raw);
    const auto envelope = [&](const float* p) {
      const auto e = hn::LoadU(df, p + u);
      return kNorm == KeoghNormalize::envelope ? normal(e) : hn::PromoteTo(dd, e);
    };
    const VD lo = envelope(t.lo), hi = envelope(t.hi);
    const VD d = hn::Max(hn::Max(hn::Sub(x, hi), hn::Sub(lo, x)), zero);  // common::outside
    return kCost == Cost::sq ? hn::Mul(d, d) : d;
  };
  const auto combine = [](VD a, VD b) {
    return kMetric == Metric::dtw ? hn::Add(a, b) : hn::Max(a, b);
  };
  const auto reduce = [&](VD v) {
    return hn::GetLane(kMetric == Metric::dtw ? hn::SumOfLanes(dd, v) : hn::MaxOfLanes(dd, v));
  };
  // Two lane-vectors a step (independent chains), the cut tested after each step.
  VD acc0 = zero, acc1 = zero;
  std::size_t u = 0;
  for (; u + 2 * lanes <= t.count; u += 2 * lanes) {
    acc0 = combine(acc0, term(u));
    acc1 = combine(acc1, term(u + lanes));
    const double bound = reduce(combine(acc0, acc1));
    if (bound > cut) return bound;
  }
  VD acc = combine(acc0, acc1);
  if (u + lanes <= t.count) {
    acc = combine(acc, term(u));
    u += lanes;
  }
  if (u < t.count && t.count >= lanes) {  // the last lane-vector, less the terms already in
    const std::size_t at = t.count - lanes;
    acc = combine(acc, hn::IfThenZeroElse(hn::FirstN(dd, u - at), term(at)));
    u = t.count;
  }
  const double bound = reduce(acc);
  if (u == t.count) return bound;
  // Fewer terms than lanes: one at a time, as common::keogh_terms computes each.
  common::KeoghTerms tail = t;
  tail.values = t.values + u;
  tail.lo = t.lo + u;
  tail.hi = t.hi + u;
  tail.count = t.count - u;
  const double rest = common::keogh_terms(tail, kMetric, kCost, hwy::HighestValue<double>());
  return kMetric == Metric::dtw ? bound + rest : std::max(bound, rest);
}

template <Metric kMetric, Cost kCost>
double TermsOf(const common::KeoghTerms& t, double cut) {
  // A visiting order is left to the scalar form: gathering the values cost more than the
  // earlier abandoning it buys (UCR's order against column order, measured on the bench).
  if (t.order) return common::keogh_terms(t, kMetric, kCost, cut);
  switch (t.normalize) {
    case KeoghNormalize::none:
      return Terms<kMetric, kCost, KeoghNormalize::none>(t, cut);
    case KeoghNormalize::values:
      return Terms<kMetric, kCost, KeoghNormalize::values>(t, cut);
    case KeoghNormalize::envelope:
      return Terms<kMetric, kCost, KeoghNormalize::envelope>(t, cut);
  }
  return common::keogh_terms(t, kMetric, kCost, cut);
}

double KeoghTermsImpl(const common::KeoghTerms& t, Metric metric, Cost cost, double cut) {
  const bool sq = cost == Cost::sq;
  if (metric == Metric::dtw)
    return sq ? TermsOf<Metric::dtw, Cost::sq>(t, cut) : TermsOf<Metric::dtw, Cost::abs>(t, cut);
  return sq ? TermsOf<Metric::dk, Cost::sq>(t, cut) : TermsOf<Metric::dk, Cost::abs>(t, cut);
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace warpwatch::kernels::cpu {

HWY_EXPORT(KeoghTermsImpl);

double keogh_terms_simd(const common::KeoghTerms& terms, Metric metric, Cost cost, double cut) {
  return HWY_DYNAMIC_DISPATCH(KeoghTermsImpl)(terms, metric, cost, cut);
}

}  // namespace warpwatch::kernels::cpu
#endif  // HWY_ONCE
