// One SPRING cell (SPEC.md 3.1) in float32, exactly as kernels/reference/spring.cpp does
// it: predecessors up, diag, left in that order, a later one only when strictly smaller;
// c accumulated from 0 in component order; D = c + best (dtw) or max(c, best) (dk). The
// build passes --fmad=false, so c + best is never fused with the multiply.
#pragma once

#include <cstdint>

namespace warpwatch::kernels::cuda {

template <bool kAbs>
__device__ __forceinline__ float spring_term(float x, float p) {
  const float diff = x - p;
  return kAbs ? (diff < 0.0f ? -diff : diff) : diff * diff;
}

template <bool kDk>
__device__ __forceinline__ float spring_combine(float c, float best) {
  if (kDk) return c < best ? best : c;  // std::max(c, best)
  return c + best;
}

// Picks the predecessor; returns its D, writes its S.
__device__ __forceinline__ float spring_best(float up_d, std::int32_t up_s, float diag_d,
                                             std::int32_t diag_s, float left_d, std::int32_t left_s,
                                             std::int32_t& best_s) {
  float best_d = up_d;
  best_s = up_s;
  if (diag_d < best_d) {
    best_d = diag_d;
    best_s = diag_s;
  }
  if (left_d < best_d) {
    best_d = left_d;
    best_s = left_s;
  }
  return best_d;
}

// The same choice as spring_best, arranged for a chain of cells: left and diag are known
// before the cell above is, so only the min and the combine wait for it.
//  - D: the min of the three (equal candidates have equal bits: D is never -0 or NaN, and
//    non-negative floats order like their bit patterns as integers, so the min of three is
//    one instruction on sm_90: VIMNMX3, a DPX instruction);
//  - S: up's when up is that min (a tie keeps up), otherwise that of min(left, diag) in the
//    reference's order: left's only when left is strictly smaller than diag.
__device__ __forceinline__ std::int32_t spring_pre_s(float diag_d, std::int32_t diag_s,
                                                     float left_d, std::int32_t left_s) {
  return left_d < diag_d ? left_s : diag_s;
}
__device__ __forceinline__ float spring_min3(float up_d, float diag_d, float left_d) {
  return __int_as_float(
      __vimin3_s32(__float_as_int(up_d), __float_as_int(diag_d), __float_as_int(left_d)));
}
__device__ __forceinline__ std::int32_t spring_best_s(float best_d, float up_d, std::int32_t up_s,
                                                      std::int32_t pre_s) {
  return __float_as_int(best_d) == __float_as_int(up_d) ? up_s : pre_s;
}

// Wrap-around order of 32-bit start indices (exact while spans stay below 2^31).
__device__ __forceinline__ bool starts_after(std::int32_t s, std::int32_t t_e) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(s) -
                                   static_cast<std::uint32_t>(t_e)) > 0;
}

}  // namespace warpwatch::kernels::cuda
