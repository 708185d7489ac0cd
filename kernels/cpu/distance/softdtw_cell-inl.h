// softdtw's cell (docs/spec.md §4.2) on float64 lane-vectors, one series of B a lane: shared by
// the forward pass of elastic_kernel.cpp (the distance) and softdtw_grad_kernel.cpp (the
// gradient), so that both fill the table with the same operations. Highway's per-target
// inline header: included by a HWY_TARGET_INCLUDE file after hwy/highway.h, once per target.

// Per-target include guard (Highway's toggle idiom; no #pragma once).
#if defined(WARPWATCH_CPU_SOFTDTW_CELL_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef WARPWATCH_CPU_SOFTDTW_CELL_INL_H_
#undef WARPWATCH_CPU_SOFTDTW_CELL_INL_H_
#else
#define WARPWATCH_CPU_SOFTDTW_CELL_INL_H_
#endif

// clang-format off
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
// clang-format on

#include <cstddef>
#include <limits>

#include "warpwatch/kernels/params.hpp"

HWY_BEFORE_NAMESPACE();
namespace warpwatch::kernels::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Up to 8 doubles a vector; b is loaded as floats of the same lanes.
using SoftDD = hn::CappedTag<double, 8>;
using SoftVD = hn::Vec<SoftDD>;

// softmin_gamma(x, y, z), factoring out the smallest; +inf when all three are +inf.
HWY_INLINE SoftVD SoftMin(SoftDD dd, SoftVD x, SoftVD y, SoftVD z, SoftVD gamma, SoftVD inv_gamma) {
  const SoftVD vinf = hn::Set(dd, std::numeric_limits<double>::infinity());
  const SoftVD r = hn::Min(hn::Min(x, y), z);
  const auto term = [&](SoftVD v) {
    const SoftVD e = hn::Exp(dd, hn::Mul(hn::Sub(r, v), inv_gamma));
    return hn::IfThenZeroElse(hn::Eq(v, vinf), e);
  };
  const SoftVD sum = hn::Add(hn::Add(term(x), term(y)), term(z));
  return hn::IfThenElse(hn::Eq(r, vinf), vinf, hn::Sub(r, hn::Mul(gamma, hn::Log(dd, sum))));
}

// a_i's k-th component minus the lanes' b_j components, in double; b_j points at the lanes'
// first component ([dims][width] floats).
HWY_INLINE SoftVD SampleDiff(SoftDD dd, const float* HWY_RESTRICT a_i,
                             const float* HWY_RESTRICT b_j, std::size_t width, std::size_t k) {
  const hn::Rebind<float, SoftDD> df;
  const SoftVD b = hn::PromoteTo(dd, hn::LoadU(df, b_j + k * width));
  return hn::Sub(hn::Set(dd, static_cast<double>(a_i[k])), b);
}

// Local cost (docs/spec.md §2) of a_i against the lanes' b_j, summed over the components in order.
template <Cost kCost>
HWY_INLINE SoftVD SoftLocalCost(SoftDD dd, const float* HWY_RESTRICT a_i,
                                const float* HWY_RESTRICT b_j, std::size_t width,
                                std::size_t dims) {
  SoftVD c = hn::Zero(dd);
  for (std::size_t k = 0; k < dims; ++k) {
    const SoftVD diff = SampleDiff(dd, a_i, b_j, width, k);
    c = hn::Add(c, kCost == Cost::sq ? hn::Mul(diff, diff) : hn::Abs(diff));
  }
  return c;
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#endif  // WARPWATCH_CPU_SOFTDTW_CELL_INL_H_ toggle
