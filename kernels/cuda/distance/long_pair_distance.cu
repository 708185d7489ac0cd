// One long pair (10^5 .. 10^6 samples a side) of whole-series dtw, dk or twed (dims 1, no
// band) as a tiled wavefront in ONE launch. Rows of a are cut into bands of 32 * R (R =
// LongPairDistance::rows_per_lane); a warp computes a band as the warp kernel does a pair
// (lane l owns R rows, the warp sweeps the columns as an anti-diagonal), reading the row above the
// band from a boundary row in global memory and writing the band's last row there for the next
// band.
//
// One boundary row serves all bands: column j of it is written by band k only after band k
// has read band k-1's value of column j, and band k+1 reads it only after band k published
// it (progress[k] >= j, release by __threadfence before the flag, acquire by a fence after
// it, data read through L2). Band k+2 can overwrite column j only after band k+1 finished
// column j, so nothing is overwritten before it is read.
//
// Bands are handed out by an atomic ticket, in order: the band a warp waits on was taken
// earlier by a warp that is running, so the wait always ends whatever the residency; the
// grid is still sized to what is co-resident, as more warps would only wait.
//
// float64 throughout: along a path of 2*10^6 cells, float32 sums drift past the 1e-5
// tolerance, and this kernel is bound by the per-iteration dependency chain, not by
// arithmetic throughput.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda/runtime/cuda_check.hpp"
#include "distance_launch.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 4;
constexpr int kRing = 64;
constexpr int R = LongPairDistance::rows_per_lane;
constexpr unsigned kBandRows = 32u * R;

std::size_t align16(std::size_t x) {
  return (x + 15) & ~static_cast<std::size_t>(15);
}

struct LongScratch {
  unsigned* ticket;    // next band to take
  unsigned* progress;  // [bands]: columns of its last row band k has published
  double2* boundary;   // [m]: (D, g) of the last row of the latest band to pass column j
};

LongScratch carve(void* scratch, std::size_t bands) {
  auto* base = static_cast<unsigned char*>(scratch);
  LongScratch s;
  s.ticket = reinterpret_cast<unsigned*>(base);
  s.progress = reinterpret_cast<unsigned*>(base + 16);
  s.boundary = reinterpret_cast<double2*>(base + 16 + align16(bands * sizeof(unsigned)));
  return s;
}

template <FastKind K>
__device__ __forceinline__ double long_cell(double a, double b, double up, double left,
                                            double diag) {
  const double best = fmin(fmin(left, diag), up);  // only the last min on the chain
  const double d = a - b;  // the reference's local cost, operation for operation
  if constexpr (K == FastKind::dtw_sq) return d * d + best;
  if constexpr (K == FastKind::dtw_abs) return fabs(d) + best;
  if constexpr (K == FastKind::dk_sq) return fmax(d * d, best);
  return fmax(fabs(d), best);
}

__device__ __forceinline__ double long_step(double x, double prev, double t, double t_prev,
                                            double nu, double lambda) {
  return (fabs(x - prev) + nu * (t - t_prev)) + lambda;
}

template <FastKind K>
__global__ void __launch_bounds__(kWarps * 32)
    long_pair_kernel(DeviceData data, const DevJob* __restrict__ job_ptr, LongScratch s,
                     unsigned bands) {
  constexpr bool kTwed = K == FastKind::twed;
  __shared__ double ring_b[kWarps][kRing];
  __shared__ double ring_up[kWarps][kRing];  // boundary D(row_base, j), for lane 0
  __shared__ double ring_tb[kWarps][kTwed ? kRing : 1];
  __shared__ double ring_delb[kWarps][kTwed ? kRing : 1];
  __shared__ double ring_gup[kWarps][kTwed ? kRing : 1];

  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const DevJob job = *job_ptr;
  const unsigned n = job.n, m = job.m;
  const float* __restrict__ av = data.values + job.a_off;
  const float* __restrict__ bv = data.values + job.b_off;
  const float* at = job.a_toff >= 0 ? data.times + job.a_toff : nullptr;
  const float* bt = job.b_toff >= 0 ? data.times + job.b_toff : nullptr;
  double nu = 0.0, lambda = 0.0;
  if constexpr (kTwed) {
    nu = data.params[job.params].nu;
    lambda = data.params[job.params].lambda;
  }
  const double inf = __longlong_as_double(0x7ff0000000000000ll);
  const auto a_time = [&](unsigned i) {  // 1-based row i <= n; ta_0 = 0
    return i == 0 ? 0.0 : (at ? static_cast<double>(at[i - 1]) : static_cast<double>(i - 1));
  };

  for (;;) {
    unsigned band = 0;
    if (lane == 0) band = atomicAdd(s.ticket, 1u);
    band = __shfl_sync(kFull, band, 0);
    if (band >= bands) return;

    const unsigned row_base = band * kBandRows, row0 = row_base + lane * R;
    double a[R], left[R], ta[R], dela[R], gl[R];
    {
      double prev = row0 >= 1 && row0 <= n ? static_cast<double>(av[row0 - 1]) : 0.0;
      double tprev = row0 <= n ? a_time(row0) : 0.0;
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const unsigned i = row0 + r + 1;
        a[r] = i <= n ? static_cast<double>(av[i - 1]) : 0.0;
        left[r] = inf;
        if constexpr (kTwed) {
          ta[r] = i <= n ? a_time(i) : 0.0;
          dela[r] = long_step(a[r], prev, ta[r], tprev, nu, lambda);
          gl[r] = 0.0;
          prev = a[r];
          tprev = ta[r];
        }
      }
    }
    const bool last_band = band + 1 == bands;
    const unsigned last_lane = last_band ? (n - 1 - row_base) / R : 31u;
    const int last_reg = static_cast<int>((n - 1 - row_base) % R);
    double up_prev = lane == 0 && band == 0 ? 0.0 : inf;  // D(row0, j-1)
    double gup_prev = 0.0;
    double carry_b = 0.0, carry_tb = 0.0;

    const unsigned iterations = m + last_lane;
    for (unsigned t = 0; t < iterations; ++t) {
      if ((t & 31u) == 0) {
        const unsigned slot = t & (kRing - 1), k = t + lane;
        __syncwarp();
        const double b = k < m ? static_cast<double>(bv[k]) : 0.0;
        ring_b[warp][slot + lane] = b;
        if constexpr (kTwed) {
          const double tb =
              k < m ? (bt ? static_cast<double>(bt[k]) : static_cast<double>(k)) : 0.0;
          double pb = __shfl_up_sync(kFull, b, 1), ptb = __shfl_up_sync(kFull, tb, 1);
          if (lane == 0) {
            pb = carry_b;
            ptb = carry_tb;
          }
          ring_tb[warp][slot + lane] = tb;
          ring_delb[warp][slot + lane] = long_step(b, pb, tb, ptb, nu, lambda);
          carry_b = __shfl_sync(kFull, b, 31);
          carry_tb = __shfl_sync(kFull, tb, 31);
        }
        if (band > 0 && t < m) {
          const unsigned need = min(t + 32u, m);
          if (lane == 0) {
            const volatile unsigned* flag = s.progress + band - 1;
            while (*flag < need) __nanosleep(64);
          }
          __syncwarp();
          __threadfence();  // acquire: the boundary is read after the flag
          if (k < m) {
            const double2 v = __ldcg(s.boundary + k);
            ring_up[warp][slot + lane] = v.x;
            if constexpr (kTwed) ring_gup[warp][slot + lane] = v.y;
          }
        }
        __syncwarp();
      }
      double up = __shfl_up_sync(kFull, left[R - 1], 1);
      double gup = 0.0;
      if constexpr (kTwed) gup = __shfl_up_sync(kFull, gl[R - 1], 1);
      if (lane == 0) {
        const bool from_boundary = band > 0 && t < m;
        up = from_boundary ? ring_up[warp][t & (kRing - 1)] : inf;
        if constexpr (kTwed) gup = from_boundary ? ring_gup[warp][t & (kRing - 1)] : 0.0;
      }
      const int j = static_cast<int>(t) - static_cast<int>(lane) + 1;
      if (j >= 1 && j <= static_cast<int>(m)) {
        const unsigned slot = static_cast<unsigned>(j - 1) & (kRing - 1);
        const double b = ring_b[warp][slot];
        double diag = up_prev, above = up;
        if constexpr (!kTwed) {
#pragma unroll
          for (int r = 0; r < R; ++r) {
            const double old = left[r];
            above = long_cell<K>(a[r], b, above, old, diag);
            left[r] = above;
            diag = old;
          }
        } else {
          const double tb = ring_tb[warp][slot], delb = ring_delb[warp][slot];
          double gdiag = gup_prev;
#pragma unroll
          for (int r = 0; r < R; ++r) {
            const double old = left[r], gold = gl[r];
            const double g = fabs(a[r] - b) + nu * fabs(ta[r] - tb);
            const double match = (diag + g) + gdiag;
            above = fmin(fmin(match, old + delb), above + dela[r]);
            left[r] = above;
            gl[r] = g;
            diag = old;
            gdiag = gold;
          }
        }
        if (!last_band && lane == 31) {
          s.boundary[j - 1] = make_double2(left[R - 1], kTwed ? gl[R - 1] : 0.0);
          if ((j & 31) == 0 || j == static_cast<int>(m)) {
            __threadfence();  // release: the columns before the flag that announces them
            *static_cast<volatile unsigned*>(s.progress + band) = static_cast<unsigned>(j);
          }
        }
        if (last_band && lane == last_lane && j == static_cast<int>(m)) {
#pragma unroll
          for (int r = 0; r < R; ++r)
            if (r == last_reg) data.out[job.out] = left[r];
        }
      }
      up_prev = up;
      gup_prev = gup;
    }
  }
}

template <FastKind K>
void launch_kind(const DeviceData& data, const DevJob& job, const DevJob* job_on_device,
                 void* scratch, stream_t stream) {
  const std::size_t bands = (job.n + kBandRows - 1) / kBandRows;
  WW_CUDA(cudaMemsetAsync(scratch, 0, 16 + align16(bands * sizeof(unsigned)), stream));
  int device = 0, sms = 0, per_sm = 0;
  WW_CUDA(cudaGetDevice(&device));
  WW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WW_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, long_pair_kernel<K>, kWarps * 32, 0));
  const std::size_t resident =
      static_cast<std::size_t>(std::max(1, per_sm)) * static_cast<std::size_t>(sms);
  const std::size_t blocks =
      std::max<std::size_t>(1, std::min(resident, (bands + kWarps - 1) / kWarps));
  long_pair_kernel<K><<<static_cast<unsigned>(blocks), kWarps * 32, 0, stream>>>(
      data, job_on_device, carve(scratch, bands), static_cast<unsigned>(bands));
  WW_CUDA(cudaGetLastError());
}

}  // namespace

std::size_t LongPairDistance::workspace_bytes(std::size_t n, std::size_t m) {
  const std::size_t bands = (n + kBandRows - 1) / kBandRows;
  return 16 + align16(bands * sizeof(unsigned)) + m * sizeof(double2);
}

void LongPairDistance::run(FastKind kind, const DeviceData& data, const DevJob& job,
                           const DevJob* job_on_device, void* scratch, stream_t stream) {
  WW_ASSERT(job.n > 0 && job.m > 0,
            "long-pair distance: empty series (the inputs are checked before)");
  with_fast_kind(kind, [&](auto k) {
    launch_kind<decltype(k)::value>(data, job, job_on_device, scratch, stream);
  });
}

}  // namespace warpwatch::kernels::cuda::detail
