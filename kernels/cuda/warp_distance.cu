// Warp per pair register wavefront for whole-series dtw, dk and twed (dims 1, no band), the
// cuDTW++ technique. Lane l owns rows l*R+1 .. l*R+R of a (1-based) in registers and, at
// iteration t, computes column j = t - l + 1 of those rows: the warp is an anti-diagonal
// wavefront that sweeps b. The cell above a lane's first row, D(l*R, j), was computed by
// lane l-1 in the previous iteration and arrives by __shfl_up_sync; b arrives through a
// per-warp ring in shared memory, 32 samples staged at a time (prefetched one chunk ahead).
// A job takes m + last_lane iterations of R cells per lane; rows beyond n are padding that
// only flows down, never into row n.
//
// float32, with explicit fma where the cell formula has a product and a sum (the project
// builds with --fmad=false, so nothing is fused behind our back): within 1e-5 of the float64
// reference, which is the contract of whole-series distances.
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>

#include "cuda_check.hpp"
#include "distance_launch.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 4;  // warps per block; each warp is independent
constexpr int kRing = 64;  // ring slots: the 32 columns in flight plus the chunk being staged

__device__ __forceinline__ float inf_f() { return __int_as_float(0x7f800000); }

// The new cell from its local cost terms and three predecessors (dtw, dk).
template <FastKind K>
__device__ __forceinline__ float warp_cell(float a, float b, float up, float left, float diag) {
  // left and diag are known before the cell above is: only the last min and the add or
  // max sit on the row-to-row dependency chain.
  // D >= 0 here (costs are >= 0; +inf outside), and non-negative floats order like their
  // bit patterns as integers: the first min runs on the integer pipe, beside the float one.
  const float pre = __int_as_float(min(__float_as_int(left), __float_as_int(diag)));
  const float best = fminf(pre, up);
  const float d = a - b;
  if constexpr (K == FastKind::dtw_sq) return __fmaf_rn(d, d, best);
  if constexpr (K == FastKind::dtw_abs) return fabsf(d) + best;
  if constexpr (K == FastKind::dk_sq) return fmaxf(d * d, best);
  return fmaxf(fabsf(d), best);  // dk_abs
}

// ||x - prev|| + nu * (t - t_prev) + lambda: the deletion cost of one step of a series
// (SPEC.md 4.3, dims 1). The same expression for rows and columns keeps twed symmetric.
__device__ __forceinline__ float twed_step(float x, float prev, float t, float t_prev, float nu,
                                           float lambda) {
  return __fmaf_rn(nu, t - t_prev, fabsf(x - prev)) + lambda;
}

template <FastKind K, int R>
__global__ void __launch_bounds__(kWarps * 32)
    warp_kernel(DeviceData data, const DevJob* __restrict__ jobs, unsigned count) {
  constexpr bool kTwed = K == FastKind::twed;
  __shared__ float ring_b[kWarps][kRing];
  __shared__ float ring_tb[kWarps][kTwed ? kRing : 1];
  __shared__ float ring_delb[kWarps][kTwed ? kRing : 1];

  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const unsigned job_index = blockIdx.x * kWarps + warp;
  if (job_index >= count) return;  // the whole warp leaves together
  const DevJob job = jobs[job_index];
  const unsigned n = job.n, m = job.m;
  const float* __restrict__ av = data.values + job.a_off;
  const float* __restrict__ bv = data.values + job.b_off;
  const float* at = job.a_toff >= 0 ? data.times + job.a_toff : nullptr;
  const float* bt = job.b_toff >= 0 ? data.times + job.b_toff : nullptr;
  float nu = 0.0f, lambda = 0.0f;
  if constexpr (kTwed) {
    const DevParams& p = data.params[job.params];
    nu = static_cast<float>(p.nu);
    lambda = static_cast<float>(p.lambda);
  }

  const float inf = inf_f();
  const unsigned row0 = lane * R;  // this lane's rows are row0+1 .. row0+R (1-based)
  float a[R], left[R];             // left[r] = D(row0+r+1, j-1), then D(., j)
  float ta[R], dela[R], gl[R];     // twed: times, deletion costs, g(i, j-1) then g(i, j)
  {
    float prev = row0 >= 1 && row0 <= n ? av[row0 - 1] : 0.0f;
    float tprev = row0 == 0 ? 0.0f : (at && row0 <= n ? at[row0 - 1] : static_cast<float>(row0 - 1));
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const unsigned i = row0 + r + 1;
      a[r] = i <= n ? av[i - 1] : 0.0f;
      left[r] = inf;  // D(i, 0)
      if constexpr (kTwed) {
        ta[r] = at && i <= n ? at[i - 1] : static_cast<float>(i - 1);
        dela[r] = twed_step(a[r], prev, ta[r], tprev, nu, lambda);
        gl[r] = 0.0f;  // g(i, 0): column 0 contributes no match term
        prev = a[r];
        tprev = ta[r];
      }
    }
  }

  const unsigned last_lane = (n - 1) / R;  // the lane that owns row n
  const int last_reg = static_cast<int>((n - 1) % R);
  float up_prev = lane == 0 ? 0.0f : inf;  // D(row0, j-1); D(0, 0) = 0
  float gup_prev = 0.0f;                   // g(row0, j-1); g(0, .) = 0
  float result = 0.0f;

  // Chunk c holds b[32c .. 32c+31] (0-based samples); prefetched one chunk ahead.
  const auto load_chunk = [&](unsigned base, float& b, float& tb) {
    const unsigned k = base + lane;
    b = k < m ? bv[k] : 0.0f;
    tb = kTwed ? (bt && k < m ? bt[k] : static_cast<float>(k)) : 0.0f;
  };
  float next_b, next_tb, carry_b = 0.0f, carry_tb = 0.0f;  // carry: b_{j-1} before the chunk
  load_chunk(0, next_b, next_tb);

  const unsigned iterations = m + last_lane;
  for (unsigned t = 0; t < iterations; ++t) {
    if ((t & 31u) == 0) {
      __syncwarp();  // everyone is done reading the slots about to be overwritten
      const unsigned slot = t & (kRing - 1);
      ring_b[warp][slot + lane] = next_b;
      if constexpr (kTwed) {
        float prev_b = __shfl_up_sync(kFull, next_b, 1), prev_tb = __shfl_up_sync(kFull, next_tb, 1);
        if (lane == 0) {
          prev_b = carry_b;
          prev_tb = carry_tb;
        }
        ring_tb[warp][slot + lane] = next_tb;
        ring_delb[warp][slot + lane] = twed_step(next_b, prev_b, next_tb, prev_tb, nu, lambda);
        carry_b = __shfl_sync(kFull, next_b, 31);
        carry_tb = __shfl_sync(kFull, next_tb, 31);
      }
      __syncwarp();
      load_chunk(t + 32, next_b, next_tb);
    }
    float up = __shfl_up_sync(kFull, left[R - 1], 1);  // D(row0, j) from lane-1
    float gup = 0.0f;
    if constexpr (kTwed) gup = __shfl_up_sync(kFull, gl[R - 1], 1);
    if (lane == 0) {
      up = inf;  // D(0, j), j >= 1
      gup = 0.0f;
    }
    const int j = static_cast<int>(t) - static_cast<int>(lane) + 1;
    if (j >= 1 && j <= static_cast<int>(m)) {
      const unsigned slot = static_cast<unsigned>(j - 1) & (kRing - 1);
      const float b = ring_b[warp][slot];
      float diag = up_prev, above = up;
      if constexpr (!kTwed) {
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const float old = left[r];
          above = warp_cell<K>(a[r], b, above, old, diag);
          left[r] = above;
          diag = old;
        }
      } else {
        const float tb = ring_tb[warp][slot], delb = ring_delb[warp][slot];
        float gdiag = gup_prev;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const float old = left[r], gold = gl[r];
          const float g = __fmaf_rn(nu, fabsf(ta[r] - tb), fabsf(a[r] - b));
          const float match = (diag + g) + gdiag;
          above = fminf(fminf(match, old + delb), above + dela[r]);  // chain: add, min
          left[r] = above;
          gl[r] = g;
          diag = old;
          gdiag = gold;
        }
      }
      if (j == static_cast<int>(m) && lane == last_lane) {
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (r == last_reg) result = left[r];
      }
    }
    up_prev = up;
    gup_prev = gup;
  }
  if (lane == last_lane) data.out[job.out] = static_cast<double>(result);
}

template <FastKind K, int R>
void launch_one(const DeviceData& data, const DevJob* jobs, std::size_t count, stream_t stream) {
  const unsigned blocks = static_cast<unsigned>((count + kWarps - 1) / kWarps);
  warp_kernel<K, R><<<blocks, kWarps * 32, 0, stream>>>(data, jobs, static_cast<unsigned>(count));
  WW_CUDA(cudaGetLastError());
}

template <FastKind K>
void launch_rows(int rows, const DeviceData& data, const DevJob* jobs, std::size_t count,
                 stream_t stream) {
  switch (rows) {
    case 1: return launch_one<K, 1>(data, jobs, count, stream);
    case 2: return launch_one<K, 2>(data, jobs, count, stream);
    case 4: return launch_one<K, 4>(data, jobs, count, stream);
    case 8: return launch_one<K, 8>(data, jobs, count, stream);
    case 16: return launch_one<K, 16>(data, jobs, count, stream);
    case 32:
      if constexpr (K != FastKind::twed) return launch_one<K, 32>(data, jobs, count, stream);
      break;
    case 48:
      if constexpr (K != FastKind::twed) return launch_one<K, 48>(data, jobs, count, stream);
      break;
    default: break;
  }
  throw std::logic_error("launch_warp: no kernel for this many rows per lane");
}

}  // namespace

int warp_rows_per_lane(FastKind kind, std::size_t n) {
  const std::size_t limit = kind == FastKind::twed ? kWarpMaxRowsTwed : kWarpMaxRows;
  if (n == 0 || n > limit) return 0;
  for (int r : kWarpRows)
    if (32 * static_cast<std::size_t>(r) >= n) return r;
  return 0;
}

void launch_warp(FastKind kind, int rows_per_lane, const DeviceData& data, const DevJob* jobs,
                 std::size_t count, stream_t stream) {
  if (count == 0) return;
  switch (kind) {
    case FastKind::dtw_sq: return launch_rows<FastKind::dtw_sq>(rows_per_lane, data, jobs, count, stream);
    case FastKind::dtw_abs: return launch_rows<FastKind::dtw_abs>(rows_per_lane, data, jobs, count, stream);
    case FastKind::dk_sq: return launch_rows<FastKind::dk_sq>(rows_per_lane, data, jobs, count, stream);
    case FastKind::dk_abs: return launch_rows<FastKind::dk_abs>(rows_per_lane, data, jobs, count, stream);
    case FastKind::twed: return launch_rows<FastKind::twed>(rows_per_lane, data, jobs, count, stream);
  }
}

}  // namespace warpwatch::kernels::cuda::detail
