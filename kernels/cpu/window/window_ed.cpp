// ed's windows on the CPU (window_ed.hpp): direct sums in the visiting order, abandoned
// against the limit, behind an optional FFT filter.
//
// The FFT filter's bound. A window's values as compared are z_i = fl32(alpha (t_i - beta)),
// with (alpha, beta) = (1/std, mean) of its moments under znorm (common::znormal), and
// z_i = t_i, (alpha, beta) = (1, 0) without. Let y_i = alpha (t_i - beta) exactly and
// D_y = sum_i (q_i - y_i)^2. With t_i = c + x'_i (c the FFT block's centre,
// sliding_dot.hpp) and g = c - beta:
//   D_y = Q2 - 2 alpha (P + g Q1) + alpha^2 (X2 + 2 g X1 + m g^2)
// where Q1 = sum q_i, Q2 = sum q_i^2 (once per call), P = sum q_i x'_i (the FFT), X1 = sum
// x'_i, X2 = sum x'_i^2 (prefix sums). E, the same formula on the computed values, errs from
// D_y by at most
//   err = 2 alpha (err_P + |g| err_Q1) + alpha^2 (err_X2 + 2 |g| err_X1) + err_Q2
//         + 16u (Q2 + 2 alpha (|P| + |g| |Q1|) + alpha^2 (X2 + 2 |g| |X1| + m g^2))
// (err_P, err_X1, err_X2 from sliding_dot.hpp; err_Q1 = gamma_m sum |q_i|, err_Q2 =
// gamma_(m+1) Q2; the last term covers rounding E's own dozen operations, g's included, and
// is where the cancellation of a window far from its block's centre, or much flatter than
// its block, shows: the bound grows with the magnitudes, not with the result). Then:
// - the values compared differ from y by the float32 rounding of znormal: |z_i - y_i| <=
//   2^-23 |y_i| (+ 2^-149 below float32's normal range), so by the triangle inequality in l2,
//   sqrt(D) >= sqrt(D_y) - r with r = 2^-23 ||y||_2 + sqrt(m) 2^-149 (r = 0 without znorm:
//   z_i = t_i), ||y||_2^2 <= alpha^2 (X2 + 2 g X1 + m g^2) + its error above;
// - the direct sum rounds each difference, each square and each addition (all >= 0):
//   D^ >= D (1 - (m + 2)u).
// So D^ >= L^2 (1 - (m + 8)u) with L = sqrt(max(0, E - err)) - r, and a window is dropped
// only when that is over the limit: the windows the filter keeps are summed directly, and
// what is reported is exactly what the search without the filter reports.
//
// The crossover (kEdFftFromLength, uses_fft), measured on this 2-vCPU machine in thread CPU
// time (the machine was shared, load 5-7), one thread, a z-normalized query cut from a random
// walk of 10^6 samples (the bench's), median of 5, direct / FFT in ms:
//   m                          64        128       256       512       1023      2048
//   top-1                      50 / 63   61 / 64   80 / 72   79 / 76   124 / 91  201 / 133
//   under the 10th best        60 / 73   83 / 71   112 / 73  93 / 73   177 / 85  255 / 118
//   top-1, query + noise       78 / 62   108 / 79  151 / 69  111 / 81  151 / 91  212 / 124
// The direct path wins at m 64 unless the query matches nothing closely (then its sums run
// long), and by 5% at m 128 on an exact copy; from m 128 on the filter is otherwise faster,
// and its time does not depend on how soon a good window is found. In short batches (window
// mode in chunks, 3*10^5 samples, threshold the 10th best): m 256 chunks of 64 windows 26 / 32
// ms, of 256 25 / 22;
// m 1023 chunks of 64 79 / 77, of 256 83 / 36, of 1024 78 / 27: hence at least
// max(256, m / 4) windows a call. (docs/benchmarks/results/2026-11-24-ed-vs-mass.md has the
// whole searches against stumpy's MASS.)
#include "cpu/window/window_ed.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "common/window/window_stats.hpp"
#include "cpu/window/sliding_dot.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cpu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = 0x1p-53;
constexpr std::size_t kCheckEvery = 8;  // terms between two tests against the limit

double gamma(std::size_t n) {
  const double nu = static_cast<double>(n) * kU;
  return nu / (1.0 - nu);
}

template <Cost kCost, bool kNorm>
double ed_1d(const common::WindowQuery& q, const common::WindowView& window, double limit) {
  const std::uint32_t* order = q.order.data();
  const float* p = q.ordered.data();
  const double mean = kNorm ? window.mean[0] : 0.0, scale = kNorm ? window.scale[0] : 0.0;
  double sum = 0.0;
  for (std::size_t t = 0; t < q.n; t += kCheckEvery) {
    const std::size_t stop = std::min(t + kCheckEvery, q.n);
    for (std::size_t u = t; u < stop; ++u) {
      const float x = window.raw[order[u]];
      const double z = kNorm ? common::znormal(x, mean, scale) : x;
      const double d = static_cast<double>(p[u]) - z;
      sum += kCost == Cost::sq ? d * d : std::fabs(d);
    }
    if (sum > limit) return sum;
  }
  return sum;
}

// What the FFT filter needs of the query (the pattern as compared, d = 1).
struct QuerySums {
  double q1 = 0.0, q2 = 0.0, err_q1 = 0.0, err_q2 = 0.0;
  explicit QuerySums(std::span<const float> q) {
    double l1 = 0.0;
    for (const float v : q) {
      q1 += v;
      q2 += static_cast<double>(v) * v;
      l1 += std::fabs(static_cast<double>(v));
    }
    err_q1 = gamma(q.size()) * l1;
    err_q2 = gamma(q.size() + 1) * q2;
  }
};

struct Estimate {
  double value, bound;  // E, and the lower bound of the direct sum (header comment)
};

Estimate estimate(const WindowDots& d, std::size_t j, const QuerySums& qs, std::size_t m,
                  double alpha, double beta, bool znorm) {
  const double g = d.centre[j] - beta, ag = std::fabs(g), md = static_cast<double>(m);
  const double var = d.x2[j] + 2.0 * g * d.x1[j] + md * g * g;
  const double value = qs.q2 - 2.0 * alpha * (d.dot[j] + g * qs.q1) + alpha * alpha * var;
  const double var_size = d.x2[j] + 2.0 * ag * std::fabs(d.x1[j]) + md * g * g;
  const double err_var = d.err_x2[j] + 2.0 * ag * d.err_x1[j];
  const double err = 2.0 * alpha * (d.err_dot[j] + ag * qs.err_q1) + alpha * alpha * err_var +
                     qs.err_q2 +
                     16.0 * kU *
                         (qs.q2 + 2.0 * alpha * (std::fabs(d.dot[j]) + ag * std::fabs(qs.q1)) +
                          alpha * alpha * var_size);
  double root = std::sqrt(std::max(0.0, value - err));
  if (znorm) {
    const double y2 = alpha * alpha * (var + err_var + 16.0 * kU * var_size);
    root -= 0x1p-23 * std::sqrt(std::max(0.0, y2)) * (1.0 + 4 * kU) + std::sqrt(md) * 0x1p-149;
  }
  const double bound = root > 0.0 ? root * root * (1.0 - static_cast<double>(m + 8) * kU) : 0.0;
  return {value, bound};
}

bool uses_fft(Options::EdFft mode, const common::WindowQuery& q, std::size_t count,
              std::size_t span) {
  if (mode == Options::EdFft::never || q.cost != Cost::sq || q.dims != 1) return false;
  if (mode == Options::EdFft::always) return true;
  // Windows ending every hop-th sample: the FFT computes every one in between. A few windows
  // (a daemon's short batches) do not pay for their transforms (header comment).
  return q.n >= kEdFftFromLength && count >= std::max<std::size_t>(256, q.n / 4) &&
         span <= 4 * count;
}

}  // namespace

double ed_window(const common::WindowQuery& q, const common::WindowView& window, double limit) {
  if (q.dims == 1) {
    const bool sq = q.cost == Cost::sq;
    if (window.mean)
      return sq ? ed_1d<Cost::sq, true>(q, window, limit)
                : ed_1d<Cost::abs, true>(q, window, limit);
    return sq ? ed_1d<Cost::sq, false>(q, window, limit)
              : ed_1d<Cost::abs, false>(q, window, limit);
  }
  const std::size_t dims = q.dims;
  double sum = 0.0;
  for (std::size_t t = 0; t < q.n; t += kCheckEvery) {
    const std::size_t stop = std::min(t + kCheckEvery, q.n);
    for (std::size_t u = t; u < stop; ++u)
      for (std::size_t k = 0; k < dims; ++k) {
        const double d = static_cast<double>(q.ordered[u * dims + k]) - window.at(q.order[u], k);
        sum += q.cost == Cost::sq ? d * d : std::fabs(d);
      }
    if (sum > limit) return sum;
  }
  return sum;
}

void compute_ed_windows(const WindowSource& source, std::span<const std::uint64_t> ends,
                        std::size_t first, std::size_t count, WindowLimit& limiter,
                        double* distances, std::uint8_t* flat, WorkerScratch& s,
                        std::array<std::uint64_t, kPruneStages>& pruned) {
  if (count == 0) return;
  const common::WindowTrack& track = *source.track;
  const PatternDef& pattern = track.pattern();
  const std::size_t m = pattern.length(), dims = pattern.dims;
  WW_ASSERT(track.window() == m, "ed: a window of other than the pattern's length");
  const kernels::StreamHistory& history = *source.history;
  const bool prune = source.query != nullptr, znorm = track.znorm();
  std::optional<common::WindowQuery> own;  // without pruning: the same order, so the same sums
  if (!prune) own.emplace(pattern);
  const common::WindowQuery& q = prune ? *source.query : *own;

  // Every window's moments first, in order (each slides from the one before).
  if (znorm) {
    s.ed_mean.resize(count * dims);
    s.ed_scale.resize(count * dims);
    common::WindowStats stats(m, dims, track.first_end());
    for (std::size_t i = 0; i < count; ++i) {
      const common::WindowMoments& moments = stats.at(history, ends[first + i]);
      if (moments.flat) flat[first + i] = 1;
      std::copy(moments.mean.begin(), moments.mean.end(), s.ed_mean.begin() + i * dims);
      std::copy(moments.scale.begin(), moments.scale.end(), s.ed_scale.begin() + i * dims);
    }
  }

  const std::uint64_t first_end = ends[first];
  const std::size_t span = ends[first + count - 1] - first_end + 1;
  const bool fft = prune && uses_fft(source.ed_fft, q, count, span);
  std::size_t lead = count;  // summed first: the least estimate (tightens a top-K bound)
  if (fft) {
    sliding_dots(track.values(), history.sample(first_end + 1 - m), span, s.ed_dots, s.ed_fft);
    const QuerySums sums(track.values());
    s.ed_bound.resize(count);
    double least = kInf;
    for (std::size_t i = 0; i < count; ++i) {
      if (flat[first + i]) continue;
      const Estimate e = estimate(s.ed_dots, ends[first + i] - first_end, sums, m,
                                  znorm ? s.ed_scale[i] : 1.0, znorm ? s.ed_mean[i] : 0.0, znorm);
      s.ed_bound[i] = e.bound;
      if (e.value < least) {
        least = e.value;
        lead = i;
      }
    }
  }

  const auto visit = [&](std::size_t i) {
    const std::size_t index = first + i;
    if (flat[index]) return;
    const double limit = prune ? limiter.limit() : kInf;
    if (fft && s.ed_bound[i] > limit) {
      distances[index] = kInf;
      ++pruned[4];
      return;
    }
    const common::WindowView view{history.sample(ends[index] + 1 - m),
                                  znorm ? s.ed_mean.data() + i * dims : nullptr,
                                  znorm ? s.ed_scale.data() + i * dims : nullptr, dims};
    const double d = ed_window(q, view, limit);
    if (d > limit) {  // given up, or over the limit at its last term: cannot qualify
      distances[index] = kInf;
      ++pruned[3];
      return;
    }
    distances[index] = d;
    limiter.aligned(index, d);
  };
  if (lead < count) visit(lead);
  for (std::size_t i = 0; i < count; ++i)
    if (i != lead) visit(i);
}

}  // namespace warpwatch::kernels::cpu
