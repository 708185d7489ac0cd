// The fast forms of window mode's bounds (kernels/common/window/window_bounds.hpp,
// kernels/cpu/window_bounds_simd.hpp): the SIMD LB_Keogh sums against the scalar ones, the
// window's envelope read from a stretch's against the window's own (the same bound, the
// same rows' rests bit for bit), both never above the exact distance, on random walks far
// from zero and on ECG beats, d 1 and 3, with and without znorm, dtw and dk, sq and abs,
// bands of radius 0 to half the window; the stretch's envelope against streaming extremes;
// the band's rows against its predicate, cell by cell.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_grouping.hpp"
#include "common/window/window_stats.hpp"
#include "conformance/inputs.hpp"
#include "cpu/window/window_bounds_simd.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "window_test_series.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::ecg_values;
using warpwatch::testing::history_of;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;
namespace common = warpwatch::kernels::common;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Equal up to the rounding of double sums taken in another order.
bool near(double a, double b) {
  if (a == b) return true;
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

const char* name(common::KeoghNormalize n) {
  switch (n) {
    case common::KeoghNormalize::none:
      return "none";
    case common::KeoghNormalize::values:
      return "values";
    case common::KeoghNormalize::envelope:
      return "envelope";
  }
  return "?";
}

}  // namespace

// Random terms of every length around the lane counts, each normalization, in order and
// through a visiting order: dk (a max, exact whatever the order) equal bit for bit, so
// every term is the scalar term; dtw within the rounding of the sums; and with a cut,
// abandoned exactly when the sum is over it.
TEST(KeoghTermsSimd, MatchTheScalarSums) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<float> value(0.0f, 3.0f);
  std::uniform_real_distribution<float> width(0.0f, 2.0f), offset(-50.0f, 50.0f);
  std::uniform_real_distribution<double> scale_of(0.05, 4.0), fraction(0.0, 1.3);
  std::uniform_int_distribution<int> length(0, 80), pick(0, 1), norm_of(0, 2);
  std::size_t abandoned = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const auto count = static_cast<std::size_t>(length(rng));
    const float shift = offset(rng);
    std::vector<float> values(count), lo(count), hi(count);
    for (std::size_t u = 0; u < count; ++u) {
      values[u] = shift + value(rng);
      lo[u] = shift + value(rng);
      hi[u] = lo[u] + width(rng);
    }
    std::vector<std::uint32_t> order(count);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), rng);
    common::KeoghTerms t{.values = values.data(),
                         .order = pick(rng) ? order.data() : nullptr,
                         .lo = lo.data(),
                         .hi = hi.data(),
                         .count = count,
                         .normalize = static_cast<common::KeoghNormalize>(norm_of(rng)),
                         .mean = shift + value(rng),
                         .scale = scale_of(rng)};
    if (t.normalize != common::KeoghNormalize::none) {  // values near the normalized scale
      for (auto* v : {&values, &lo, &hi})
        for (auto& x : *v) x = static_cast<float>(t.mean + (x - shift) / t.scale);
    }
    const auto metric = pick(rng) ? kernels::Metric::dtw : kernels::Metric::dk;
    const auto cost = pick(rng) ? kernels::Cost::sq : kernels::Cost::abs;
    const double scalar = common::keogh_terms(t, metric, cost, kInf);
    const double simd = kernels::cpu::keogh_terms_simd(t, metric, cost, kInf);
    const auto desc = [&] {
      return cat("trial ", trial, " count ", count, " ", kernels::to_string(metric),
                 t.order ? " ordered" : "", " normalize ", name(t.normalize), ": scalar ", scalar,
                 " simd ", simd);
    };
    if (metric == kernels::Metric::dk) {
      ASSERT_EQ(simd, scalar) << desc();
    } else {
      ASSERT_TRUE(near(simd, scalar)) << desc();
    }
    const double cut = scalar * fraction(rng);
    const double cut_sum = kernels::cpu::keogh_terms_simd(t, metric, cost, cut);
    if (scalar > cut * (1.0 + 1e-9)) {
      EXPECT_GT(cut_sum, cut) << desc() << ", cut " << cut;
      abandoned += cut_sum < simd;
    } else if (scalar < cut * (1.0 - 1e-9)) {
      EXPECT_EQ(cut_sum, simd) << desc() << ", cut " << cut;
    }
    EXPECT_LE(cut_sum, simd) << desc() << ", cut " << cut;  // a part of the sum, never more
  }
  EXPECT_GT(abandoned, 100u) << "the cut never abandoned a sum early";
}

// The stretch's envelope (blocks of 2 radius + 1) against Lemire's streaming extremes over
// the same clipped spans, for lengths below and above a block, d 1 and 3.
TEST(StretchEnvelope, MatchesTheStreamingExtremes) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> length(1, 300), radius_of(0, 40), dims_of(1, 3);
  for (int trial = 0; trial < 500; ++trial) {
    const auto count = static_cast<std::size_t>(length(rng));
    const auto radius = static_cast<std::size_t>(radius_of(rng));
    const auto dims = static_cast<std::size_t>(dims_of(rng));
    std::vector<float> values = random_walk(rng, count, dims, 1.0f);
    if (trial % 4 == 0)
      for (auto& v : values) v = std::round(v);  // ties
    std::vector<std::int32_t> from(count + 1), to(count + 1);
    for (std::size_t o = 1; o <= count; ++o) {
      from[o] = static_cast<std::int32_t>(o > radius ? o - radius : 1);
      to[o] = static_cast<std::int32_t>(std::min(count, o + radius));
    }
    std::vector<float> lo(count * dims), hi(count * dims);
    common::sliding_envelope(values.data(), dims, count, from.data(), to.data(), lo.data(),
                             hi.data());
    common::StretchEnvelope stretch;
    stretch.build(values.data(), count, dims, radius, 7);
    ASSERT_EQ(stretch.lo, lo) << "trial " << trial << " length " << count << " radius " << radius
                              << " dims " << dims;
    ASSERT_EQ(stretch.hi, hi) << "trial " << trial << " length " << count << " radius " << radius
                              << " dims " << dims;
    EXPECT_EQ(stretch.lo_at(7), stretch.lo.data());
  }
}

// Every window of a series against a pattern cut from it (noisy): LB_Keogh on the window's
// envelope from a stretch that starts before the windows, against lb_keogh_window on the
// window as compared (the same bound; the rows' rests bit for bit), its SIMD form (d 1:
// the rows between the edges in SIMD, then the edges), and LB_Keogh on the pattern's
// envelope in SIMD column order against the scalar one; every window's bounds at or under
// its reference distance (no prune at a limit of the distance itself).
TEST(WindowBounds, StretchEnvelopeGivesTheWindowsOwnBound) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> length(6, 90), pick(0, 1);
  std::uniform_real_distribution<double> frac(0.0, 0.99);
  std::normal_distribution<float> noise(0.0f, 0.2f);
  std::size_t windows = 0, positive = 0, distances = 0;
  int trial = 0;
  for (const std::size_t dims : {1u, 3u})
    for (const bool ecg : {false, true})
      for (int shape = 0; shape < 24; ++shape, ++trial) {
        const auto m = static_cast<std::size_t>(length(rng));
        const std::size_t n = 5 * m + 40;
        std::vector<float> series =
            ecg ? ecg_values(n, dims, m, seed + static_cast<std::uint64_t>(trial))
                : random_walk(rng, n, dims, 1.0f);
        if (!ecg)
          for (auto& v : series) v += 500.0f;  // far from zero
        std::uniform_int_distribution<std::size_t> at(0, n - m);
        const std::size_t from = at(rng);
        std::vector<float> pattern(series.begin() + static_cast<std::ptrdiff_t>(from * dims),
                                   series.begin() + static_cast<std::ptrdiff_t>((from + m) * dims));
        for (auto& v : pattern) v += noise(rng);
        const bool znorm = shape % 2 == 0;
        kernels::PatternDef p = window_pattern(
            "p", dims, pattern, shape % 4 < 2 ? kernels::Metric::dtw : kernels::Metric::dk, m, 1,
            znorm ? kernels::Normalize::znorm : kernels::Normalize::none);
        p.params.distance.cost = shape % 8 < 4 ? kernels::Cost::sq : kernels::Cost::abs;
        // Radius 0, 1, 5% of m, up to m / 2; a fractional band rounds down.
        const double radius = shape % 6 == 0   ? 0.0
                              : shape % 6 == 1 ? 1.0
                              : shape % 6 == 2 ? std::floor(0.05 * static_cast<double>(m))
                                               : std::floor(frac(rng) * static_cast<double>(m / 2));
        p.params.distance.band = radius + (pick(rng) ? 0.0 : 0.5);
        std::vector<float> compared = p.values;
        if (znorm && !common::znormalize(compared, dims)) continue;
        const common::WindowQuery q(p);
        const auto desc = [&](std::uint64_t e) {
          return cat("trial ", trial, " dims ", dims, ecg ? " ecg" : " walk", " m ", m, " ",
                     kernels::to_string(p.params.distance.metric),
                     p.params.distance.cost == kernels::Cost::sq ? " sq" : " abs",
                     znorm ? " znorm" : "", " band ", *p.params.distance.band, " window end ", e);
        };
        ASSERT_EQ(q.radius, static_cast<std::int64_t>(radius)) << desc(0);
        // The stretch: the samples from `first` on (the windows ending from first + m - 1).
        const std::uint64_t first = at(rng) / 2;
        const auto history = history_of(series, dims);
        common::StretchEnvelope stretch;
        stretch.build(history.sample(first), n - first, dims, static_cast<std::size_t>(radius),
                      first);
        common::WindowStats stats(m, dims, first + m - 1);
        std::vector<float> window(m * dims), lo, hi, lo2, hi2;
        std::vector<double> rest, rest2;
        for (std::uint64_t e = first + m - 1; e < n; ++e) {
          const std::uint64_t start = e + 1 - m;
          common::WindowView view{history.sample(start), nullptr, nullptr, dims};
          if (znorm) {
            const common::WindowMoments& moments = stats.at(history, e);
            if (moments.flat) continue;
            view.mean = moments.mean.data();
            view.scale = moments.scale.data();
          }
          view.write(m, window.data());
          ++windows;
          const double own = common::lb_keogh_window(q, window.data(), rest, lo, hi);
          const double from_stretch =
              common::lb_keogh_stretch(q, stretch, start, view, kInf, lo2, hi2);
          ASSERT_TRUE(near(from_stretch, own)) << desc(e) << ": " << from_stretch << " vs " << own;
          std::vector<float> env_lo(m * dims), env_hi(m * dims);
          common::window_envelope(q, stretch, start, view, env_lo.data(), env_hi.data());
          common::keogh_rows(q, env_lo.data(), env_hi.data(), view, rest2);
          ASSERT_EQ(rest2, rest) << desc(e);
          positive += own > 0;
          std::vector<double> bounds{from_stretch};
          if (dims == 1) {
            const double middle = kernels::cpu::keogh_terms_simd(
                common::middle_terms(q, stretch, start, view), q.metric, q.cost, kInf);
            common::edge_envelope(q, view.raw, env_lo.data(), env_hi.data());
            const double simd =
                q.combine(middle, common::edge_terms(q, env_lo.data(), env_hi.data(), view));
            ASSERT_TRUE(near(simd, own)) << desc(e) << ": SIMD " << simd << " vs " << own;
            const double pattern_simd = kernels::cpu::keogh_terms_simd(
                common::pattern_terms(q, view, false), q.metric, q.cost, kInf);
            const double pattern_scalar = common::lb_keogh_pattern(q, view, kInf);
            ASSERT_TRUE(near(pattern_simd, pattern_scalar))
                << desc(e) << ": pattern's envelope, SIMD " << pattern_simd << " vs "
                << pattern_scalar;
            bounds.push_back(simd);
            bounds.push_back(pattern_simd);
          }
          if (e % 5 != 0) continue;
          const double d =
              kernels::reference::distance({compared.data(), m, dims, nullptr},
                                           {window.data(), m, dims, nullptr}, p.params.distance);
          ++distances;
          for (const double b : bounds) {
            EXPECT_FALSE(q.prunes(b, d)) << desc(e) << ": bound " << b << ", distance " << d;
          }
        }
      }
  EXPECT_GT(distances, 500u);
  EXPECT_GT(positive, windows / 2) << "the bounds are mostly 0: they test nothing";
}

// Every row against the predicate itself, cell by cell (the reference's band): the columns
// it allows form one interval, which band_ranges gives (lo > hi when there are none). Sides
// from 1 to 200, bands from 0 (rows often empty) past the longer side, whole and
// fractional, and the bench's shapes.
TEST(BandRanges, AreThePredicatesIntervals) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> side(1, 200), pick(0, 3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<std::tuple<std::size_t, std::size_t, double>> shapes{
      {255, 255, 12.75}, {1023, 1023, 51.15}, {128, 128, 6.4}, {48, 56, 2.8}, {1, 1, 0.0}};
  for (int trial = 0; trial < 800; ++trial) {
    const auto n = static_cast<std::size_t>(side(rng));
    const auto m = pick(rng) == 0 ? n : static_cast<std::size_t>(side(rng));
    const double longer = static_cast<double>(std::max(n, m));
    const int kind = pick(rng);
    const double band = kind == 0   ? 0.0
                        : kind == 1 ? std::floor(unit(rng) * longer)
                        : kind == 2 ? unit(rng) * 3.0
                                    : unit(rng) * 1.2 * longer;
    shapes.emplace_back(n, m, band);
  }
  std::vector<std::int32_t> lo, hi;
  for (const auto& [n, m, band] : shapes) {
    common::band_ranges(n, m, band, lo, hi);
    for (std::size_t i = 1; i <= n; ++i) {
      std::int64_t first = 0, last = -1, count = 0;
      for (std::size_t j = 1; j <= m; ++j) {
        const double centre =
            static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
        if (std::fabs(static_cast<double>(i) - centre) > band) continue;
        if (count++ == 0) first = static_cast<std::int64_t>(j);
        last = static_cast<std::int64_t>(j);
      }
      const auto desc = [&] { return cat("n ", n, " m ", m, " band ", band, " row ", i); };
      ASSERT_EQ(count, count == 0 ? 0 : last - first + 1) << desc() << ": not one interval";
      if (count == 0) {
        ASSERT_GT(lo[i], hi[i]) << desc();
      } else {
        ASSERT_EQ(lo[i], first) << desc();
        ASSERT_EQ(hi[i], last) << desc();
      }
    }
  }
}
