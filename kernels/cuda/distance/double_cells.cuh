// The float64 cell pieces of the thread-per-job kernels (generic_distance.cu: the distances;
// softdtw_grad.cu: softdtw's gradient), written as the reference writes them (docs/spec.md §2,
// 4.1, 4.2), device code only.
#pragma once

#include <cuda_runtime.h>

namespace warpwatch::kernels::cuda::detail {

// Cost as an int, in params.hpp's order.
constexpr int kCostSq = 0;

__device__ __forceinline__ double inf_d() {
  return __longlong_as_double(0x7ff0000000000000ll);
}

__device__ inline double local_cost(const float* x, const float* y, unsigned dims, int cost) {
  double c = 0.0;
  for (unsigned k = 0; k < dims; ++k) {
    const double diff = static_cast<double>(x[k]) - static_cast<double>(y[k]);
    c += cost == kCostSq ? diff * diff : fabs(diff);
  }
  return c;
}

__device__ inline double softmin(double x, double y, double z, double gamma) {
  const double r = fmin(fmin(x, y), z);
  if (r == inf_d()) return r;
  const double sum = exp(-(x - r) / gamma) + exp(-(y - r) / gamma) + exp(-(z - r) / gamma);
  return r - gamma * log(sum);
}

// The Sakoe-Chiba band (band < 0: none) of row i of an n x m table: a conservative column
// range [lo, hi] (one column of slack either side for rounding; lo = m + 1 when the row is
// empty), never decreasing with i, and the reference's own predicate for each cell of it,
// evaluated the same way in double.
struct BandRow {
  unsigned lo, hi;
};
__device__ inline BandRow band_row(unsigned i, unsigned n, unsigned m, double band) {
  if (band < 0.0) return {1, m};
  const double dn = n, dm = m;
  const double from = floor((static_cast<double>(i) - band) * dm / dn) - 1.0;
  const double to = ceil((static_cast<double>(i) + band) * dm / dn) + 1.0;
  return {from < 1.0  ? 1u
          : from > dm ? m + 1
                      : static_cast<unsigned>(from),
          to > dm ? m : static_cast<unsigned>(to)};
}
__device__ inline bool in_band(unsigned i, unsigned j, unsigned n, unsigned m, double band) {
  return band < 0.0 ||
         fabs(static_cast<double>(i) -
              static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m)) <= band;
}

}  // namespace warpwatch::kernels::cuda::detail
