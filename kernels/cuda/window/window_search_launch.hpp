// The device side of the cuda backend's top-K window search (window_search.cpp): the UCR
// Suite's cascade as three passes over every window of a series, then an alignment pass in
// the order of the lower bounds.
//   1. moments   each window's mean and 1/std under znorm, by common::WindowStats's own
//                algorithm (an exact two-pass anchor every kStatsAnchor ends, Welford
//                slides from it, the flat test), one thread per anchor: bit for bit the
//                cpu's values, so the windows are compared as the same float32 values.
//   2. bounds    per window max(LB_Kim, LB_Keogh on the pattern's envelope) in double over
//                those values, rounded down to float: the sort key; the LB_Kim part kept
//                for the statistics. LB_Kim here aligns the table's two corners
//                (window_prepare.cu), which holds common::lb_kim's two cells and more.
//   3. sort      the windows by key (CUB radix sort).
//   4. align     warps take windows in key order and align them against the pattern
//                (WarpDistance's register wavefront, window_dtw.cu), z-normalizing the
//                window as it streams in, and abandon a window as soon as a cut through
//                its table is over the search's bound. A warp that meets a window whose key
//                is over the bound stops: every later key is larger. The bound is the
//                threshold, tightened by the host between rounds (top_bound) and, for
//                K = 1, by the kernel itself (atomicMin of each distance found).
// Plain structs only: included by host C++20 and device C++17.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace warpwatch::kernels::cuda::detail {

using window_stream_t = CUstream_st*;

// The series, the pattern as compared and its envelopes, all in device memory.
struct WindowSearchInput {
  const float* x = nullptr;     // the series (dims 1)
  std::uint64_t first_end = 0;  // the last sample of window 0; window i ends at first_end + i*hop
  std::uint32_t hop = 1, w = 0, n = 0, windows = 0;
  const float* q = nullptr;       // the pattern, n values, normalized as windows are
  const float* env_lo = nullptr;  // w: the pattern's envelope per window column
  const float* env_hi = nullptr;
  const std::int32_t* band_lo = nullptr;  // n + 1 (1-based rows): the band's columns; null:
  const std::int32_t* band_hi = nullptr;  // no band
  const double* mean = nullptr;           // per window, or null: no znorm
  const double* scale = nullptr;
  const std::uint8_t* flat = nullptr;  // per window (znorm skipped it), or null
  double margin = 0.0;                 // WindowQuery::margin
  int kind = 0;                        // FastKind: dtw_sq, dtw_abs, dk_sq or dk_abs
  // LB_Kim's corners: their side (1..16). Measured on the H100, top-1 over 4.2e6 walk
  // samples, m 1023, no band (device ms, query from the series / an unrelated walk):
  // side 1 10.9 / 117, 4 11.4 / 107, 8 12.9 / 97, 16 18.2 / 92.
  int corner = 8;
};

// What the alignment pass shares between its warps and with the host.
struct WindowSearchState {
  const float* keys = nullptr;           // sorted lower bounds
  const std::uint32_t* order = nullptr;  // window index at each sorted position
  unsigned* bound = nullptr;             // float bits of the current bound (>= 0 or +inf)
  unsigned* next = nullptr;              // the next position to take (zeroed per launch)
  unsigned* stopped = nullptr;           // set when a warp met a key over the bound
  float* found_distance = nullptr;       // windows aligned to the end at or under the bound
  std::uint32_t* found_window = nullptr;
  unsigned* found_count = nullptr;
  unsigned found_capacity = 0;
  unsigned long long* abandoned = nullptr;
  std::uint8_t* aligned = nullptr;  // per window: taken by the alignment pass
  bool tighten = false;             // K = 1: each distance found lowers the bound
};

// 1. Moments of every window (input.mean/scale/flat must point at writable buffers).
void launch_window_moments(const WindowSearchInput& input, double* mean, double* scale,
                           std::uint8_t* flat, window_stream_t stream);

// 2. keys[i] and kim[i] of every window i (+inf for a flat one).
void launch_window_bounds(const WindowSearchInput& input, float* keys, float* kim,
                          window_stream_t stream);

// 3. Sorts (keys, 0..windows-1) into (sorted_keys, order). Temporary storage: query with
// temp = null (returns the bytes needed), then call with at least that much.
std::size_t sort_window_bounds(void* temp, std::size_t temp_bytes, const float* keys,
                               float* sorted_keys, std::uint32_t* order, std::uint32_t* indices,
                               std::uint32_t windows, window_stream_t stream);

// 4. Aligns the windows at sorted positions [begin, end), or at positions list[0, count)
// when list is set, on `warps` warps. rows_per_lane as WarpDistance::rows_per_lane(n).
void launch_window_alignments(const WindowSearchInput& input, const WindowSearchState& state,
                              int rows_per_lane, std::uint32_t begin, std::uint32_t end,
                              const std::uint32_t* list, std::uint32_t count,
                              window_stream_t stream);

// The windows the cascade skipped, by stage: counts[0] += those not flat, not aligned, whose
// LB_Kim prunes against `bound`; counts[1] += the other skipped ones; counts[2] += the flat
// ones.
void launch_window_skip_counts(const WindowSearchInput& input, const float* kim,
                               const std::uint8_t* aligned, float bound, unsigned long long* counts,
                               window_stream_t stream);

// The rows per lane the alignment kernel is built for (the smallest with 32 * R >= n).
int window_rows_per_lane(std::size_t n);
inline constexpr std::size_t kWindowMaxRows = 32 * 48;

}  // namespace warpwatch::kernels::cuda::detail
