// docs/spec.md §3.1 in float32: the SPRING state of one (stream, pattern) pair and its update
// per sample. Faster backends must reproduce these floats bit for bit, so the arithmetic
// here is the specification: c = sum_k diff_k * diff_k (or |diff_k|) accumulated from 0
// in component order, D = c + best (dtw) or max(c, best) (dk), no fused multiply-add.
#pragma once

#include <cfloat>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "common/spring_lane_state.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::reference {

// A SPRING report, in 0-based sample indices (SPEC's t = index + 1).
struct SpringReport {
  float distance;
  std::uint64_t start_index;
  std::uint64_t end_index;
};

class SpringPair {
 public:
  // `pattern` is m x dims row-major; threshold eps is compared in float32.
  SpringPair(const float* pattern, std::size_t m, std::size_t dims, Metric metric, Cost cost,
             double threshold);

  // Computes the column of the sample with 0-based `index` and applies the reporting
  // rules; returns the candidate that this column proves final, if any. With `moves` (m
  // bytes), each cell's chosen predecessor is written there: 0 (t, i-1) (for i = 1 the
  // boundary: the path starts here), 1 (t-1, i-1), 2 (t-1, i).
  std::optional<SpringReport> step(const float* sample, std::uint64_t index,
                                   std::uint8_t* moves = nullptr);
  // End of input: the pending candidate, if it qualifies (docs/spec.md §3.1 flush).
  std::optional<SpringReport> flush();

  // Smallest start index that a future report can still carry (cells with D <= eps and
  // the pending candidate); nullopt when none. Lets the caller forget older timestamps.
  std::optional<std::uint64_t> oldest_live_start() const;
  // Start index of the pending candidate (valid while one is pending).
  bool has_candidate() const { return d_min_ <= eps_; }
  // The table's last row after the latest step (after rule 1's resets, if one reported):
  // D(t, m) and S(t, m). With a threshold below 0 nothing ever qualifies, so the table is
  // never reset: these are docs/spec.md §3.3's stream profile.
  float last_distance() const { return d_[m_ - 1]; }
  std::uint64_t last_start() const { return s_[m_ - 1]; }

  // The state in the portable form (low 32 bits of the indices), and back: the absolute
  // indices are the ones at or before `next_index`, the pair's stream's next sample.
  void export_state(common::SpringLaneState& out) const;
  void import_state(const common::SpringLaneState& in, std::uint64_t next_index);

 private:
  static constexpr float inf = std::numeric_limits<float>::infinity();
  const float* pattern_;
  std::size_t m_, dims_;
  Metric metric_;
  Cost cost_;
  float eps_;
  std::vector<float> d_;          // D(t, 1..m)
  std::vector<std::uint64_t> s_;  // S(t, 1..m), 0-based start indices
  float d_min_ = inf;
  std::uint64_t t_s_ = 0, t_e_ = 0;
};

// Stream mode's threshold eps in float32, the form every backend compares D with. A
// threshold beyond float range still means "everything qualifies": it is clamped so a
// pending candidate (d_min = +inf) is never mistaken for a qualifying one.
inline float stream_eps(double threshold) {
  return threshold >= static_cast<double>(FLT_MAX) ? FLT_MAX : static_cast<float>(threshold);
}

// The local cost of docs/spec.md §2 in float32, in the one order every backend uses.
inline float local_cost_f32(const float* x, const float* y, std::size_t dims, Cost cost) {
  float c = 0.0f;
  for (std::size_t k = 0; k < dims; ++k) {
    const float diff = x[k] - y[k];
    c = c + (cost == Cost::sq ? diff * diff : (diff < 0.0f ? -diff : diff));
  }
  return c;
}

}  // namespace warpwatch::kernels::reference
