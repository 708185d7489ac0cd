// Window mode on the CPU: the windows of one (stream, pattern) pair compared with the
// pattern one SIMD lane per window (elastic_kernel.hpp). Under znorm, each window's moments
// come from sliding sums (common/window/window_stats.hpp). With dtw and dk, the windows first pass
// the lower-bound cascade of common/window/window_bounds.hpp against a limit: a window that cannot
// come out at or under it is not aligned (distance +inf), and the alignment of the rest is
// abandoned once they cannot. The matcher's limit is the pattern's threshold (the events
// are those of the full computation); a top-K search's limit tightens as it finds windows.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/matcher_state.hpp"
#include "cpu/cpu_state.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::kernels::cpu {

// One pair's windows: the stream's samples, the pattern as compared, and its envelopes
// (null: every window aligned in full), and whether ed uses its FFT filter.
struct WindowSource {
  const kernels::StreamHistory* history = nullptr;
  const common::WindowTrack* track = nullptr;
  const common::WindowQuery* query = nullptr;
  Options::EdFft ed_fft = Options::EdFft::automatic;
};

// The bound a window's distance must not exceed to matter; called before each window.
// aligned() hears every window aligned to the end (not pruned, not flat), in order (ed with
// its FFT filter: the window of least estimate first, then the others in order).
class WindowLimit {
 public:
  virtual ~WindowLimit() = default;
  virtual double limit() = 0;
  virtual void aligned(std::size_t /*index*/, double /*distance*/) {}
};

// Windows ends[first, first + count): fills distances[i] (+inf when pruned) and flat[i]
// (znorm skipped it), and adds what the cascade pruned, by stage (kPruneStages), to
// `pruned`. ed goes to window_ed.hpp. Distinct ranges may run on distinct threads.
void compute_windows(const WindowSource& source, std::span<const std::uint64_t> ends,
                     std::size_t first, std::size_t count, WindowLimit& limit, double* distances,
                     std::uint8_t* flat, WorkerScratch& scratch,
                     std::array<std::uint64_t, kPruneStages>& pruned);

// The matcher's form: a WindowBatch's windows against the pattern's threshold, pruned as
// `options` say (window_pruning, ed_fft).
void compute_window_distances(common::WindowBatch& windows, std::size_t first, std::size_t count,
                              const Options& options, WorkerScratch& scratch,
                              std::array<std::uint64_t, kPruneStages>& pruned);

}  // namespace warpwatch::kernels::cpu
