// The cell of the register wavefronts (warp_distance.cu, window/window_dtw.cu): dtw and dk
// in float32 with an explicit fma, device code only.
#pragma once

#include <cuda_runtime.h>

#include "cuda/distance/distance_launch.hpp"

namespace warpwatch::kernels::cuda::detail {

__device__ __forceinline__ float inf_f() {
  return __int_as_float(0x7f800000);
}

// The new cell from its local cost terms and three predecessors (dtw, dk).
template <FastKind K>
__device__ __forceinline__ float warp_cell(float a, float b, float up, float left, float diag) {
  // D >= 0 here (costs are >= 0; +inf outside), and non-negative floats order like their
  // bit patterns as integers: the min of three is one instruction on sm_90 (VIMNMX3, a DPX
  // instruction) where fminf(fminf()) would be two.
  const float best =
      __int_as_float(__vimin3_s32(__float_as_int(left), __float_as_int(diag), __float_as_int(up)));
  const float d = a - b;
  if constexpr (K == FastKind::dtw_sq) return __fmaf_rn(d, d, best);
  if constexpr (K == FastKind::dtw_abs) return fabsf(d) + best;
  if constexpr (K == FastKind::dk_sq) return fmaxf(d * d, best);
  return fmaxf(fabsf(d), best);  // dk_abs
}

}  // namespace warpwatch::kernels::cuda::detail
