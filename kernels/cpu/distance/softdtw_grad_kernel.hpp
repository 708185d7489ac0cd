// softdtw's gradient (docs/spec.md §4.2) of one series `a` against a group of equally long series
// `b`, one float64 SIMD lane per b: the batch form of reference::softdtw_grad that
// softdtw_grad_matrix.cpp runs on the worker pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

// Lanes per call: the doubles of the widest vector the machine has (8 with AVX-512).
std::size_t softdtw_grad_width();

struct GradJob {
  const float* a = nullptr;  // n x dims, row-major
  std::size_t n = 0;
  const float* b = nullptr;  // transposed: [m][dims][softdtw_grad_width()]
  std::size_t m = 0;
  std::size_t dims = 1;
};

// Reusable scratch (grown on first use, then reused).
struct GradScratch {
  std::vector<double> table;  // the soft-DTW table R, (n + 2) x (m + 2) lane-vectors
  std::vector<double> rows;   // the backward pass's rows i and i + 1 of E and of R - cost
  std::vector<std::int32_t> band_lo, band_hi;
};

// Bytes of GradScratch a job of n x m uses (the table dominates).
std::size_t softdtw_grad_scratch_bytes(std::size_t n, std::size_t m);

// grad[(i * dims + k) * width + lane] = d softdtw(a, b_lane) / d a[i][k], width =
// softdtw_grad_width(); 0 for every component of a lane that no path fits (a band).
// The reference's recursions (Cuturi & Blondel 2017, Algorithms 1 and 2) in its order of
// operations, with Highway's exp and log.
void softdtw_grad_lanes(const GradJob& job, const DistanceParams& params, GradScratch& scratch,
                        double* grad);

}  // namespace warpwatch::kernels::cpu
