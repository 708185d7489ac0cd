// One SPRING cell (docs/spec.md §3.1) in float32, exactly as kernels/reference/spring.cpp does
// it: predecessors up, diag, left in that order, a later one only when strictly smaller;
// c accumulated from 0 in component order; D = c + best (dtw) or max(c, best) (dk). The
// build passes --fmad=false, so c + best is never fused with the multiply.
//
// Host code may include this file too (WW_HD: __host__ __device__ under nvcc, inline
// otherwise): spring_sweep.hpp's lane logic is tested on the CPU, compiled from the same
// lines the device runs (tests/kernels/cuda_host/).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define WW_HD __host__ __device__ __forceinline__
#else
#define WW_HD inline
#endif
#if defined(__CUDA_ARCH__)  // the device pass (the host compiler knows no such pragma)
#define WW_UNROLL _Pragma("unroll")
#else
#define WW_UNROLL
#endif

namespace warpwatch::kernels::cuda {

WW_HD std::int32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_int(x);
#else
  std::int32_t i;
  std::memcpy(&i, &x, 4);
  return i;
#endif
}
WW_HD float bits_float(std::int32_t i) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(i);
#else
  float x;
  std::memcpy(&x, &i, 4);
  return x;
#endif
}
WW_HD float float_inf() {
  return bits_float(0x7f800000);
}

// One component's term, never -0: |diff| by clearing the sign bit (the reference's
// `diff < 0 ? -diff : diff` keeps -0 for x = -0, p = +0, which its `c = 0 + term` then
// turns into +0; diff * diff is never -0). So a cost that starts from its first term, as
// the wavefront's do, has the reference's bits, and so has 0 + term, as the sweep's do:
// with dk, max(c, best) would otherwise keep a -0 that min-of-bits orders below +0.
template <bool kAbs>
WW_HD float spring_term(float x, float p) {
  const float diff = x - p;
  return kAbs ? bits_float(float_bits(diff) & 0x7fffffff) : diff * diff;
}

template <bool kDk>
WW_HD float spring_combine(float c, float best) {
  if (kDk) return c < best ? best : c;  // std::max(c, best)
  return c + best;
}

// Picks the predecessor; returns its D, writes its S.
WW_HD float spring_best(float up_d, std::int32_t up_s, float diag_d, std::int32_t diag_s,
                        float left_d, std::int32_t left_s, std::int32_t& best_s) {
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
WW_HD std::int32_t spring_pre_s(float diag_d, std::int32_t diag_s, float left_d,
                                std::int32_t left_s) {
  return left_d < diag_d ? left_s : diag_s;
}
WW_HD float spring_min3(float up_d, float diag_d, float left_d) {
#if defined(__CUDA_ARCH__)
  return __int_as_float(
      __vimin3_s32(__float_as_int(up_d), __float_as_int(diag_d), __float_as_int(left_d)));
#else
  return bits_float(std::min({float_bits(up_d), float_bits(diag_d), float_bits(left_d)}));
#endif
}
WW_HD std::int32_t spring_best_s(float best_d, float up_d, std::int32_t up_s, std::int32_t pre_s) {
  return float_bits(best_d) == float_bits(up_d) ? up_s : pre_s;
}

// Wrap-around order of 32-bit start indices (exact while spans stay below 2^31).
WW_HD bool starts_after(std::int32_t s, std::int32_t t_e) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(s) -
                                   static_cast<std::uint32_t>(t_e)) > 0;
}

}  // namespace warpwatch::kernels::cuda
