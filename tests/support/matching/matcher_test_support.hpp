// Helpers shared by the Matcher suites (test_reference_stream.cpp, test_reference_window.cpp):
// printing and ordering matches, comparing match lists, test streams and feeding them.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::testing {

// A match as a test expects it: what RawMatch's operator== compares (the stream and pattern
// ids and the numbers), its definitions carrying only the ids.
inline kernels::RawMatch raw_match(std::string stream_id, std::string pattern_id, double distance,
                                   std::uint64_t start_index, std::uint64_t end_index,
                                   std::int64_t start_ns, std::int64_t end_ns) {
  kernels::StreamDef stream;
  stream.id = std::move(stream_id);
  kernels::PatternDef pattern;
  pattern.id = std::move(pattern_id);
  return kernels::RawMatch{stream::make_stream(std::move(stream)),
                           kernels::make_pattern(std::move(pattern)),
                           distance,
                           start_index,
                           end_index,
                           start_ns,
                           end_ns};
}

// One match for failure messages; 17 digits so that distances that differ in the last
// bit (the suites compare them exactly) print differently.
inline std::string describe(const kernels::RawMatch& m) {
  std::ostringstream os;
  os.precision(17);
  os << "{" << m.stream_id() << "/" << m.pattern_id() << " [" << m.start_index << "," << m.end_index
     << "] ns [" << m.start_ns << "," << m.end_ns << "] d=" << m.distance << "}";
  return os.str();
}

inline std::string describe(const std::vector<kernels::RawMatch>& ms) {
  std::string s;
  for (const auto& m : ms) s += describe(m) + "\n";
  return s;
}

// The order Matcher::process and flush promise: stream, then pattern, then end index.
inline bool match_less(const kernels::RawMatch& a, const kernels::RawMatch& b) {
  return std::tie(a.stream_id(), a.pattern_id(), a.end_index) <
         std::tie(b.stream_id(), b.pattern_id(), b.end_index);
}

// Matches gathered from several calls (or a simulation run pair by pair) in that order, to
// compare them with ==; stable so that the order within one pair is kept.
inline std::vector<kernels::RawMatch> sorted(std::vector<kernels::RawMatch> v) {
  std::stable_sort(v.begin(), v.end(), match_less);
  return v;
}

// Whether two matches are the same: every field equal, the distance within `rel` of the
// wanted one relative to max(1, |want|), or, with rel = 0, exactly (==, bit-identical).
inline bool same_match(const kernels::RawMatch& got, const kernels::RawMatch& want,
                       double rel = 0.0) {
  if (rel == 0) return got == want;
  return got.stream_id() == want.stream_id() && got.pattern_id() == want.pattern_id() &&
         got.start_index == want.start_index && got.end_index == want.end_index &&
         got.start_ns == want.start_ns && got.end_ns == want.end_ns &&
         std::abs(got.distance - want.distance) <= rel * std::max(1.0, std::abs(want.distance));
}

// The same matches in the same order (see same_match for `rel`). A failure names the first
// differing match, or lists both sides when one is a prefix of the other.
inline void expect_same_matches(const std::vector<kernels::RawMatch>& got,
                                const std::vector<kernels::RawMatch>& want, const std::string& what,
                                double rel = 0.0) {
  EXPECT_EQ(got.size(), want.size()) << what;
  const std::size_t n = std::min(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (!same_match(got[i], want[i], rel)) {
      ADD_FAILURE() << what << ": first difference at match " << i << ": got " << describe(got[i])
                    << ", want " << describe(want[i]);
      return;
    }
  }
  if (got.size() != want.size())
    ADD_FAILURE() << what << ":\n got:\n" << describe(got) << " want:\n" << describe(want);
}

// A whole test stream, kept so that it can be fed in any partition and compared with a
// simulation that reads it directly.
struct StreamData {
  std::string id;
  std::size_t dims = 1;
  std::int64_t period_ns = 1'000'000'000;
  std::vector<float> values;  // length x dims, row-major
  std::vector<std::int64_t> ts;
  std::size_t length() const { return ts.size(); }
  kernels::StreamDef def() const { return kernels::StreamDef{id, dims, period_ns}; }
  // Samples [begin, end) as a chunk that refers to this stream's storage.
  kernels::StreamChunk chunk(std::size_t begin, std::size_t end) const {
    return kernels::StreamChunk{
        id, std::span<const float>(values.data() + begin * dims, (end - begin) * dims),
        std::span<const std::int64_t>(ts.data() + begin, end - begin)};
  }
};

// The fields every test pattern sets; each suite adds those of its mode (cost, window, ...).
inline kernels::PatternDef base_pattern(const std::string& id, std::size_t dims,
                                        std::vector<float> values, kernels::Mode mode,
                                        kernels::Metric metric, double threshold) {
  kernels::PatternDef p;
  p.id = id;
  p.dims = dims;
  p.values = std::move(values);
  p.params.mode = mode;
  p.params.distance.metric = metric;
  p.params.threshold = threshold;
  return p;
}

// A stream written out by hand (`values` is length x dims), its samples 10 ns apart from
// first_ns on.
inline StreamData hand_stream(std::vector<float> values, std::int64_t first_ns,
                              std::size_t dims = 1) {
  StreamData s;
  s.id = "s";
  s.dims = dims;
  s.values = std::move(values);
  for (std::size_t i = 0; i < s.values.size() / dims; ++i)
    s.ts.push_back(first_ns + 10 * static_cast<std::int64_t>(i));
  return s;
}

// A stream "s" holding `values` (samples x dims), its samples one nominal period apart from 0.
inline StreamData series_of(std::vector<float> values, std::size_t dims) {
  StreamData s;
  s.id = "s";
  s.dims = dims;
  s.values = std::move(values);
  for (std::size_t i = 0; i < s.values.size() / dims; ++i)
    s.ts.push_back(static_cast<std::int64_t>(i) * s.period_ns);
  return s;
}

// The match of `pattern` on samples [start, end] of `s`, with their timestamps.
inline kernels::RawMatch expected(const StreamData& s, const std::string& pattern, double d,
                                  std::uint64_t start, std::uint64_t end) {
  return raw_match(s.id, pattern, d, start, end, s.ts[start], s.ts[end]);
}

// `count` draws from N(0, 1): pattern values, or values to plant in a stream.
inline std::vector<float> random_values(std::mt19937_64& rng, std::size_t count) {
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = value(rng);
  return v;
}

// What random_stream draws differently per suite: the noise on planted copies and how the
// timestamps are spread (SPRING ignores time; window mode rebases it, e.g. for twed).
struct RandomStreamShape {
  float plant_noise;  // standard deviation of the noise added to each planted copy
  // The first timestamp is origin_ns plus a draw from [first_min_ns, first_max_ns]; each
  // next one is the previous plus a draw from [step_min_ns, step_max_ns].
  std::int64_t origin_ns;
  std::int64_t first_min_ns, first_max_ns;
  std::int64_t step_min_ns, step_max_ns;
};

// N(0, 1) samples with, when `plant` is given (m x dims values), three noisy copies of it at
// random places (they may overlap), so that a pattern close to `plant` has matches.
inline StreamData random_stream(std::mt19937_64& rng, const RandomStreamShape& shape,
                                const std::string& id, std::size_t dims, std::size_t length,
                                const std::vector<float>* plant = nullptr) {
  std::normal_distribution<float> value(0.0f, 1.0f), noise(0.0f, shape.plant_noise);
  std::uniform_int_distribution<std::int64_t> first(shape.first_min_ns, shape.first_max_ns),
      step(shape.step_min_ns, shape.step_max_ns);
  StreamData s;
  s.id = id;
  s.dims = dims;
  s.values.resize(length * dims);
  for (auto& v : s.values) v = value(rng);
  if (plant && !plant->empty()) {
    const std::size_t m = plant->size() / dims;
    std::uniform_int_distribution<std::size_t> where(0, length > m ? length - m : 0);
    for (int copies = 0; copies < 3 && length >= m; ++copies) {
      const std::size_t at = where(rng);
      for (std::size_t j = 0; j < m * dims; ++j) s.values[at * dims + j] = (*plant)[j] + noise(rng);
    }
  }
  std::int64_t t = shape.origin_ns + first(rng);
  for (std::size_t i = 0; i < length; ++i) {
    s.ts.push_back(t);
    t += step(rng);
  }
  return s;
}

// What a literal simulation expects from a matcher that holds all `streams` and `patterns`
// from their first samples on and is flushed at the end: the matches of every pair of equal
// dimension, sorted like the matcher's (after sorted()). `Sim` is a suite's simulation of
// one pair (SpringSim, WindowSim): Sim(pattern, stream), run(end, flush_at_end).
template <class Sim>
std::vector<kernels::RawMatch> simulate_all_pairs(
    const std::vector<StreamData>& streams, const std::vector<kernels::PatternDef>& patterns) {
  std::vector<kernels::RawMatch> want;
  for (const auto& s : streams)
    for (const auto& p : patterns)
      if (p.dims == s.dims) {
        Sim sim(p, s);
        const auto r = sim.run(s.length(), true);
        want.insert(want.end(), r.begin(), r.end());
      }
  return sorted(std::move(want));
}

// How feed() cuts the streams into chunks.
enum class Partition { one_big, one_sample, random_sizes };

// Feeds every stream through the matcher in the given partition, one chunk per stream and
// batch, and flushes at the end when asked. Checks that every process() and flush()
// result is ordered by stream, pattern, end index.
inline std::vector<kernels::RawMatch> feed(kernels::Matcher& matcher,
                                           const std::vector<StreamData>& streams,
                                           Partition partition, std::mt19937_64& rng,
                                           bool flush_at_end = true) {
  std::vector<kernels::RawMatch> all;
  std::vector<std::size_t> pos(streams.size(), 0);
  std::uniform_int_distribution<std::size_t> size(0, 9);
  std::uniform_int_distribution<int> coin(0, 3);
  for (;;) {
    bool remaining = false;
    for (std::size_t s = 0; s < streams.size(); ++s) remaining |= pos[s] < streams[s].length();
    if (!remaining) break;
    std::vector<kernels::StreamChunk> batch;
    for (std::size_t s = 0; s < streams.size(); ++s) {
      const std::size_t left = streams[s].length() - pos[s];
      std::size_t n = 0;
      switch (partition) {
        case Partition::one_big:
          n = left;
          break;
        case Partition::one_sample:
          n = std::min<std::size_t>(1, left);
          break;
        case Partition::random_sizes:
          n = std::min(size(rng), left);
          break;
      }
      if (n == 0 && coin(rng) == 0) continue;  // sometimes no chunk at all, else an empty one
      batch.push_back(streams[s].chunk(pos[s], pos[s] + n));
      pos[s] += n;
    }
    auto got = matcher.process(batch);
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), match_less)) << describe(got);
    all.insert(all.end(), got.begin(), got.end());
  }
  if (flush_at_end) {
    auto got = matcher.flush();
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), match_less)) << describe(got);
    all.insert(all.end(), got.begin(), got.end());
  }
  return all;
}

// Feeds one stream one sample at a time from sample `from` on, recording the index of the
// call that returned each match (flush = length), to check when a match is reported.
inline std::vector<std::pair<std::size_t, kernels::RawMatch>> feed_one_by_one(
    kernels::Matcher& matcher, const StreamData& s, std::size_t from = 0) {
  std::vector<std::pair<std::size_t, kernels::RawMatch>> out;
  for (std::size_t i = from; i < s.length(); ++i) {
    const kernels::StreamChunk c = s.chunk(i, i + 1);
    for (auto& m : matcher.process(std::span<const kernels::StreamChunk>(&c, 1)))
      out.emplace_back(i, m);
  }
  for (auto& m : matcher.flush()) out.emplace_back(s.length(), m);
  return out;
}

// docs/spec.md §3.2 znorm as the reference does it (float64 mean and population std per
// component, then (v - mean) / std rounded to float); false when a std is below 1e-8.
inline bool znormalize(std::vector<float>& values, std::size_t dims) {
  const std::size_t n = values.size() / dims;
  std::vector<double> mean(dims), scale(dims);
  for (std::size_t k = 0; k < dims; ++k) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += values[i * dims + k];
    mean[k] = sum / static_cast<double>(n);
    double var = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double dev = values[i * dims + k] - mean[k];
      var += dev * dev;
    }
    const double sd = std::sqrt(var / static_cast<double>(n));
    if (sd < 1e-8) return false;
    scale[k] = 1.0 / sd;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < dims; ++k)
      values[i * dims + k] = static_cast<float>((values[i * dims + k] - mean[k]) * scale[k]);
  return true;
}

}  // namespace warpwatch::testing
