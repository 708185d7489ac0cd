// The device side of window search on the cuda backend: the UCR Suite's cascade as passes
// over every window of one or many inputs (an input: one series' windows against one
// pattern), then an alignment pass. Two users:
//   - the top-K search (window_search.cpp): one input, the windows aligned in the order of
//     their lower bounds against a bound the search tightens;
//   - the Matcher's window mode (window_pairs.cpp): one input per (stream, pattern) pair
//     with windows in the batch, aligned in place against the pattern's threshold.
// The passes:
//   1. moments   each window's mean and 1/std under znorm, by common::WindowStats's own
//                algorithm (an exact two-pass anchor every kStatsAnchor ends, at or after
//                the pair's first window end, Welford slides from it, the flat test), one
//                thread per anchor: bit for bit the cpu's values, so the windows are
//                compared as the same float32 values however the stream was batched.
//   2. bounds    per window max(LB_Kim, LB_Keogh on the pattern's envelope) in double over
//                those values, rounded down to float: the key; the LB_Kim part kept for the
//                statistics. LB_Kim here aligns the table's two corners (window_prepare.cu),
//                which holds common::lb_kim's two cells and more.
//   3. sort      (search) the windows by key (CUB radix sort).
//   4. align     warps take windows (search: in key order) and align them against the
//                pattern (WarpDistance's register wavefront, window_dtw.cu), z-normalizing
//                the window as it streams in, and abandon a window as soon as a cut through
//                its table is over the bound. Search: a warp that meets a window whose key
//                is over the bound stops (every later key is larger); the bound is the
//                threshold, tightened by the host between rounds (top_bound) and, for
//                K = 1, by the kernel itself (atomicMin of each distance found). Matcher: a
//                window whose key is over the input's limit is skipped; every window gets
//                its distance (+inf when pruned or abandoned).
// Plain structs only: included by host C++20 and device C++17.
#pragma once

#include <cstddef>
#include <cstdint>

struct CUstream_st;

namespace warpwatch::kernels::cuda::detail {

using window_stream_t = CUstream_st*;

// One input: a series' windows, the pattern as compared and its envelopes, all in device
// memory.
struct WindowSearchInput {
  const float* x = nullptr;     // the series (dims 1) from sample x_first on
  std::uint64_t x_first = 0;    // the index of x[0]
  std::uint64_t first_end = 0;  // the last sample of window 0; window i ends at first_end + i*hop
  // Moments: the earliest anchor (WindowStats's first_end: the pair's first window end).
  std::uint64_t anchor_floor = 0;
  std::uint32_t hop = 1, w = 0, n = 0, windows = 0;
  const float* q = nullptr;       // the pattern, n values, normalized as windows are
  const float* env_lo = nullptr;  // w: the pattern's envelope per window column
  const float* env_hi = nullptr;
  const std::int32_t* band_lo = nullptr;  // n + 1 (1-based rows): the band's columns; null:
  const std::int32_t* band_hi = nullptr;  // no band
  const double* mean = nullptr;           // per window of this input, or null: no znorm
  const double* scale = nullptr;
  const std::uint8_t* flat = nullptr;  // per window of this input (znorm skipped it), or null
  double margin = 0.0;                 // WindowQuery::margin
  int kind = 0;  // FastKind: dtw_sq, dtw_abs, dk_sq or dk_abs; or kWindowEdSq, kWindowEdAbs
  // LB_Kim's corners: their side (1..16). Measured on the H100, top-1 over 4.2e6 walk
  // samples, m 1023, no band (device ms, query from the series / an unrelated walk):
  // side 1 10.9 / 117, 4 11.4 / 107, 8 12.9 / 97, 16 18.2 / 92.
  int corner = 8;
  // Matcher only (the search's bound is in WindowSearchState): the bound a distance must not
  // exceed (a float: the largest at or below the threshold), the distance of each window
  // (+inf: pruned or abandoned; written by the alignment pass) and what was pruned
  // ([0] LB_Kim, [1] LB_Keogh: by the bounds pass; [2] abandoned).
  float limit = 0.0f;
  float* distances = nullptr;
  unsigned long long* pruned = nullptr;
};

// The kinds of ed inputs (the Matcher's window mode only): lock-step sums, no bounds pass.
constexpr int kWindowEdSq = 5, kWindowEdAbs = 6;

// Inputs in device memory with their windows numbered back to back: input p holds windows
// [window_base[p], window_base[p + 1]) of the arrays the passes share (keys, moments, the
// sorted order), and the moments pass's anchor blocks [block_base[p], block_base[p + 1])
// (none for an input without znorm).
struct WindowInputs {
  const WindowSearchInput* inputs = nullptr;
  const std::uint32_t* window_base = nullptr;  // count + 1
  const std::uint32_t* block_base = nullptr;   // count + 1
  std::uint32_t count = 0, windows = 0, blocks = 0;
};

// The moments pass's anchor blocks of an input (host and device): block 0 holds the
// windows ending in [first_end, the next multiple of kStatsAnchor), each next one the
// kStatsAnchor ends after.
constexpr std::uint64_t kWindowAnchor = 64;  // common::kStatsAnchor
inline std::uint32_t window_moment_blocks(const WindowSearchInput& in) {
  if (in.windows == 0 || in.mean == nullptr) return 0;
  const std::uint64_t last_end = in.first_end + static_cast<std::uint64_t>(in.windows - 1) * in.hop;
  return static_cast<std::uint32_t>(last_end / kWindowAnchor - in.first_end / kWindowAnchor + 1);
}

// What the alignment pass shares between its warps and with the host.
struct WindowSearchState {
  const float* keys = nullptr;           // the lower bounds (search: sorted)
  const std::uint32_t* order = nullptr;  // search: window at each sorted position; matcher: null
  unsigned* bound = nullptr;             // search: float bits of the current bound; matcher: null
  unsigned* next = nullptr;              // the next position to take (zeroed per launch)
  unsigned* stopped = nullptr;           // set when a warp met a key over the bound
  float* found_distance = nullptr;       // windows aligned to the end at or under the bound
  std::uint32_t* found_window = nullptr;
  unsigned* found_count = nullptr;
  unsigned found_capacity = 0;
  unsigned long long* abandoned = nullptr;
  std::uint8_t* aligned = nullptr;  // per window: taken by the alignment pass (or null)
  bool tighten = false;             // K = 1: each distance found lowers the bound
};

// 1. Moments of every window of the inputs with znorm, into the shared arrays (each
// input's mean/scale/flat are its part of them).
void launch_window_moments(const WindowInputs& inputs, double* mean, double* scale,
                           std::uint8_t* flat, window_stream_t stream);

// 2. keys[i] and kim[i] of every window i (+inf for a flat one); an input with `pruned`
// counts its windows whose key is over its limit, by stage.
void launch_window_bounds(const WindowInputs& inputs, float* keys, float* kim,
                          window_stream_t stream);

// 3. Sorts (keys, 0..windows-1) into (sorted_keys, order). Temporary storage: query with
// temp = null (returns the bytes needed), then call with at least that much.
std::size_t sort_window_bounds(void* temp, std::size_t temp_bytes, const float* keys,
                               float* sorted_keys, std::uint32_t* order, std::uint32_t* indices,
                               std::uint32_t windows, window_stream_t stream);

// 4. Aligns the windows at positions [begin, end) (search: sorted positions; matcher:
// windows), or at positions list[0, count) when list is set. rows_per_lane as
// WarpDistance::rows_per_lane(n) and `kind` (FastKind) and the band's presence are those of
// every input whose windows are taken.
void launch_window_alignments(const WindowInputs& inputs, int kind, bool band,
                              const WindowSearchState& state, int rows_per_lane,
                              std::uint32_t begin, std::uint32_t end, const std::uint32_t* list,
                              std::uint32_t count, window_stream_t stream);

// The Matcher's ed: every window of the inputs holding windows [begin, end) (all of kind
// kWindowEdSq or kWindowEdAbs), a thread a window summing in double in sample order, the
// sum abandoned once it is over the next float above the input's limit (then the float
// distance could not be at or under the limit); the distance (float) or +inf into the
// input's distances, the abandoned ones counted in pruned[2].
void launch_window_ed(const WindowInputs& inputs, std::uint32_t begin, std::uint32_t end,
                      window_stream_t stream);

// Search: the windows the cascade skipped, by stage: counts[0] += those not flat, not
// aligned, whose LB_Kim prunes against `bound`; counts[1] += the other skipped ones;
// counts[2] += the flat ones.
void launch_window_skip_counts(const WindowInputs& inputs, const float* kim,
                               const std::uint8_t* aligned, float bound, unsigned long long* counts,
                               window_stream_t stream);

// The rows per lane the alignment kernel is built for (the smallest with 32 * R >= n).
int window_rows_per_lane(std::size_t n);
inline constexpr std::size_t kWindowMaxRows = 32 * 48;

}  // namespace warpwatch::kernels::cuda::detail
