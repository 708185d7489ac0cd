// Stream mode (SPEC.md 3.1) for one (stream, pattern) pair over a long chunk, vectorized
// along the anti-diagonal: the lanes of a vector hold consecutive columns (samples), so
// one pair fills every lane (spring_kernel.hpp puts a pair in each lane instead, which
// leaves lanes idle when a pattern has fewer active pairs than lanes). Same floats as the
// reference, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "cpu/spring_kernel.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

// Columns a stripe holds: the float lanes of the dispatched target (16 on AVX-512, 8 on
// AVX2, 4 on SSE4/NEON).
std::size_t spring_diagonal_width();

// One pair's state as a contiguous column; the candidate is read and updated in place.
struct SpringPairState {
  std::size_t m = 0, dims = 1;
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;
  float eps = 0.0f;
  const float* pattern = nullptr;  // m x dims, row-major
  float* d = nullptr;              // D(t, i): [m]
  std::int32_t* s = nullptr;       // S(t, i), low 32 bits: [m]
  float d_min = 0.0f;              // pending candidate (+inf: none)
  std::int32_t t_s = 0, t_e = 0;
};

// Grown on first use, then reused.
struct SpringDiagonalScratch {
  std::vector<float> reversed;  // the pattern per component, reversed and zero-padded
  std::vector<float> x;         // a stripe's samples, [component][lane]
  std::vector<float> d;         // a stripe's cells, [step][lane]
  std::vector<std::int32_t> s;
  // For callers whose pair state is not contiguous: the column copied in and out.
  std::vector<float> column_d;
  std::vector<std::int32_t> column_s;
};

// Runs `count` samples (count x dims, row-major; the first has index low 32 bits `first`)
// through the pair; appends its reports (lane = `lane`, step = the sample's offset) in
// step order.
void spring_pair_run(SpringPairState& state, const float* x, std::uint32_t count,
                     std::int32_t first, std::uint32_t lane, SpringDiagonalScratch& scratch,
                     std::vector<SpringLaneReport>& reports);

}  // namespace warpwatch::kernels::cpu
