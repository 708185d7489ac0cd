// The CPU backend's per-worker scratch, shared by its stream-mode groups and window mode.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/distance/elastic_kernel.hpp"
#include "cpu/stream/spring_diagonal.hpp"
#include "cpu/stream/spring_kernel.hpp"
#include "cpu/window/sliding_dot.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels::cpu {

// Scratch owned by one worker thread, grown on first use and then reused, so that the
// steady state allocates nothing.
struct WorkerScratch {
  std::vector<float> x;             // transposed samples / windows
  std::vector<float> times;         // transposed window times (twed)
  std::vector<float> window;        // one window, for normalization
  std::vector<float> window_times;  // twed: one window's rebased clock
  // Window mode's pruning (window_distances.hpp): the windows in the lanes of the group being
  // gathered, each lane's limit and rest-of-rows bounds, and one window's envelope.
  std::vector<std::size_t> lanes;
  std::vector<double> limits, rest, rest_rows;
  std::vector<float> env_lo, env_hi;
  std::vector<SpringLaneReport> reports;
  // Stream mode: lanes of sparse groups gathered into one full-width group (spring_pattern.hpp).
  std::vector<float> pack_d, pack_d_min;
  std::vector<std::int32_t> pack_s, pack_t_s, pack_t_e;
  // Stream mode: one pair along the anti-diagonal (spring_diagonal.hpp).
  SpringDiagonalScratch diagonal;
  ElasticScratch elastic;
  // ed's windows (window_ed.hpp): a slice's moments and FFT bounds, and the FFT's buffers.
  std::vector<double> ed_mean, ed_scale, ed_bound;
  WindowDots ed_dots;
  SlidingDotScratch ed_fft;
  std::vector<RawMatch> matches;  // this worker's matches of the batch
};

}  // namespace warpwatch::kernels::cpu
