// Window mode and the top-K search with ed (docs/spec.md §4.0: sum_i c(p_i, x_i), w = m) on the
// CPU. A window's ed is summed in double in the pattern's visiting order (WindowQuery::order:
// largest |value| first, the UCR Suite's reordering), with or without pruning, so that the
// pruned search reports exactly the distances of the unpruned one. Pruning (against the
// WindowLimit of window_distances.hpp: the threshold, or the top-K bound):
// - early abandoning: the sum is given up once it exceeds the limit. Its terms are >= 0 and
//   rounding is monotone, so a partial sum over the limit means the whole sum is over it too;
//   no margin is needed, and a window whose distance equals the limit is never given up.
// - the FFT filter (cost sq, d = 1, long patterns): MASS's sliding dot products
//   (sliding_dot.hpp) estimate every window's ed in O(log N) a window; a window whose estimate
//   less its error bound (window_ed.cpp) is over the limit is dropped, every other one is
//   summed as above. In a top-K search the window with the least estimate is summed first, so
//   that the bound is tight from the start.
// Under znorm the windows' moments come from the sliding sums of common/window/window_stats.hpp and
// each value is normalized on the fly (common::znormal), as for dtw.
#pragma once

#include <cstdint>
#include <span>

#include "common/window/window_bounds.hpp"
#include "cpu/window/window_distances.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::cpu {

// Patterns of at least this many samples use the FFT filter under Options::EdFft::automatic,
// in calls of at least max(256, m / 4) windows (window_ed.cpp says what was measured).
inline constexpr std::size_t kEdFftFromLength = 128;

// The ed of one window (q.n samples) in q's visiting order; once the running sum exceeds
// `limit` it is returned as it stands (a value over the limit). limit +inf: the whole sum.
double ed_window(const common::WindowQuery& q, const common::WindowView& window, double limit);

// window_distances.hpp's compute_windows for a pattern of metric ed (source.query null: no
// pruning; the sums are the same).
void compute_ed_windows(const WindowSource& source, std::span<const std::uint64_t> ends,
                        std::size_t first, std::size_t count, WindowLimit& limit, double* distances,
                        std::uint8_t* flat, WorkerScratch& scratch,
                        std::array<std::uint64_t, kPruneStages>& pruned);

}  // namespace warpwatch::kernels::cpu
