// Conformance suite, internal (overview: conformance.hpp): the inputs of the matcher scenarios,
// random walks with planted noisy copies of the patterns, and pattern makers.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Inputs: random walks with planted noisy copies of the patterns.

// How a stream's timestamps are drawn: the first within a second after kEpochNs, each next
// one step_min_ns..step_max_ns after the previous.
struct TimeShape {
  std::int64_t period_ns = kSecond;  // StreamDef::nominal_period_ns
  std::int64_t step_min_ns = kSecond / 2;
  std::int64_t step_max_ns = 3 * kSecond / 2;
};

// A copy of `values` (m x dims) to write into a stream from sample `at` on.
struct Plant {
  const std::vector<float>* values;
  std::size_t at;
};

// Non-overlapping random positions for copies of the given lengths in `length` samples, in
// the order given.
inline std::vector<std::size_t> random_positions(std::mt19937_64& rng, std::size_t length,
                                                 const std::vector<std::size_t>& lengths) {
  std::size_t total = 0;
  for (std::size_t l : lengths) total += l;
  if (total > length) {
    ADD_FAILURE() << "test setup: copies of " << total << " samples do not fit in " << length;
    return {};
  }
  std::uniform_int_distribution<std::size_t> cut(0, length - total);
  std::vector<std::size_t> cuts(lengths.size());
  for (auto& c : cuts) c = cut(rng);
  std::sort(cuts.begin(), cuts.end());
  std::vector<std::size_t> out;
  std::size_t before = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    out.push_back(cuts[i] + before);
    before += lengths[i];
  }
  return out;
}

// A random walk of `length` samples with noisy copies (noise N(0, noise) per component) of
// the plants written at their positions; the walk goes on from each copy's last sample.
inline StreamData walk_stream(std::mt19937_64& rng, const std::string& id, std::size_t dims,
                              std::size_t length, std::vector<Plant> plants, float noise,
                              const TimeShape& time = {}, float step = 0.3f) {
  std::sort(plants.begin(), plants.end(),
            [](const Plant& a, const Plant& b) { return a.at < b.at; });
  StreamData s;
  s.id = id;
  s.dims = dims;
  s.period_ns = time.period_ns;
  s.values.resize(length * dims);
  std::normal_distribution<float> start(0.0f, 1.0f), delta(0.0f, step),
      jitter(0.0f, noise > 0 ? noise : 1.0f);
  std::vector<float> x(dims);
  for (auto& v : x) v = start(rng);
  std::size_t next = 0;
  for (std::size_t i = 0; i < length;) {
    if (next < plants.size() && plants[next].at <= i) {
      const std::vector<float>& pv = *plants[next].values;
      const std::size_t m = pv.size() / dims;
      if (plants[next].at < i || i + m > length) {
        ADD_FAILURE() << "test setup: a copy at " << plants[next].at << " of " << m
                      << " samples overlaps another or the end of stream " << id;
        ++next;
        continue;
      }
      for (std::size_t j = 0; j < m; ++j)
        for (std::size_t k = 0; k < dims; ++k)
          s.values[(i + j) * dims + k] = x[k] = pv[j * dims + k] + (noise > 0 ? jitter(rng) : 0.0f);
      i += m;
      ++next;
      continue;
    }
    for (std::size_t k = 0; k < dims; ++k) {
      if (i > 0) x[k] += delta(rng);
      s.values[i * dims + k] = x[k];
    }
    ++i;
  }
  std::uniform_int_distribution<std::int64_t> first(0, kSecond - 1),
      gap(time.step_min_ns, time.step_max_ns);
  std::int64_t t = kEpochNs + first(rng);
  for (std::size_t i = 0; i < length; ++i) {
    s.ts.push_back(t);
    t += gap(rng);
  }
  return s;
}

inline PatternDef stream_pattern(const std::string& id, std::size_t dims, std::vector<float> values,
                                 Metric metric, Cost cost, double threshold) {
  PatternDef p = base_pattern(id, dims, std::move(values), Mode::stream, metric, threshold);
  p.params.distance.cost = cost;
  return p;
}

inline PatternDef window_pattern(const std::string& id, std::size_t dims, std::vector<float> values,
                                 Metric metric, std::size_t window = 0, std::size_t hop = 1,
                                 Normalize normalize = Normalize::none) {
  PatternDef p = base_pattern(id, dims, std::move(values), Mode::window, metric, 0.0);
  p.params.window = window;
  p.params.hop = hop;
  p.params.normalize = normalize;
  return p;
}

// The cost of aligning `p` with the stream's samples at..at+m-1 along the diagonal (docs/spec.md
// 2; dtw: the sum, dk: the largest), in double: an upper bound of the pattern's distance to
// that subsequence, so a threshold a little above it makes the planted copy match.
inline double diagonal_cost(const PatternDef& p, const StreamData& s, std::size_t at) {
  double total = 0.0;
  for (std::size_t i = 0; i < p.length(); ++i) {
    double c = 0.0;
    for (std::size_t k = 0; k < p.dims; ++k) {
      const double diff = static_cast<double>(s.values[(at + i) * s.dims + k]) -
                          static_cast<double>(p.values[i * p.dims + k]);
      c += p.params.distance.cost == Cost::sq ? diff * diff : std::abs(diff);
    }
    total = p.params.distance.metric == Metric::dtw ? total + c : std::max(total, c);
  }
  return total;
}

// Series of random lengths in [1, max_length] (also exactly 1 and max_length), values from
// random walks; with times (seconds from `origin`, steps 0.2..2 s) when asked.
inline std::vector<Series> random_series(std::mt19937_64& rng, std::size_t count, std::size_t dims,
                                         std::size_t max_length, bool with_times,
                                         double origin = 0.0) {
  std::uniform_int_distribution<std::size_t> length(1, max_length);
  std::uniform_real_distribution<double> step(0.2, 2.0), start(0.0, 5.0);
  std::vector<Series> out;
  for (std::size_t i = 0; i < count; ++i) {
    Series s;
    s.dims = dims;
    const std::size_t n = i == 0 ? max_length : i == 1 ? 1 : length(rng);
    s.values = random_walk(rng, n, dims, 0.5f);
    if (with_times) {
      double t = origin + start(rng);
      for (std::size_t j = 0; j < n; ++j) {
        s.times.push_back(t);
        t += step(rng);
      }
    }
    out.push_back(std::move(s));
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace warpwatch::testing::conformance
