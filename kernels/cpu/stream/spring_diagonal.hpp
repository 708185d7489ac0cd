// Stream mode (docs/spec.md §3.1) for one (stream, pattern) pair over a long chunk, vectorized
// along the anti-diagonal: the lanes of a vector hold consecutive columns (samples), so
// one pair fills every lane (spring_kernel.hpp puts a pair in each lane instead, which
// leaves lanes idle when a pattern has fewer active pairs than lanes). Same floats as the
// reference, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/stream/spring_kernel.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

// Columns a stripe holds: the float lanes of the dispatched target (16 on AVX-512, 8 on
// AVX2, 4 on SSE4/NEON).
std::size_t spring_diagonal_width();

// Grown on first use, then reused.
struct SpringDiagonalScratch {
  std::vector<float> reversed;  // the pattern per component, reversed and zero-padded
  std::vector<float> x;         // a stripe's samples, [component][lane]
  std::vector<float> d;         // a stripe's cells, [step][lane]
  std::vector<std::int32_t> s;
  // For callers whose pair state is a lane of a group: the lane copied in and out.
  std::vector<float> column_d;
  std::vector<std::int32_t> column_s;
  float column_d_min = 0.0f;
  std::int32_t column_t_s = 0, column_t_e = 0;
};

// Runs `count` samples (count x dims, row-major; the first has index low 32 bits `first`)
// through the pair whose state is `state`, a group of width 1 (its column contiguous; the
// candidate read and updated in place); appends its reports (lane = `lane`, step = the sample's
// offset) in step order.
void spring_pair_run(const SpringGroupState& state, const float* x, std::uint32_t count,
                     std::int32_t first, std::uint32_t lane, SpringDiagonalScratch& scratch,
                     std::vector<SpringLaneReport>& reports);

}  // namespace warpwatch::kernels::cpu
