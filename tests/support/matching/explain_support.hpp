// The checks of docs/spec.md §7's explanations against a backend's events (tests/daemon/explain/,
// tests/kernels/cuda/test_explain_cuda.cpp): every event of dtw or dk explained from the
// stream's samples, its path's total the event's float32 distance bit for bit, its ends,
// moves, band and costs recomputed here from the samples.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "warpwatch/explain/explain.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::testing {

inline std::uint32_t float_bits(double float_value) {
  return std::bit_cast<std::uint32_t>(static_cast<float>(float_value));
}

// The events of one pattern over one stream on a backend, fed in random chunks and flushed.
inline std::vector<kernels::RawMatch> backend_events(kernels::Backend backend, const StreamData& s,
                                                     const kernels::PatternDef& p,
                                                     std::mt19937_64& rng) {
  auto matcher = kernels::make_matcher(backend);
  matcher->add_pattern(p);
  matcher->add_stream(s.def());
  return feed(*matcher, {s}, Partition::random_sizes, rng);
}

// The q-quantile of a pattern's finite profile (docs/spec.md §3.3) over the stream: a
// threshold that lets about that share of the places through.
inline double profile_quantile(const StreamData& s, const kernels::PatternDef& p, double q) {
  const kernels::TopWindowsRequest request{s.def(), s.values, s.ts, p, false, 0, nullptr};
  std::vector<double> d;
  for (const auto& point : kernels::reference::profile(request))
    if (std::isfinite(point.distance)) d.push_back(point.distance);
  if (d.empty()) return 0.0;
  std::sort(d.begin(), d.end());
  return d[std::min(d.size() - 1, static_cast<std::size_t>(q * static_cast<double>(d.size())))];
}

// Each event of a dtw or dk pattern explained and held to docs/spec.md §7: kind "path", the
// total the event's float32 distance bit for bit, the ends (start, 1) and (end, m), every move
// (1,0), (0,1) or (1,1) and inside the band, and every step's cost recomputed here from the
// samples and accumulated in path order (a sum for dtw, a max for dk) giving the total, in one
// of `arithmetics` (kernels::reference::Arithmetic: what the backend may have computed the
// event's cells in). Returns the events checked.
inline std::size_t expect_paths_explain(
    const std::vector<kernels::RawMatch>& events, const StreamData& s, const kernels::PatternDef& p,
    const std::string& backend, const std::vector<kernels::reference::Arithmetic>& arithmetics,
    const std::string& what) {
  using kernels::reference::Arithmetic;
  const std::size_t dims = p.dims, m = p.length();
  const bool window = p.params.mode == kernels::Mode::window;
  const bool dtw = p.params.distance.metric == kernels::Metric::dtw;
  const bool sq = p.params.distance.cost == kernels::Cost::sq;
  std::vector<float> rows = p.values;
  if (window && p.params.normalize == kernels::Normalize::znorm) znormalize(rows, dims);
  for (const kernels::RawMatch& ev : events) {
    explain::Context context;
    context.backend = backend;
    context.distance = ev.distance;
    const explain::Explanation e =
        explain::explain(p, s.values, 0, ev.start_index, ev.end_index, context);
    const std::string at = what + " event " + describe(ev);
    EXPECT_EQ(e.kind, "path") << at << ": " << e.note;
    if (e.kind != "path" || e.steps.empty()) continue;
    EXPECT_EQ(float_bits(e.total), float_bits(ev.distance))
        << at << ": total " << e.total << " note " << e.note;
    EXPECT_EQ(e.steps.front().stream_index, ev.start_index) << at;
    EXPECT_EQ(e.steps.front().pattern_row, 1u) << at;
    EXPECT_EQ(e.steps.back().stream_index, ev.end_index) << at;
    EXPECT_EQ(e.steps.back().pattern_row, m) << at;
    // The window (or segment) as compared, to recompute each step's cost.
    std::vector<float> x(s.values.begin() + static_cast<std::ptrdiff_t>(ev.start_index * dims),
                         s.values.begin() + static_cast<std::ptrdiff_t>((ev.end_index + 1) * dims));
    if (window && p.params.normalize == kernels::Normalize::znorm) znormalize(x, dims);
    const std::size_t w = ev.end_index - ev.start_index + 1;
    bool moves_ok = true, band_ok = true, one_agrees = false;
    for (const Arithmetic arithmetic : arithmetics) {
      const bool f64 = arithmetic == Arithmetic::float64;
      const bool fma = arithmetic == Arithmetic::float32_fma && dtw && sq && dims == 1;
      float total32 = 0;
      double total64 = 0;
      bool costs_ok = true;
      for (std::size_t k = 0; k < e.steps.size(); ++k) {
        const explain::Step& step = e.steps[k];
        if (k > 0) {
          const std::uint64_t di = step.stream_index - e.steps[k - 1].stream_index;
          const std::uint32_t dr = step.pattern_row - e.steps[k - 1].pattern_row;
          moves_ok &= (di == 0 || di == 1) && (dr == 0 || dr == 1) && di + dr > 0;
        }
        const std::size_t j = step.stream_index - ev.start_index, r = step.pattern_row - 1;
        float c32 = 0;
        double c64 = 0;
        for (std::size_t c = 0; c < dims; ++c) {
          const float d = x[j * dims + c] - rows[r * dims + c];
          const double d64 = static_cast<double>(x[j * dims + c]) - rows[r * dims + c];
          c32 = c32 + (sq ? d * d : std::fabs(d));
          c64 += sq ? d64 * d64 : std::fabs(d64);
        }
        costs_ok &= std::bit_cast<std::uint32_t>(step.cost) ==
                    std::bit_cast<std::uint32_t>(f64 ? static_cast<float>(c64) : c32);
        if (fma) {
          const float d = x[j] - rows[r];
          total32 = std::fma(d, d, total32);
        } else {
          total32 = dtw ? total32 + step.cost : std::max(total32, step.cost);
        }
        total64 = dtw ? total64 + c64 : std::max(total64, c64);
        if (window && p.params.distance.band)  // docs/spec.md §3.2: |i - j*m/w| <= r
          band_ok &= std::fabs(static_cast<double>(r + 1) -
                               static_cast<double>(j + 1) * static_cast<double>(m) /
                                   static_cast<double>(w)) <= *p.params.distance.band;
      }
      one_agrees |= costs_ok &&
                    float_bits(f64 ? static_cast<float>(total64) : total32) == float_bits(e.total);
    }
    EXPECT_TRUE(moves_ok) << at << ": a step moves by other than (1,0), (0,1) or (1,1)";
    EXPECT_TRUE(band_ok) << at << ": a step outside the band";
    EXPECT_TRUE(one_agrees) << at << ": the steps' local costs accumulated in path order do "
                            << "not give the total in the backend's arithmetic; " << e.note;
  }
  return events.size();
}

}  // namespace warpwatch::testing
