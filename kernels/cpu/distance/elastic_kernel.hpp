// Whole-series distances (docs/spec.md §4) of one series `a` against a group of series `b`
// of one length, one SIMD lane per b: the batch form shared by window mode (a = the
// pattern, b = windows) and `warpwatch distance` (a = a row of A, b = columns of B).
//
// dtw, dk, twed, msm and erp run in float32 with the cell formulas of docs/spec.md §4 in one
// fixed order; softdtw runs in float64 (exp/log of float32 would lose the 1e-5 tolerance),
// and lcss's match tests too (so that it decides each match as the reference does).
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
  // Early abandoning (window mode's pruning, common/window/window_bounds.hpp; dtw and dk only): per
  // lane the limit its distance must not exceed to matter, and rest[i * width + lane]
  // (i = 1..n+1) a lower bound of what rows i..n add. After each row, a lane whose least
  // cell combined with the rest is over its limit (shrunk by `margin`) is given up: +inf.
  // The lanes that are not given up come out bit for bit as without abandoning.
  const double* limit = nullptr;  // null: no abandoning
  const double* rest = nullptr;
  double margin = 0.0;
};

// Reusable scratch (grown on first use, then reused: no allocation on the hot path).
struct ElasticScratch {
  std::vector<float> f;
  std::vector<double> g;
  std::vector<std::int32_t> band_lo, band_hi;
  std::vector<float> row_min;       // abandoning: a row's least cell per lane
  std::vector<std::uint8_t> alive;  // abandoning: lanes not given up
};

// out[lane] = distance(a, b_lane) for every lane.
void one_vs_many(const OneVsMany& job, const DistanceParams& params, ElasticScratch& scratch,
                 double* out);

}  // namespace warpwatch::kernels::cpu
