// docs/spec.md §3.2 "Top K" (`warpwatch search --top K`): over a finite series, the K windows of
// smallest distance to a window-mode pattern such that no two overlap by more than w/2
// samples, in increasing distance, ties to the earlier window; with a threshold, only
// windows at or under it. A window with no alignment within the band (+inf) is no match. The UCR
// Suite's task (K = 1: the best match). Stream mode's top K and the distance profiles of
// both modes (docs/spec.md §3.3) are searches over a finite series too, and live here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/stream_history.hpp"

namespace warpwatch::kernels {

struct TopWindow {
  double distance = 0.0;
  std::uint64_t start_index = 0, end_index = 0;  // 0-based, inclusive
  std::int64_t start_ns = 0, end_ns = 0;

  friend bool operator==(const TopWindow&, const TopWindow&) = default;
};

// What a search did with its windows (cpu): compared (not flat), and of those, pruned by
// stage (MatcherCounters::windows_pruned's stages).
struct TopWindowsStats {
  std::uint64_t windows_evaluated = 0;
  std::array<std::uint64_t, kPruneStages> windows_pruned{};
};

// docs/spec.md §3.3: one point of a distance profile, by the sample it ends at.
struct ProfilePoint {
  // Stream mode: D(t, m), the float32 of SPRING's table without reports (finite from the
  // first sample). Window mode: the window's distance, +inf when no alignment fits the
  // band, NaN for a window skipped as flat under znorm.
  double distance = 0.0;
  std::uint64_t start_index = 0, end_index = 0;  // 0-based, inclusive; stream: S(t, m)

  friend bool operator==(const ProfilePoint&, const ProfilePoint&) = default;
};

struct TopWindowsRequest {
  StreamDef stream;                        // dims and nominal period (twed's pattern clock)
  std::span<const float> values;           // samples x dims
  std::span<const std::int64_t> times_ns;  // strictly increasing
  PatternDef pattern;                      // params.mode picks; params.threshold read only when...
  bool use_threshold = false;              // ...this is set
  std::size_t k = 1;
  TopWindowsStats* stats = nullptr;  // filled when set (cpu backend)
};

namespace common {
// Throws std::invalid_argument when the request cannot be searched: invalid parameters, a
// pattern of other dims than the stream, values that are not times x dims.
void check_request(const TopWindowsRequest& request);
// A window whose distance is known exactly, by its last sample.
struct TopCandidate {
  double distance;
  std::uint64_t end;
};
// Greedy docs/spec.md §3.2 selection: candidates in increasing (distance, end); one is taken
// unless it overlaps a taken window by more than w/2 samples (2 x overlap > w), until k.
// Returns the taken ones in that order.
std::vector<TopCandidate> select_top(std::vector<TopCandidate> candidates, std::size_t k,
                                     std::size_t w);
// A bound for pruning a top-k search from windows computed exactly: the largest distance
// among the first 2k - 1 windows greedy takes from `candidates` (+inf when it takes fewer).
// Every one of the final k windows is at or under it: each taken window excludes at most two
// of a set of windows that overlap each other by at most w/2, so 2k - 1 of them leave k.
double top_bound(std::vector<TopCandidate> candidates, std::size_t k, std::size_t w);
// select_top, as windows of the series whose sample times are `times_ns`.
std::vector<TopWindow> top_windows_of(std::vector<TopCandidate> candidates, std::size_t k,
                                      std::size_t w, std::span<const std::int64_t> times_ns);
}  // namespace common

namespace reference {
// The top K of the request's mode: window mode's every window aligned with the reference's
// distance; stream mode's (docs/spec.md §3.3) from SpringPair runs over the stretches of
// the series that no match taken so far covers (k runs over at most the whole series each).
// The oracle.
std::vector<TopWindow> top_windows(const TopWindowsRequest& request);
// docs/spec.md §3.3: the distance profile of request.pattern over the series (k and the
// threshold are not read). Stream mode: a point per sample, from the SpringPair that the
// reference matcher runs (bit for bit its D and S). Window mode: a point per window end (the
// first at w - 1, then every hop), each window compared as window mode compares it.
std::vector<ProfilePoint> profile(const TopWindowsRequest& request);
}  // namespace reference

}  // namespace warpwatch::kernels
