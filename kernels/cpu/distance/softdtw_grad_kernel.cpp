// softdtw's gradient in float64, one SIMD lane per series of the group (softdtw_grad_kernel.hpp).
// The forward pass keeps the whole table R (row n + 1 and column m + 1 are +inf, so that
// the backward pass reads every successor without a bounds test), its rows in skewed strips
// for overlap; the backward pass keeps two rows of E = d value / d R and of R - cost, and adds
// each cell's E times the local cost's derivative to the gradient as it goes. A lane-vector
// whose cells are all +inf (outside a band) or whose successors all have E = 0 is skipped
// without an exp. With AVX-512 (8 lanes) a cell-vector took about 48 ns forward (3 exp, 1 log)
// and 35 ns backward (3 exp) on the development machine: bound by the exps' arithmetic.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/distance/softdtw_grad_kernel.cpp"
// Highway's per-target inclusion needs this order (no include sorting here).
// clang-format off
#include <hwy/foreach_target.h>  // must precede highway.h
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>
#include "cpu/distance/softdtw_cell-inl.h"
// clang-format on

#include <algorithm>
#include <limits>

#include "common/window/window_bounds.hpp"
#include "cpu/distance/softdtw_grad_kernel.hpp"

HWY_BEFORE_NAMESPACE();
namespace warpwatch::kernels::cpu {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows of the forward pass's strips (below). 2 already fill an AVX-512 core's pipelines
// here; 4 leave room for narrower vectors, whose cells are shorter.
constexpr std::size_t kStrip = 4;

std::size_t GradWidth() {
  return hn::Lanes(SoftDD());
}

template <Cost kCost>
void SoftDtwGrad(const GradJob& job, const DistanceParams& params, bool banded, GradScratch& s,
                 double* grad) {
  const SoftDD dd;
  const std::size_t w = hn::Lanes(dd), n = job.n, m = job.m, dims = job.dims, cols = m + 2;
  const SoftVD vinf = hn::Set(dd, std::numeric_limits<double>::infinity()), zero = hn::Zero(dd);
  const SoftVD gamma = hn::Set(dd, params.gamma), inv_gamma = hn::Set(dd, 1.0 / params.gamma);
  s.table.resize((n + 2) * cols * w);
  double* const table = s.table.data();
  const auto at = [&](std::size_t i, std::size_t j) { return table + (i * cols + j) * w; };
  const auto b_at = [&](std::size_t j) { return job.b + (j - 1) * dims * w; };  // 1-based j

  // Forward (docs/spec.md §4.2): R(0, 0) = 0, +inf around and outside the band.
  for (std::size_t j = 0; j < cols; ++j) {
    hn::StoreU(j == 0 ? zero : vinf, dd, at(0, j));
    hn::StoreU(vinf, dd, at(n + 1, j));
  }
  for (std::size_t i = 1; i <= n; ++i) {
    hn::StoreU(vinf, dd, at(i, 0));
    hn::StoreU(vinf, dd, at(i, m + 1));
  }
  const auto cell = [&](std::size_t i, std::size_t j) {
    SoftVD value = vinf;
    if (!banded || (j >= static_cast<std::size_t>(s.band_lo[i]) &&
                    j <= static_cast<std::size_t>(s.band_hi[i]))) {
      const SoftVD c = SoftLocalCost<kCost>(dd, job.a + (i - 1) * dims, b_at(j), w, dims);
      value = hn::Add(c, SoftMin(dd, hn::LoadU(dd, at(i - 1, j)), hn::LoadU(dd, at(i, j - 1)),
                                 hn::LoadU(dd, at(i - 1, j - 1)), gamma, inv_gamma));
    }
    hn::StoreU(value, dd, at(i, j));
  };
  // A cell's exp and log lie on the chain from its left neighbour to it, so the rows go in
  // strips of kStrip, row i0 + k lagging k columns behind row i0: the kStrip cells of a step
  // depend only on earlier steps, and their chains overlap (1.4x on AVX-512 over row by row).
  for (std::size_t i0 = 1; i0 <= n; i0 += kStrip) {
    const std::size_t rows = std::min(kStrip, n - i0 + 1);
    for (std::size_t t = 1; t < m + rows; ++t) {
      if (rows == kStrip && t >= kStrip && t <= m) {  // every row of the strip has column t - k
        for (std::size_t k = 0; k < kStrip; ++k) cell(i0 + k, t - k);
      } else {
        for (std::size_t k = 0; k < rows && k < t; ++k)
          if (t - k <= m) cell(i0 + k, t - k);
      }
    }
  }

  // Backward (Cuturi & Blondel 2017, Algorithm 2): E(n, m) = 1 where the lane has a path,
  // E(i, j) = sum over the successors s of E(s) exp((R(s) - c(s) - R(i, j)) / gamma), with
  // E = 0 beyond row n and column m and wherever R is +inf.
  s.rows.assign(4 * cols * w, 0.0);
  double* e_next = s.rows.data();        // E of row i + 1
  double* e_cur = e_next + cols * w;     // E of row i
  double* base_next = e_cur + cols * w;  // R - c of row i + 1
  double* base_cur = base_next + cols * w;
  std::fill_n(grad, n * dims * w, 0.0);
  const SoftVD one = hn::Set(dd, 1.0), two = hn::Set(dd, 2.0);
  // E(s) exp((R(s) - c(s) - r) / gamma), 0 where E(s) = 0 (there R(s) may be +inf).
  const auto term = [&](const double* e_s, const double* base_s, SoftVD r) {
    const SoftVD e = hn::LoadU(dd, e_s);
    const SoftVD x = hn::Exp(dd, hn::Mul(hn::Sub(hn::LoadU(dd, base_s), r), inv_gamma));
    return hn::IfThenZeroElse(hn::Eq(e, zero), hn::Mul(e, x));
  };
  for (std::size_t i = n; i >= 1; --i) {
    const float* a_i = job.a + (i - 1) * dims;
    double* g = grad + (i - 1) * dims * w;
    for (std::size_t j = m; j >= 1; --j) {
      const SoftVD r = hn::LoadU(dd, at(i, j));
      const auto finite = hn::Lt(r, vinf);
      SoftVD e = zero;
      if (!hn::AllFalse(dd, finite)) {
        if (i == n && j == m) {
          e = one;
        } else {
          const auto some = hn::Or(hn::Or(hn::Ne(hn::LoadU(dd, e_next + j * w), zero),
                                          hn::Ne(hn::LoadU(dd, e_cur + (j + 1) * w), zero)),
                                   hn::Ne(hn::LoadU(dd, e_next + (j + 1) * w), zero));
          if (!hn::AllFalse(dd, some))
            e = hn::Add(hn::Add(term(e_next + j * w, base_next + j * w, r),
                                term(e_cur + (j + 1) * w, base_cur + (j + 1) * w, r)),
                        term(e_next + (j + 1) * w, base_next + (j + 1) * w, r));
        }
        e = hn::IfThenElseZero(finite, e);
      }
      hn::StoreU(e, dd, e_cur + j * w);
      if (hn::AllTrue(dd, hn::Eq(e, zero))) continue;  // R - c is read only where E != 0
      // The local cost's derivative in a_i: 2 (a_ik - b_jk), or its sign (0 at 0).
      SoftVD c = zero;
      for (std::size_t k = 0; k < dims; ++k) {
        const SoftVD diff = SampleDiff(dd, a_i, b_at(j), w, k);
        c = hn::Add(c, kCost == Cost::sq ? hn::Mul(diff, diff) : hn::Abs(diff));
        const SoftVD dcost = kCost == Cost::sq
                                 ? hn::Mul(two, diff)
                                 : hn::IfThenZeroElse(hn::Eq(diff, zero), hn::CopySign(one, diff));
        hn::StoreU(hn::Add(hn::LoadU(dd, g + k * w), hn::Mul(e, dcost)), dd, g + k * w);
      }
      hn::StoreU(hn::Sub(r, c), dd, base_cur + j * w);
    }
    std::swap(e_next, e_cur);  // every E of columns 1..m is written again by the next row
    std::swap(base_next, base_cur);
  }
}

void GradImpl(const GradJob& job, const DistanceParams& params, GradScratch& s, double* grad) {
  const bool banded = params.band.has_value();
  if (banded) common::band_ranges(job.n, job.m, *params.band, s.band_lo, s.band_hi);
  return params.cost == Cost::sq ? SoftDtwGrad<Cost::sq>(job, params, banded, s, grad)
                                 : SoftDtwGrad<Cost::abs>(job, params, banded, s, grad);
}

}  // namespace HWY_NAMESPACE
}  // namespace warpwatch::kernels::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace warpwatch::kernels::cpu {

HWY_EXPORT(GradWidth);
HWY_EXPORT(GradImpl);

std::size_t softdtw_grad_width() {
  static const std::size_t width = HWY_DYNAMIC_DISPATCH(GradWidth)();
  return width;
}

std::size_t softdtw_grad_scratch_bytes(std::size_t n, std::size_t m) {
  return ((n + 2) * (m + 2) + 4 * (m + 2)) * softdtw_grad_width() * sizeof(double);
}

void softdtw_grad_lanes(const GradJob& job, const DistanceParams& params, GradScratch& scratch,
                        double* grad) {
  HWY_DYNAMIC_DISPATCH(GradImpl)(job, params, scratch, grad);
}

}  // namespace warpwatch::kernels::cpu
#endif  // HWY_ONCE
