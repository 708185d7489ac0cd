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
                                             std::int32_t diag_s, float left_d,
                                             std::int32_t left_s, std::int32_t& best_s) {
  float best_d = up_d;
  best_s = up_s;
  if (diag_d < best_d) { best_d = diag_d; best_s = diag_s; }
  if (left_d < best_d) { best_d = left_d; best_s = left_s; }
  return best_d;
}

// The same choice as spring_best, arranged for a chain of cells: left and diag are known
// before the cell above, so only a min and the combine depend on it. The D value is a plain
// min (equal candidates have equal bits: D is never -0 or NaN); the S value follows the
// reference's order: pre = left when left < diag else diag (a tie keeps diag, which the
// reference would pick over left), then pre when pre < up else up (a tie keeps up).
__device__ __forceinline__ float spring_pre(float diag_d, std::int32_t diag_s, float left_d,
                                            std::int32_t left_s, std::int32_t& pre_s) {
  pre_s = left_d < diag_d ? left_s : diag_s;
  return fminf(left_d, diag_d);
}
__device__ __forceinline__ float spring_pick_up(float pre_d, std::int32_t pre_s, float up_d,
                                                std::int32_t up_s, std::int32_t& best_s) {
  best_s = pre_d < up_d ? pre_s : up_s;
  return fminf(pre_d, up_d);
}

// Wrap-around order of 32-bit start indices (exact while spans stay below 2^31).
__device__ __forceinline__ bool starts_after(std::int32_t s, std::int32_t t_e) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(s) - static_cast<std::uint32_t>(t_e)) > 0;
}

}  // namespace warpwatch::kernels::cuda
