// The dot products of a query with every window of a series in O(N log N): MASS's sliding
// dot products (Mueen, Viswanathan, Gupta and Keogh, "The Fastest Similarity Search
// Algorithm for Time Series Subsequences under Euclidean Distance", 2017), by FFT
// convolution in overlap-save blocks (FFTW, double precision), each with a rigorous bound of
// its rounding error. ed's windows use them as a filter (window_ed.hpp), never as a result.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace warpwatch::kernels::cpu {

// What sliding_dots returns per window j (x[j .. j + m - 1]): with c the centre of the block
// that holds it (a sample of that block, so that the transforms see the block's spread,
// not its offset from zero) and x'_i = x_i - c in double:
//   dot[j] ~ sum_i q_i x'_{j+i}   (FFT),        |error| <= err_dot[j]
//   x1[j]  ~ sum_i x'_{j+i}       (prefix sums), |error| <= err_x1[j]
//   x2[j]  ~ sum_i x'_{j+i}^2     (prefix sums), |error| <= err_x2[j]
// The bounds hold for the exact sums over the float values x_i and q_i.
struct WindowDots {
  std::vector<double> centre, dot, err_dot, x1, err_x1, x2, err_x2;
};

struct AlignedFree {
  void operator()(double* p) const;
};

// Per-worker buffers (64-byte aligned, so that every call runs the cached plans with the
// alignment they were made for; not fftw_malloc'ed: outside the planner's lock this file calls
// nothing but FFTW's thread-safe execute functions) and the transform of the last query at
// the last size.
struct SlidingDotScratch {
  std::size_t size = 0;  // the transforms' length the buffers hold
  std::unique_ptr<double, AlignedFree> real, spectrum, query_spectrum;  // spectra: complex pairs
  std::vector<float> query;  // whose transform query_spectrum holds (empty: none)
  std::vector<double> prefix1, prefix2;
};

// The transforms' length for a query of m samples and `count` windows: a power of two, four
// times m rounded up (overlap-save keeps size - m + 1 windows a block), less when the
// windows fit in a shorter one. Exposed for the tests.
std::size_t sliding_dot_block(std::size_t m, std::size_t count);

// The windows j = 0..count-1 of x (count + q.size() - 1 samples, one component) against q.
// Plans are made once per length for the process (FFTW's planner under a lock) and run on
// the caller's buffers, so distinct scratches may run on distinct threads.
void sliding_dots(std::span<const float> q, const float* x, std::size_t count, WindowDots& out,
                  SlidingDotScratch& scratch);

}  // namespace warpwatch::kernels::cpu
