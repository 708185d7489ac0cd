// Whole-series distances (SPEC.md 4) of one series `a` against a group of series `b`
// of one length, one SIMD lane per b: the batch form shared by window mode (a = the
// pattern, b = windows) and `warpwatch distance` (a = a row of A, b = columns of B).
//
// dtw, dk and twed run in float32 with the cell formulas of SPEC.md 4 in one fixed
// order; softdtw runs in float64 (exp/log of float32 would lose the 1e-5 tolerance).
#pragma once

#include <cstdint>
#include <vector>

#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

// Lanes per call: the same as a stream-mode group (spring_group_width()).
std::size_t elastic_group_width();

struct OneVsMany {
  const float* a = nullptr;        // n x dims, row-major
  const float* a_times = nullptr;  // twed: n times in seconds, relative to `origin`; null = index
  std::size_t n = 0;
  const float* b = nullptr;  // transposed: [m][dims][width]
  const float* b_times =
      nullptr;  // twed: [m][width] seconds relative to the same origin; null = index
  std::size_t m = 0;
  std::size_t dims = 1;
  std::size_t width = 0;  // elastic_group_width()
};

// Reusable scratch (grown on first use, then reused: no allocation on the hot path).
struct ElasticScratch {
  std::vector<float> f;
  std::vector<double> g;
  std::vector<std::int32_t> band_lo, band_hi;
};

// out[lane] = distance(a, b_lane) for every lane.
void one_vs_many(const OneVsMany& job, const DistanceParams& params, ElasticScratch& scratch,
                 double* out);

// Rows i = 1..n of an n x m table: the columns [lo[i], hi[i]] (1-based, inclusive; lo > hi
// when the row is empty) that satisfy the Sakoe-Chiba predicate |i - j*n/m| <= band
// exactly as the reference evaluates it.
void band_ranges(std::size_t n, std::size_t m, double band, std::vector<std::int32_t>& lo,
                 std::vector<std::int32_t>& hi);

}  // namespace warpwatch::kernels::cpu
