// Warp per pair register wavefront for whole-series dtw, dk and twed (dims 1, no band), the
// cuDTW++ technique. Lane l owns rows l*R+1 .. l*R+R of a (1-based) in registers and, at
// iteration t, computes column j = t - l + 1 of those rows: the warp is an anti-diagonal
// wavefront that sweeps b. The cell above a lane's first row, D(l*R, j), was computed by
// lane l-1 in the previous iteration and arrives by __shfl_up_sync; b arrives through a
// per-warp window in shared memory, 32 samples staged a block (prefetched one block ahead).
// A job takes m + last_lane iterations of R cells per lane; rows beyond n are padding that
// only flows down, never into row n.
//
// float32, with explicit fma where the cell formula has a product and a sum (the project
// builds with --fmad=false, so nothing is fused behind our back): within 1e-5 of the float64
// reference, which is the contract of whole-series distances.
#include <cuda_runtime.h>

#include <cmath>
#include <string>

#include "cuda/runtime/cuda_check.hpp"
#include "distance_launch.hpp"
#include "warp_cell.cuh"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 4;  // warps per block; each warp is independent

// ||x - prev|| + nu * (t - t_prev) + lambda: the deletion cost of one step of a series
// (docs/spec.md §4.3, dims 1). The same expression for rows and columns keeps twed symmetric.
__device__ __forceinline__ float twed_step(float x, float prev, float t, float t_prev, float nu,
                                           float lambda) {
  return __fmaf_rn(nu, t - t_prev, fabsf(x - prev)) + lambda;
}

// The cells of one column on one lane: rows row0+1 .. row0+R at column j, from the cell
// above the lane (D(row0, j), `up`), the one diagonal to it (D(row0, j-1), `up_prev`) and
// this lane's previous column (`left`, overwritten). twed also carries g (its match term).
template <FastKind K, int R>
__device__ __forceinline__ void warp_column(const float (&a)[R], const float (&ta)[R],
                                            const float (&dela)[R], float (&left)[R],
                                            float (&gl)[R], float b, float tb, float delb, float up,
                                            float up_prev, float gup, float gup_prev, float nu) {
  float diag = up_prev, above = up;
  if constexpr (K != FastKind::twed) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const float old = left[r];
      above = warp_cell<K>(a[r], b, above, old, diag);
      left[r] = above;
      diag = old;
    }
  } else {
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
}

template <FastKind K, int R>
__global__ void __launch_bounds__(kWarps * 32)
    warp_kernel(DeviceData data, const DevJob* __restrict__ jobs, unsigned count) {
  constexpr bool kTwed = K == FastKind::twed;
  // b through a per-warp window: while iterations [base, base + 32) run, slots [0, 64) hold
  // samples [base - 32, base + 32); lane l reads sample base + u - l at slot 32 + u - l, a
  // fixed offset from a per-block pointer (no wrap-around arithmetic per iteration).
  __shared__ float win_b[kWarps][64];
  __shared__ float win_tb[kWarps][kTwed ? 64 : 1];
  __shared__ float win_delb[kWarps][kTwed ? 64 : 1];

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
    float tprev =
        row0 == 0 ? 0.0f : (at && row0 <= n ? at[row0 - 1] : static_cast<float>(row0 - 1));
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const unsigned i = row0 + r + 1;
      a[r] = i <= n ? av[i - 1] : 0.0f;
      left[r] = inf;  // D(i, 0)
      ta[r] = 0.0f;
      dela[r] = 0.0f;
      gl[r] = 0.0f;  // g(i, 0): column 0 contributes no match term
      if constexpr (kTwed) {
        ta[r] = at && i <= n ? at[i - 1] : static_cast<float>(i - 1);
        dela[r] = twed_step(a[r], prev, ta[r], tprev, nu, lambda);
        prev = a[r];
        tprev = ta[r];
      }
    }
  }

  const unsigned last_lane = (n - 1) / R;  // the lane that owns row n
  const bool first_lane = lane == 0;
  float up_prev = first_lane ? 0.0f : inf;  // D(row0, j-1); D(0, 0) = 0
  float gup_prev = 0.0f;                    // g(row0, j-1); g(0, .) = 0

  // Block c holds b[32c .. 32c+31] (0-based samples); prefetched one block ahead.
  const auto load_block = [&](unsigned base, float& b, float& tb) {
    const unsigned k = base + lane;
    b = k < m ? bv[k] : 0.0f;
    tb = kTwed ? (bt && k < m ? bt[k] : static_cast<float>(k)) : 0.0f;
  };
  float next_b, next_tb;
  float held_b = 0.0f, held_tb = 0.0f, held_delb = 0.0f;  // this lane's sample of the last block
  load_block(0, next_b, next_tb);

  // Iteration t computes column j = t - lane + 1 on this lane. Lanes whose j is past m
  // compute columns nobody reads (they flow only to columns past m); lanes whose j is
  // still < 1 (only in the first block) take part in the shuffles and wait: every lane
  // runs the same shuffle, at one call site, whatever it computes.
  const auto step = [&](const float* wb, const float* wtb, const float* wdelb, unsigned u,
                        bool compute) {
    float up = __shfl_up_sync(kFull, left[R - 1], 1);  // D(row0, j) from lane-1
    float gup = 0.0f;
    if constexpr (kTwed) gup = __shfl_up_sync(kFull, gl[R - 1], 1);
    if (first_lane) {
      up = inf;  // D(0, j), j >= 1
      gup = 0.0f;
    }
    if (compute)
      warp_column<K, R>(a, ta, dela, left, gl, wb[u], kTwed ? wtb[u] : 0.0f,
                        kTwed ? wdelb[u] : 0.0f, up, up_prev, gup, gup_prev, nu);
    up_prev = up;
    gup_prev = gup;
  };

  const unsigned iterations = m + last_lane;
  for (unsigned base = 0; base < iterations; base += 32) {
    float delb = 0.0f;
    if constexpr (kTwed) {
      // The sample before each: lane l-1's, or for lane 0 the last of the previous block.
      float prev_b = __shfl_up_sync(kFull, next_b, 1), prev_tb = __shfl_up_sync(kFull, next_tb, 1);
      const float carry_b = __shfl_sync(kFull, held_b, 31),
                  carry_tb = __shfl_sync(kFull, held_tb, 31);
      if (first_lane) {
        prev_b = carry_b;
        prev_tb = carry_tb;
      }
      delb = twed_step(next_b, prev_b, next_tb, prev_tb, nu, lambda);
    }
    __syncwarp();  // everyone is done reading the previous window
    win_b[warp][lane] = held_b;
    win_b[warp][32 + lane] = next_b;
    if constexpr (kTwed) {
      win_tb[warp][lane] = held_tb;
      win_tb[warp][32 + lane] = next_tb;
      win_delb[warp][lane] = held_delb;
      win_delb[warp][32 + lane] = delb;
    }
    __syncwarp();
    held_b = next_b;
    held_tb = next_tb;
    held_delb = delb;
    load_block(base + 32, next_b, next_tb);

    const float* wb = &win_b[warp][32 - lane];
    const float* wtb = &win_tb[warp][kTwed ? 32 - lane : 0];
    const float* wdelb = &win_delb[warp][kTwed ? 32 - lane : 0];
    const unsigned block = min(32u, iterations - base);
    if (base == 0) {  // the fill: lane l starts at iteration l
      for (unsigned u = 0; u < block; ++u) step(wb, wtb, wdelb, u, u >= lane);
    } else if (block == 32) {
#pragma unroll 4
      for (unsigned u = 0; u < 32; ++u) step(wb, wtb, wdelb, u, true);
    } else {
      for (unsigned u = 0; u < block; ++u) step(wb, wtb, wdelb, u, true);
    }
  }
  // The last iteration was column m on last_lane: row n is in its registers now.
  if (lane == last_lane) {
    const unsigned last_reg = (n - 1) % R;
    float result = left[0];
#pragma unroll
    for (int r = 1; r < R; ++r)
      if (static_cast<unsigned>(r) == last_reg) result = left[r];
    data.out[job.out] = static_cast<double>(result);
  }
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
    case 1:
      return launch_one<K, 1>(data, jobs, count, stream);
    case 2:
      return launch_one<K, 2>(data, jobs, count, stream);
    case 4:
      return launch_one<K, 4>(data, jobs, count, stream);
    case 8:
      return launch_one<K, 8>(data, jobs, count, stream);
    case 16:
      return launch_one<K, 16>(data, jobs, count, stream);
    case 32:
      if constexpr (K != FastKind::twed) return launch_one<K, 32>(data, jobs, count, stream);
      break;
    case 48:
      if constexpr (K != FastKind::twed) return launch_one<K, 48>(data, jobs, count, stream);
      break;
    default:
      break;
  }
  WW_ASSERT(false,
            "warp distance kernel: no instance for " + std::to_string(rows) + " rows a lane");
}

}  // namespace

int WarpDistance::rows_per_lane(std::size_t n) {
  for (int r : rows_options)
    if (32 * static_cast<std::size_t>(r) >= n) return r;
  WW_ASSERT(false, "warp distance: " + std::to_string(n) + " rows do not fit the registers");
}

void WarpDistance::run(FastKind kind, int rows_per_lane, const DeviceData& data, const DevJob* jobs,
                       std::size_t count, stream_t stream) {
  if (count == 0) return;
  with_fast_kind(kind, [&](auto k) {
    launch_rows<decltype(k)::value>(rows_per_lane, data, jobs, count, stream);
  });
}

}  // namespace warpwatch::kernels::cuda::detail
