// Pass 4 of the window search (window_search_launch.hpp): dtw and dk of windows against
// their inputs' patterns, a warp a window, abandoned against the bound (the search's, or
// the input's limit in the Matcher's window mode).
//
// The alignment is WarpDistance's register wavefront (distance/warp_distance.cu): lane l
// holds the pattern's rows l*R+1 .. l*R+R in registers (loaded once: every window has the
// same pattern) and at iteration t computes column c_l = t - l + 1 of them; the window
// streams in 32 samples a block, z-normalized as it is read (common::znormal).
//
// Abandoning. After an iteration t every lane has computed its column c_l = t - l + 1. Take any
// path from (1,1) to (n,w) and its last cell P that is computed by then. The cell after P is not
// computed, which leaves two cases: P is a lane's current cell (row of lane l, column
// c_l), or P is the last row of lane l-1 at column c_l and the path steps diagonally into
// lane l's first row at column c_l + 1 = c_{l-1} (lane l received that cell from lane l-1
// in the last iteration: its up_prev). The costs are >= 0 and every step of the
// recurrence rounds upwards of its predecessor's value or to it (fma(d, d, best) >= best,
// max(c, best) >= best), so the computed distance is at least the computed value at P.
// So the minimum over those cells (rows <= n, columns 1..w) bounds the window's computed
// distance from below; once it is over the bound the window cannot be kept and the warp
// moves on. No rounding margin is needed: both sides are this kernel's float32 values.
//
// A rest bound (each cut cell plus LB_Keogh's terms of the columns after it, summed once
// per window into shared memory, as the cpu's rest bounds do per row) was tried and
// measured on the H100: slower everywhere (top-1 over 4.2e6 walk samples, m 1023, no band:
// 97 -> 110 ms with an unrelated query; m 1023 over 1e6 ECG samples: 6.8 -> 9.5 ms). The
// terms cost a pass over the window per aligned window, and the cut's minimum already
// abandons most windows within the first blocks.
// The test runs after each block of 32 iterations, and in the first block after
// iterations 1, 3, 7 and 15 as well (lanes not started yet hold no cell of the cut).
//
// float32 with an explicit fma per cell, like WarpDistance: within 1e-5 of the float64
// reference (docs/spec.md §3.2's tolerance between backends).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda/distance/distance_launch.hpp"
#include "cuda/distance/warp_cell.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "window_input_of.cuh"
#include "window_search_launch.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarps = 4;  // warps per block

__device__ __forceinline__ unsigned warp_min(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFull, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o));
  return v;
#endif
}

__device__ __forceinline__ float read_bound(const unsigned* bound) {
  return __uint_as_float(*reinterpret_cast<const volatile unsigned*>(bound));
}

// The band's rows of this lane that hold column j: rows r in [first, stop) (0-based within
// the lane). Both move down as j grows (the band's ends never move left).
struct LaneBand {
  int first = 0, stop = 0;
  __device__ void advance(const std::int32_t* band_lo, const std::int32_t* band_hi, unsigned row0,
                          int rows, unsigned j) {
    while (first < rows && static_cast<unsigned>(band_hi[row0 + first + 1]) < j) ++first;
    while (stop < rows && static_cast<unsigned>(band_lo[row0 + stop + 1]) <= j) ++stop;
  }
};

template <FastKind K, int R, bool kBand>
__global__ void __launch_bounds__(kWarps * 32)
    window_kernel(WindowInputs ins, WindowSearchState st, std::uint32_t begin, std::uint32_t end,
                  const std::uint32_t* list, std::uint32_t count) {
  __shared__ float win_b[kWarps][64];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  const float inf = inf_f();
  const unsigned row0 = lane * R;
  const bool first_lane = lane == 0;
  const bool search = st.order != nullptr;  // else the Matcher's: windows in place
  const std::uint32_t positions = list ? count : end - begin;
  // The input whose pattern the registers hold (loaded again when a window of another comes).
  std::uint32_t loaded = 0xffffffffu;
  unsigned n = 0, w = 0, last_lane = 0;
  int rows = 0;  // this lane's real rows (the rest is padding that only flows down)
  float a[R];

  for (;;) {
    unsigned take = 0;
    if (first_lane) take = atomicAdd(st.next, 1u);
    take = __shfl_sync(kFull, take, 0);
    if (take >= positions) return;
    const std::uint32_t pos = list ? list[take] : begin + take;
    const std::uint32_t g = search ? st.order[pos] : pos;  // the window, numbered across inputs
    const std::uint32_t p = ins.count == 1 ? 0 : input_of(ins.window_base, ins.count, g);
    const WindowSearchInput& in = ins.inputs[p];
    const std::uint32_t window = g - ins.window_base[p];  // within its input
    if (in.flat && in.flat[window]) {
      if (!search && first_lane) in.distances[window] = inf;  // not read: flat, for tidiness
      continue;
    }
    if (p != loaded) {
      loaded = p;
      n = in.n;
      w = in.w;
      last_lane = (n - 1) / R;
      rows = row0 >= n ? 0 : (n - row0 < static_cast<unsigned>(R) ? n - row0 : R);
#pragma unroll
      for (int r = 0; r < R; ++r) a[r] = r < rows ? in.q[row0 + r] : 0.0f;
    }
    // Read once per window (the lambdas below run per iteration).
    const std::int32_t* const band_lo = in.band_lo;
    const std::int32_t* const band_hi = in.band_hi;
    const float limit = in.limit;
    // The bound now: the search's (shared, tightening) or the input's limit.
    const auto bound_now = [&]() -> float {
      if (!search) return limit;
      float b = 0.0f;
      if (first_lane) b = read_bound(st.bound);
      return __shfl_sync(kFull, b, 0);
    };
    const float bound = bound_now();
    // WindowQuery::prunes on the key. Search: this one and every later one are out.
    if (static_cast<double>(st.keys[pos]) * (1.0 - in.margin) > static_cast<double>(bound)) {
      if (!search) {
        if (first_lane) in.distances[window] = inf;
        continue;
      }
      if (first_lane) *st.stopped = 1;
      if (!list) return;
      continue;
    }
    if (first_lane && st.aligned) st.aligned[g] = 1;

    const std::uint64_t last = in.first_end + static_cast<std::uint64_t>(window) * in.hop;
    const float* __restrict__ x = in.x + (last + 1 - w - in.x_first);
    const bool norm = in.mean != nullptr;
    const double mean = norm ? in.mean[window] : 0.0, scale = norm ? in.scale[window] : 0.0;
    const auto sample = [&](unsigned k) -> float {
      if (k >= w) return 0.0f;
      return norm ? static_cast<float>((static_cast<double>(x[k]) - mean) * scale) : x[k];
    };

    float left[R];
#pragma unroll
    for (int r = 0; r < R; ++r) left[r] = inf;  // D(i, 0)
    float up_prev = first_lane ? 0.0f : inf;    // D(row0, j-1); D(0, 0) = 0
    LaneBand band;
    float next_b = sample(lane), held_b = 0.0f;
    bool abandoned = false;

    const auto step = [&](const float* wb, unsigned u, unsigned j, bool compute) {
      float up = __shfl_up_sync(kFull, left[R - 1], 1);
      if (first_lane) up = inf;
      if (compute) {
        if constexpr (kBand) band.advance(band_lo, band_hi, row0, rows, j);
        float diag = up_prev, above = up;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const float old = left[r];
          above = warp_cell<K>(a[r], wb[u], above, old, diag);
          if constexpr (kBand) above = (r >= band.first && r < band.stop) ? above : inf;
          left[r] = above;
          diag = old;
        }
      }
      up_prev = up;
    };

    // The cut after iteration t (see the top of the file): over it, the window is out.
    const auto over_bound = [&](unsigned t) {
      const int c = static_cast<int>(t + 1) - static_cast<int>(lane);  // c_l
      float cut = inf;
      if (c >= 1 && c <= static_cast<int>(w)) {
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (r < rows) cut = fminf(cut, left[r]);
      }
      if (!first_lane && rows > 0 && c >= 1 && c + 1 <= static_cast<int>(w))
        cut = fminf(cut, up_prev);
      const float low = __uint_as_float(warp_min(__float_as_uint(cut)));
      return low > bound_now();
    };

    const unsigned iterations = w + last_lane;
    for (unsigned base = 0; base < iterations; base += 32) {
      __syncwarp();
      win_b[warp][lane] = held_b;
      win_b[warp][32 + lane] = next_b;
      __syncwarp();
      held_b = next_b;
      next_b = sample(base + 32 + lane);
      const float* wb = &win_b[warp][32 - lane];
      const unsigned block = min(32u, iterations - base);
      // Column of this lane at iteration base + u: base + u - lane + 1.
      if (base == 0) {
        // The fill, checked after iterations 1, 3, 7, 15 too: a window far from the
        // pattern is usually out after a few columns, and each iteration costs the whole
        // warp R cells a lane however few lanes have started.
        for (unsigned u = 0; u < block; ++u) {
          step(wb, u, u - lane + 1, u >= lane);
          if (u + 1 < block && u >= 1 && (u & (u + 1)) == 0 && over_bound(u)) {
            abandoned = true;
            break;
          }
        }
        if (abandoned) break;
      } else if (block == 32) {
#pragma unroll 4
        for (unsigned u = 0; u < 32; ++u) step(wb, u, base + u - lane + 1, true);
      } else {
        for (unsigned u = 0; u < block; ++u) step(wb, u, base + u - lane + 1, true);
      }
      if (base + 32 >= iterations) break;  // done: row n holds the distance
      if (over_bound(base + 31)) {
        abandoned = true;
        break;
      }
    }
    if (abandoned) {
      if (first_lane) {
        if (search) {
          atomicAdd(st.abandoned, 1ull);
        } else {
          in.distances[window] = inf;
          if (in.pruned) atomicAdd(&in.pruned[2], 1ull);
        }
      }
      continue;
    }
    float result = 0.0f;
    if (lane == last_lane) {
      const int last_reg = static_cast<int>((n - 1) % R);
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r == last_reg) result = left[r];
    }
    result = __shfl_sync(kFull, result, last_lane);
    if (first_lane && !search) in.distances[window] = result;
    if (first_lane && search && result != inf && result <= read_bound(st.bound)) {
      const unsigned slot = atomicAdd(st.found_count, 1u);
      if (slot < st.found_capacity) {
        st.found_distance[slot] = result;
        st.found_window[slot] = g;
      }
      if (st.tighten) atomicMin(st.bound, __float_as_uint(result));
    }
  }
}

template <FastKind K, int R>
void launch_one(const WindowInputs& in, bool band, const WindowSearchState& st, std::uint32_t begin,
                std::uint32_t end, const std::uint32_t* list, std::uint32_t count,
                window_stream_t stream) {
  auto kernel = band ? window_kernel<K, R, true> : window_kernel<K, R, false>;
  int device = 0, sms = 0, per_sm = 0;
  WW_CUDA(cudaGetDevice(&device));
  WW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  WW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, 0));
  const std::uint32_t positions = list ? count : end - begin;
  const std::uint64_t resident = static_cast<std::uint64_t>(sms) * (per_sm > 0 ? per_sm : 1);
  const std::uint64_t wanted = (positions + kWarps - 1) / kWarps;
  const auto blocks = static_cast<unsigned>(wanted < resident ? wanted : resident);
  if (blocks == 0) return;
  kernel<<<blocks, kWarps * 32, 0, stream>>>(in, st, begin, end, list, count);
  WW_CUDA(cudaGetLastError());
}

template <FastKind K>
void launch_rows(int rows, const WindowInputs& in, bool band, const WindowSearchState& st,
                 std::uint32_t begin, std::uint32_t end, const std::uint32_t* list,
                 std::uint32_t count, window_stream_t stream) {
  switch (rows) {
    case 4:
      return launch_one<K, 4>(in, band, st, begin, end, list, count, stream);
    case 8:
      return launch_one<K, 8>(in, band, st, begin, end, list, count, stream);
    case 16:
      return launch_one<K, 16>(in, band, st, begin, end, list, count, stream);
    case 32:
      return launch_one<K, 32>(in, band, st, begin, end, list, count, stream);
    case 48:
      return launch_one<K, 48>(in, band, st, begin, end, list, count, stream);
    default:
      break;
  }
  WW_ASSERT(false,
            "window search kernel: no instance for " + std::to_string(rows) + " rows a lane");
}

constexpr int kRowsOptions[] = {4, 8, 16, 32, 48};

}  // namespace

int window_rows_per_lane(std::size_t n) {
  for (int r : kRowsOptions)
    if (32 * static_cast<std::size_t>(r) >= n) return r;
  WW_ASSERT(false, "window search: " + std::to_string(n) + " rows do not fit the registers");
}

void launch_window_alignments(const WindowInputs& inputs, int kind_int, bool band,
                              const WindowSearchState& state, int rows_per_lane,
                              std::uint32_t begin, std::uint32_t end, const std::uint32_t* list,
                              std::uint32_t count, window_stream_t stream) {
  const auto kind = static_cast<FastKind>(kind_int);
  WW_ASSERT(kind != FastKind::twed, "window search: dtw and dk only");
  with_fast_kind(kind, [&](auto k) {
    constexpr FastKind kK = decltype(k)::value;
    if constexpr (kK != FastKind::twed)
      launch_rows<kK>(rows_per_lane, inputs, band, state, begin, end, list, count, stream);
  });
}

}  // namespace warpwatch::kernels::cuda::detail
