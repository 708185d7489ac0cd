// Window mode on the CPU: the windows that end in a batch for one (stream, pattern) pair
// (the Matcher base's WindowBatch) compared with the pattern one SIMD lane per window
// (elastic_kernel.hpp). Under znorm, each window's moments come from sliding sums
// (common/window_stats.hpp). With dtw and dk, the windows first pass the lower-bound
// cascade of common/window_bounds.hpp against the pattern's threshold: a window that cannot
// qualify is not aligned (distance +inf), and the alignment of the rest is abandoned once
// they cannot; the events are those of the full computation.
#pragma once

#include <array>
#include <cstdint>

#include "common/matcher_state.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

// Windows [first, first + count) of `windows`: fills their distances (and flat for the
// windows znorm skips) and adds what the cascade pruned, by stage, to `pruned`. Distinct
// ranges of one WindowBatch may run on distinct threads.
void compute_window_distances(common::WindowBatch& windows, std::size_t first, std::size_t count,
                              bool prune, WorkerScratch& scratch,
                              std::array<std::uint64_t, 4>& pruned);

}  // namespace warpwatch::kernels::cpu
