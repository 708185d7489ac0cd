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
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/explain/explain.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::testing {

inline std::uint32_t float_bits(double float_value) {
  return std::bit_cast<std::uint32_t>(static_cast<float>(float_value));
}

// The ways dtw and dk are matched: stream mode, and window mode plain, under znorm, and under
// znorm with a band on a window longer than the pattern (the band's slope is then m / w).
struct ExplainMode {
  const char* name;
  kernels::Mode mode;
  kernels::Normalize normalize;
  std::optional<double> band;
  std::size_t extra_window;  // w = m + this
};
inline const std::vector<ExplainMode>& explain_modes() {
  using kernels::Mode, kernels::Normalize;
  static const std::vector<ExplainMode> modes = {
      {"stream", Mode::stream, Normalize::none, std::nullopt, 0},
      {"window", Mode::window, Normalize::none, std::nullopt, 0},
      {"window znorm", Mode::window, Normalize::znorm, std::nullopt, 0},
      {"window znorm band", Mode::window, Normalize::znorm, 3.0, 4}};
  return modes;
}

// Pattern "p" of `values` (m x dims) matched by `metric` in `mode`, threshold 0.
inline kernels::PatternDef explain_pattern(const std::vector<float>& values, std::size_t dims,
                                           kernels::Metric metric, const ExplainMode& mode) {
  kernels::PatternDef p = base_pattern("p", dims, values, mode.mode, metric, 0.0);
  if (mode.mode == kernels::Mode::window) {
    p.params.normalize = mode.normalize;
    p.params.distance.band = mode.band;
    if (mode.extra_window) p.params.window = values.size() / dims + mode.extra_window;
  }
  return p;
}

// A stream of N(0, 1) with the pattern (m x dims) planted, with noise, every ~1.5 pattern
// lengths: with a high threshold nearly every place matches.
inline StreamData dense_stream(std::mt19937_64& rng, const std::vector<float>& pattern,
                               std::size_t dims, std::size_t copies) {
  const std::size_t m = pattern.size() / dims;
  std::normal_distribution<float> value(0.0f, 1.0f), noise(0.0f, 0.2f);
  std::vector<float> v;
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t i = 0; i < (m / 2) * dims; ++i) v.push_back(value(rng));
    for (const float x : pattern) v.push_back(x + noise(rng));
  }
  return series_of(std::move(v), dims);
}

// ECG200's first 12 rows of the training file laid end to end, and its 13th row (a pattern).
inline std::pair<StreamData, std::vector<float>> ecg200_series() {
  const auto rows = bench::read_ucr_rows(bench::default_data_dir() + "/ECG200_TRAIN.tsv");
  EXPECT_GE(rows.size(), 13u);
  std::vector<float> values;
  for (std::size_t r = 0; r < 12 && r < rows.size(); ++r)
    values.insert(values.end(), rows[r].begin(), rows[r].end());
  return {series_of(std::move(values), 1), rows.size() > 12 ? rows[12] : std::vector<float>{}};
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

// How many events expect_paths_explain checked, how many of them bit for bit, and how many of
// those SPRING's replay explained (crossed by a report made after they began).
struct ExplainedEvents {
  std::size_t events = 0, exact = 0, replayed = 0;
  ExplainedEvents& operator+=(const ExplainedEvents& o) {
    events += o.events;
    exact += o.exact;
    replayed += o.replayed;
    return *this;
  }
};

// Each event of a dtw or dk pattern explained and held to docs/spec.md §7: kind "path", the
// total the event's float32 distance bit for bit, the ends (start, 1) and (end, m), every move
// (1,0), (0,1) or (1,1) and inside the band, and every step's cost recomputed here from the
// samples and accumulated in path order (a sum for dtw, a max for dk) giving the total, in one
// of `arithmetics` (kernels::reference::Arithmetic: what the backend may have computed the
// event's cells in). Each is explained from the samples an event store holds: `before` of
// them before the segment (explain::stream_samples_before in stream mode, where SPRING's
// replay needs them), up to the stream's end after it.
inline ExplainedEvents expect_paths_explain(
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
  ExplainedEvents counted;
  for (std::size_t n = 0; n < events.size(); ++n) {
    const kernels::RawMatch& ev = events[n];
    const std::uint64_t before = window ? 8 : explain::stream_samples_before(m);
    ++counted.events;
    explain::Context context;
    context.backend = backend;
    context.distance = ev.distance;
    const std::uint64_t first = ev.start_index >= before ? ev.start_index - before : 0;
    const std::vector<float> held(s.values.begin() + static_cast<std::ptrdiff_t>(first * dims),
                                  s.values.end());
    const explain::Explanation e =
        explain::explain(p, held, first, ev.start_index, ev.end_index, context);
    const std::string at = what + " event " + describe(ev);
    EXPECT_EQ(e.kind, "path") << at << ": " << e.note;
    if (e.kind != "path" || e.steps.empty()) continue;
    EXPECT_EQ(float_bits(e.total), float_bits(ev.distance))
        << at << ": total " << e.total << " note " << e.note;
    counted.exact += float_bits(e.total) == float_bits(ev.distance);
    counted.replayed += e.note.find("SPRING replayed") != std::string::npos;
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
  return counted;
}

// Every event of dtw and dk in each of explain_modes() over the stream on `backend`
// (Matcher::name() `name`), explained and checked by expect_paths_explain in the arithmetics
// `arithmetics(pattern)` gives; the threshold lets the profile's `share` through (1:
// everything), fed in random chunks. Prints and returns the counts.
template <class Arithmetics>
ExplainedEvents explain_all_events(kernels::Backend backend, const std::string& name,
                                   const Arithmetics& arithmetics, const StreamData& s,
                                   const std::vector<float>& pattern, double share,
                                   std::mt19937_64& rng, const std::string& what) {
  ExplainedEvents checked;
  for (const kernels::Metric metric : {kernels::Metric::dtw, kernels::Metric::dk})
    for (const ExplainMode& mode : explain_modes()) {
      kernels::PatternDef p = explain_pattern(pattern, s.dims, metric, mode);
      p.params.threshold = share >= 1.0 ? 1e30 : profile_quantile(s, p, share);
      const auto events = backend_events(backend, s, p, rng);
      const std::string at =
          what + " " + std::string(kernels::to_string(metric)) + " " + mode.name + " " + name;
      EXPECT_FALSE(events.empty()) << at;
      checked += expect_paths_explain(events, s, p, name, arithmetics(p), at);
    }
  std::cout << "[ explain  ] " << what << " " << name << ": " << checked.events << " events, "
            << checked.exact << " bit for bit, " << checked.replayed
            << " of them by SPRING's replay (crossed by a later report)\n";
  return checked;
}

}  // namespace warpwatch::testing
