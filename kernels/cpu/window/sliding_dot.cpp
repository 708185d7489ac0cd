// MASS's sliding dot products by FFT (sliding_dot.hpp), and the bound of their error.
//
// Overlap-save: a block of L <= N samples (N = the transforms' length, a power of two) is
// centred (x'_i = x_i - c, c one of its samples), zero-padded to N and transformed; the
// product with the transform of the query reversed and zero-padded, transformed back, holds
// sum_i q_i x'_{j+i} for the N - m + 1 windows j that start in the block (the circular
// products that do not wrap around). The next block starts N - m + 1 samples later.
//
// The error of a dot product (u = 2^-53, all in double):
// - One transform of length N = 2^k: ||fl(Fx) - Fx||_2 <= delta ||Fx||_2 with
//   delta = k eta, eta = mu + gamma_4 (sqrt 2 + mu), mu the error of the twiddle factors
//   (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Theorem 24.2, for
//   Cooley-Tukey radix 2). FFTW's twiddles are accurate to about u, so eta <= 8u, and
//   delta = 8 u log2 N here; FFTW factors differently (other radices, codelets, the real
//   transforms' extra twiddle pass), which the safety factor below is for.
// - The product: with X = F x', Y = F y (y the padded query), ||X||_2 = sqrt(N) ||x'||_2,
//   ||Y||_inf <= ||y||_1 = ||q||_1, and ||e_Y||_inf <= ||e_Y||_2 <= delta sqrt(N) ||q||_2:
//     ||fl(X^ (.) Y^) - X (.) Y||_2 <= sqrt(N) ||x'||_2 (delta ||q||_1 + delta sqrt(N) ||q||_2
//                                      + 3u ||q||_1)           (3u: a complex product)
//   and the inverse transform (divided by N, exact for a power of two) maps 2-norms to
//   1/sqrt(N) of them and adds its own delta ||x'||_2 ||q||_1. So, to first order, every
//   dot product of the block errs by at most
//     ||x'||_2 ((2 delta + 3u) ||q||_1 + delta sqrt(N) ||q||_2),
//   plus u ||q||_1 ||x'||_inf for forming x'_i (a difference of floats, rounded at most once).
// - err_dot = 4 ||x'||_2 ((2 delta + 4u) ||q||_1 + delta sqrt(N) ||q||_2): the factor 4
//   covers the second-order terms and FFTW's algorithms; a bound too loose only lets more
//   windows through to their direct sums, a bound too tight would drop a window wrongly.
//   The tests check it against exact sums on random walks far from zero and flat stretches
//   (tests/kernels/cpu/test_window_ed.cpp): the dot products seen there err by less than
//   10^-3 of it (the prefix sums below by up to about 5% of theirs).
// - Window sums from prefix sums over the block (A1 = sum |x'_i|, A2 = sum x'_i^2 over the
//   block's L samples, gamma_n = n u / (1 - n u)): each prefix errs by at most
//   gamma_(L+1) A1 (gamma_(L+3) A2 for the squares, each square rounded), a window is the
//   difference of two, rounded once: err_x1 = 2 gamma_(L+1) A1 + 2u |x1|, err_x2 =
//   2 gamma_(L+3) A2 + 2u x2.
// Centring each block at one of its samples keeps ||x'|| to the block's spread: a random
// walk far from zero (10^4 + steps of 1) errs as one near zero.
#include "cpu/window/sliding_dot.hpp"

#include <fftw3.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cpu {
namespace {

constexpr double kU = 0x1p-53;
constexpr std::size_t kBlockFactor = 4;  // transform length / m (rounded to a power of two)
constexpr std::size_t kMinBlock = 256;

struct Plans {
  fftw_plan forward, inverse;
};

// FFTW's planner is not thread-safe; its plans may be executed from any thread on other
// arrays of the same alignment (fftw_execute_dft_r2c and _c2r). Made once per length and kept
// for the process: the map is never destroyed, so a thread still transforming while the
// process exits finds its plan, and the plans stay reachable (a static map destroyed at
// exit dropped the only pointers to them: LeakSanitizer reported FFTW's allocations).
const Plans& plans_for(std::size_t size) {
  static std::mutex mutex;
  static auto& plans = *new std::map<std::size_t, Plans>;
  const std::lock_guard lock(mutex);
  auto it = plans.find(size);
  if (it == plans.end()) {
    const int n = static_cast<int>(size);
    double* in = fftw_alloc_real(size);
    fftw_complex* out = fftw_alloc_complex(size / 2 + 1);
    const Plans made{fftw_plan_dft_r2c_1d(n, in, out, FFTW_ESTIMATE),
                     fftw_plan_dft_c2r_1d(n, out, in, FFTW_ESTIMATE)};
    fftw_free(in);
    fftw_free(out);
    WW_ASSERT(made.forward && made.inverse, "FFTW could not plan a transform");
    it = plans.emplace(size, made).first;
  }
  return it->second;
}

fftw_complex* as_complex(double* p) {
  return reinterpret_cast<fftw_complex*>(p);
}

double gamma(std::size_t n) {
  const double nu = static_cast<double>(n) * kU;
  return nu / (1.0 - nu);
}

// `count` doubles, 64-byte aligned: at least as fftw_malloc aligns, so FFTW sees the alignment
// its plans were made with.
double* aligned_doubles(std::size_t count) {
  constexpr std::size_t kAlign = 64;
  const std::size_t bytes = (count * sizeof(double) + kAlign - 1) / kAlign * kAlign;
  auto* p = static_cast<double*>(std::aligned_alloc(kAlign, bytes));
  if (!p) throw std::bad_alloc();
  return p;
}

void reserve(SlidingDotScratch& s, std::size_t size) {
  if (s.size == size) return;
  s.real.reset(aligned_doubles(size));
  s.spectrum.reset(aligned_doubles(2 * (size / 2 + 1)));
  s.query_spectrum.reset(aligned_doubles(2 * (size / 2 + 1)));
  s.query.clear();
  s.size = size;
}

}  // namespace

void AlignedFree::operator()(double* p) const {
  std::free(p);
}

std::size_t sliding_dot_block(std::size_t m, std::size_t count) {
  const std::size_t full = std::max(kMinBlock, kBlockFactor * std::bit_ceil(m));
  return std::min(full, std::bit_ceil(count + m - 1));
}

void sliding_dots(std::span<const float> q, const float* x, std::size_t count, WindowDots& out,
                  SlidingDotScratch& s) {
  const std::size_t m = q.size();
  const std::size_t size = sliding_dot_block(m, count), per_block = size - m + 1;
  const Plans& plans = plans_for(size);
  reserve(s, size);
  double* real = s.real.get();
  if (!std::equal(q.begin(), q.end(), s.query.begin(), s.query.end())) {
    for (std::size_t i = 0; i < m; ++i) real[i] = q[m - 1 - i];
    std::fill(real + m, real + size, 0.0);
    fftw_execute_dft_r2c(plans.forward, real, as_complex(s.query_spectrum.get()));
    s.query.assign(q.begin(), q.end());
  }
  double q1 = 0.0, q2 = 0.0;
  for (const float v : q) {
    q1 += std::fabs(static_cast<double>(v));
    q2 += static_cast<double>(v) * v;
  }
  // Upward by their own rounding (a relative (m + 2) u), so that they bound the exact norms.
  q1 *= 1.0 + gamma(m + 2);
  q2 = std::sqrt(q2 * (1.0 + gamma(m + 2))) * (1.0 + 2 * kU);
  const double delta = 8.0 * kU * std::log2(static_cast<double>(size));
  const double dot_factor =
      4.0 * ((2.0 * delta + 4.0 * kU) * q1 + delta * std::sqrt(static_cast<double>(size)) * q2);

  for (auto* v : {&out.centre, &out.dot, &out.err_dot, &out.x1, &out.err_x1, &out.x2, &out.err_x2})
    v->resize(count);
  s.prefix1.resize(size + 1);
  s.prefix2.resize(size + 1);
  const std::size_t half = size / 2 + 1;
  const double* query = s.query_spectrum.get();
  double* spectrum = s.spectrum.get();  // (re, im) pairs
  for (std::size_t begin = 0; begin < count; begin += per_block) {
    const std::size_t windows = std::min(per_block, count - begin), length = windows + m - 1;
    const float* block = x + begin;
    const double c = block[length / 2];
    double a1 = 0.0, a2 = 0.0;
    s.prefix1[0] = s.prefix2[0] = 0.0;
    for (std::size_t i = 0; i < length; ++i) {
      const double v = static_cast<double>(block[i]) - c;
      real[i] = v;
      a1 += std::fabs(v);
      a2 += v * v;
      s.prefix1[i + 1] = s.prefix1[i] + v;
      s.prefix2[i + 1] = s.prefix2[i] + v * v;
    }
    std::fill(real + length, real + size, 0.0);
    // The block's norms bound the exact ones after the same upward step as the query's.
    a1 *= 1.0 + gamma(length + 2);
    a2 *= 1.0 + gamma(length + 3);
    const double err_dot = dot_factor * std::sqrt(a2) * (1.0 + 2 * kU);
    const double err1 = 2.0 * gamma(length + 1) * a1, err2 = 2.0 * gamma(length + 3) * a2;

    fftw_execute_dft_r2c(plans.forward, real, as_complex(s.spectrum.get()));
    for (std::size_t k = 0; k < 2 * half; k += 2) {  // the textbook complex product
      const double re = spectrum[k], im = spectrum[k + 1];
      spectrum[k] = re * query[k] - im * query[k + 1];
      spectrum[k + 1] = re * query[k + 1] + im * query[k];
    }
    fftw_execute_dft_c2r(plans.inverse, as_complex(s.spectrum.get()), real);
    const double scale = 1.0 / static_cast<double>(size);  // exact: a power of two
    for (std::size_t j = 0; j < windows; ++j) {
      const std::size_t w = begin + j;
      out.centre[w] = c;
      out.dot[w] = real[m - 1 + j] * scale;
      out.err_dot[w] = err_dot;
      out.x1[w] = s.prefix1[j + m] - s.prefix1[j];
      out.err_x1[w] = err1 + 2.0 * kU * std::fabs(out.x1[w]);
      out.x2[w] = s.prefix2[j + m] - s.prefix2[j];
      out.err_x2[w] = err2 + 2.0 * kU * std::fabs(out.x2[w]);
    }
  }
}

}  // namespace warpwatch::kernels::cpu
