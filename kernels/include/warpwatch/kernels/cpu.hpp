// The fast CPU backend: SIMD through Highway (runtime dispatch to the best instruction
// set of the machine: AVX-512, AVX2, SSE4, NEON, ...) and a thread pool. The embedded
// default when no CUDA device is usable.
//
// Stream mode (dtw, dk) is bit-identical to the reference (docs/spec.md §3.1). Window mode and
// whole-series distances are computed in float32 with the cell formulas of docs/spec.md §4 in
// one fixed order (no fused multiply-add), within 1e-5 relative of the float64 reference.
#pragma once

#include <memory>
#include <span>
#include <string>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::cpu {

struct Options {
  unsigned threads = 0;  // worker threads; 0 = one per hardware thread
  // Window mode with dtw, dk or ed: skip the windows a lower bound shows cannot qualify
  // (common/window/window_bounds.hpp; ed: early abandoning and the FFT filter of cpu/window_ed.hpp;
  // the events are the same). Off: every window aligned (summed) in full, to check that.
  bool window_pruning = true;
  // ed with cost sq and d = 1, pruning on: the FFT filter (MASS's sliding dot products with a
  // rigorous error bound; the results are the same with or without it). automatic: for
  // patterns long enough that it pays (cpu/window_ed.hpp); always, never: tests, benchmarks.
  enum class EdFft { automatic, always, never };
  EdFft ed_fft = EdFft::automatic;
};

std::unique_ptr<Matcher> make_matcher(const Options& options = {});

// out[i * b.size() + j] = distance(a[i], b[j]) for the metric of `params` (docs/spec.md §4).
// All series have the same dims. Throws std::invalid_argument on bad input.
void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     const Options& options = {});

// softdtw's gradient with respect to each series of A for every pair (backends.hpp's
// softdtw_grad_matrix; the layout of `out` is described there), in float64: the rows of A
// on the worker pool, each against SIMD lanes of equally long series of B, the whole soft-DTW
// table of a lane group kept for the backward pass ((n + 2) x (m + 2) doubles a lane; fewer
// threads run at once when all of theirs would pass 1 GiB).
void softdtw_grad_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                         const DistanceParams& params, std::span<double> out,
                         const Options& options = {});

// docs/spec.md §3.2's top K windows (top_windows.hpp), pruned like window mode
// (Options::window_pruning).
std::vector<TopWindow> top_windows(const TopWindowsRequest& request, const Options& options = {});

// The instruction set the SIMD kernels dispatched to on this machine, e.g. "AVX2".
std::string simd_target();

}  // namespace warpwatch::kernels::cpu
