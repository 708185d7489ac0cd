// Stream mode (docs/spec.md §3.1) for a group of up to spring_group_width() (stream, pattern)
// pairs (16 on AVX2, 32 on AVX-512, 8 on SSE4/NEON) that share one pattern: one SIMD lane per pair,
// so every lane performs exactly the scalar reference's float32 operations in the same order
// (bit-identical results), and the whole group's SPRING columns stay in L1 while a batch of samples
// streams through.
#pragma once

#include <cstdint>
#include <vector>

#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

// Lanes per group on this machine: two float vectors of the dispatched target (16 on
// AVX2, 32 on AVX-512, 8 on SSE4/NEON), so two independent dependency chains run
// through every row. Fixed for the life of the process.
std::size_t spring_group_width();

// Start indices are kept as the low 32 bits of the absolute sample index and compared
// with wrap-around arithmetic ((int32)(a - b) > 0), exact while a match, or a live path,
// spans fewer than 2^31 samples.
struct SpringGroupState {
  std::size_t width = 0;  // lanes: spring_group_width()
  std::size_t m = 0, dims = 1;
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;
  float eps = 0.0f;
  const float* pattern = nullptr;  // m x dims, row-major
  float* d = nullptr;              // D(t, i) of every lane: [m][group width], 64-byte aligned
  std::int32_t* s = nullptr;       // S(t, i): [m][group width]
  float* d_min = nullptr;          // pending candidate per lane: [group width]
  std::int32_t* t_s = nullptr;     // [group width]
  std::int32_t* t_e = nullptr;     // [group width]
};

struct SpringBatch {
  const float* x = nullptr;              // samples, [steps][dims][group width]
  const std::uint32_t* count = nullptr;  // samples per lane this batch, [group width]
  const std::int32_t* first = nullptr;   // low 32 bits of each lane's first index, [group width]
  std::size_t steps = 0;                 // max of count
  std::size_t lanes = 0;                 // lanes holding a pair: [0, lanes); the rest are idle
};

struct SpringLaneReport {
  std::uint32_t lane;
  std::uint32_t step;  // the report happened after the column of this step
  float distance;
  std::int32_t t_s, t_e;  // low 32 bits
};

// Runs the batch through the group; appends reports in step order.
void spring_group_run(const SpringGroupState& state, const SpringBatch& batch,
                      std::vector<SpringLaneReport>& reports);

// For one lane, how far back (in samples before `next`, the low 32 bits of the lane's
// next index) the oldest start that can still be reported lies: cells with D <= eps and
// the pending candidate. 0 when nothing is live.
std::uint32_t spring_lane_live_age(const SpringGroupState& state, std::size_t lane,
                                   std::int32_t next);

}  // namespace warpwatch::kernels::cpu
