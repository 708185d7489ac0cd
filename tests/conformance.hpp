// The conformance suite of a fast backend: scenario runners that drive a backend and the
// scalar reference (reference.hpp, the oracle) through the same inputs and compare what
// they return. Backend-agnostic: a backend is a Matcher factory plus a distance-matrix
// function, so the CPU suite (test_cpu_backend.cpp) and the CUDA suite run the same
// scenarios with their own factories.
//
// What must hold (SPEC.md 3.1, 3.2, 4):
// - stream mode (dtw, dk): exactly the reference's matches, distances bit-identical
//   (RawMatch::operator==);
// - window mode and whole-series distances: the same windows; distances within 1e-5 of
//   the float64 reference relative to max(1, |reference|) (an absolute 1e-5 near zero);
//   +inf exactly where the reference has +inf;
// - every match comes back from the process() call whose chunk holds the sample that
//   completes it (the reference, fed one sample per batch, tells which sample that is),
//   or from the same flush()/remove_*() call as the reference's;
// - process(), flush() and remove_*() return matches ordered by stream, pattern, end index;
// - every chunking of the input (one sample per batch, random uneven chunks per stream with
//   empty and missing chunks and empty batches, large chunks, one big batch) is compared
//   with the reference;
// - the backends of one list (one backend at several thread counts) return bit-identical
//   results for the same inputs and the same chunking.
//
// Window-mode inputs are chosen so that float32 rounding cannot flip a decision: each
// pattern's threshold lies in a gap of its reference window distances (more than 1e-3
// relative from every one), and a pattern is re-drawn while two qualifying windows that
// the exclusion zone compares are within 1e-4 of each other.
//
// Each runner calls test_seed() (printed; WARPWATCH_SEED replays a failure).
//
// Use from a backend's suite (see test_cpu_backend.cpp):
//   const Backends b{{"cuda", [] { return make_cuda_matcher(); },
//                     [](auto a, auto bb, const auto& p, auto out) { cuda_distance_matrix(a, bb, p, out); }}};
//   TEST(CudaStream, SmallPatterns) { StreamScenario sc; sc.ms = {2, 31, 32, 33}; run_stream_scenario(b, sc); }
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::testing::conformance {

using kernels::Cost;
using kernels::DistanceParams;
using kernels::Matcher;
using kernels::Metric;
using kernels::Mode;
using kernels::Normalize;
using kernels::PatternDef;
using kernels::RawMatch;
using kernels::SeriesView;
using kernels::StreamChunk;

// =================================================================================
// Backends under test.

using MatcherFactory = std::function<std::unique_ptr<Matcher>()>;
// out[i * b.size() + j] = distance(a[i], b[j]); throws std::invalid_argument on bad input.
using DistanceMatrixFn = std::function<void(std::span<const SeriesView> a, std::span<const SeriesView> b,
                                            const DistanceParams& params, std::span<double> out)>;

struct Backend {
  std::string name;  // in failure messages, e.g. "cpu threads=2"
  MatcherFactory make_matcher;
  DistanceMatrixFn distance_matrix;
};
// Every backend of a list is compared with the reference, and all of them with the first
// one bit for bit (pass one backend when there is nothing to compare them with).
using Backends = std::vector<Backend>;

// =================================================================================
// Tolerances and constants.

inline constexpr double kRel = 1e-5;  // window mode, whole series: relative to max(1, |want|)
inline constexpr double kGap = 1e-3;  // window thresholds: this far (relative) from every distance
inline constexpr double kTie = 1e-4;  // compared qualifying windows closer than this: re-draw
inline constexpr std::int64_t kSecond = 1'000'000'000;
inline constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;  // late 2023

inline double magnitude(double x) { return std::max(1.0, std::abs(x)); }

// A fast backend's whole-series distance against the reference's (SPEC.md 3.2, 4).
inline bool within_tolerance(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return false;
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::abs(got - want) <= kRel * magnitude(want);
}

inline std::string format_double(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

// Concatenates the arguments as an ostream prints them (for ids and messages: GCC 12 at -O3
// warns falsely, -Wrestrict, about "literal" + std::string chains).
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// =================================================================================
// Inputs: random walks with planted noisy copies of the patterns.

// How a stream's timestamps are drawn: the first within a second after kEpochNs, each next
// one step_min_ns..step_max_ns after the previous.
struct TimeShape {
  std::int64_t period_ns = kSecond;  // StreamDef::nominal_period_ns
  std::int64_t step_min_ns = kSecond / 2;
  std::int64_t step_max_ns = 3 * kSecond / 2;
};

// `length` x `dims` values: each component a random walk from N(0, 1) with N(0, step) steps.
inline std::vector<float> random_walk(std::mt19937_64& rng, std::size_t length, std::size_t dims,
                                      float step = 0.3f) {
  std::normal_distribution<float> start(0.0f, 1.0f), delta(0.0f, step);
  std::vector<float> v(length * dims);
  for (std::size_t k = 0; k < dims; ++k) {
    float x = start(rng);
    for (std::size_t i = 0; i < length; ++i) {
      if (i > 0) x += delta(rng);
      v[i * dims + k] = x;
    }
  }
  return v;
}

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
  std::sort(plants.begin(), plants.end(), [](const Plant& a, const Plant& b) { return a.at < b.at; });
  StreamData s;
  s.id = id;
  s.dims = dims;
  s.period_ns = time.period_ns;
  s.values.resize(length * dims);
  std::normal_distribution<float> start(0.0f, 1.0f), delta(0.0f, step), jitter(0.0f, noise > 0 ? noise : 1.0f);
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
  std::uniform_int_distribution<std::int64_t> first(0, kSecond - 1), gap(time.step_min_ns, time.step_max_ns);
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

// The cost of aligning `p` with the stream's samples at..at+m-1 along the diagonal (SPEC.md
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

// =================================================================================
// Workloads: streams, patterns and a script of Matcher calls, replayed on every backend.

enum class Chunking { one_sample, small_random, large_random, one_big };

inline std::string to_string(Chunking c) {
  switch (c) {
    case Chunking::one_sample: return "one sample per batch";
    case Chunking::small_random: return "random chunks of 0..9";
    case Chunking::large_random: return "random large chunks";
    case Chunking::one_big: return "one big batch";
  }
  return "?";
}

inline const std::vector<Chunking>& all_chunkings() {
  static const std::vector<Chunking> all{Chunking::one_sample, Chunking::small_random,
                                         Chunking::large_random, Chunking::one_big};
  return all;
}

// Samples [from, to) of streams[stream].
struct StreamRange {
  std::size_t stream = 0;
  std::size_t from = 0, to = 0;
};

struct Step {
  enum class Kind { add_stream, remove_stream, add_pattern, remove_pattern, feed, flush };
  Kind kind = Kind::feed;
  std::size_t index = 0;            // add/remove: the stream or pattern
  std::vector<StreamRange> ranges;  // feed: what each stream gets (cut into batches per chunking)
};

struct Workload {
  // Streams and patterns by index; one id may appear twice (removed, then added again).
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<Step> steps;  // the script; it ends with flush() and feeds nothing after one
  std::size_t large_chunk = 300;  // Chunking::large_random draws chunks of 0..large_chunk

  void add_stream(std::size_t i) { steps.push_back(Step{Step::Kind::add_stream, i, {}}); }
  void remove_stream(std::size_t i) { steps.push_back(Step{Step::Kind::remove_stream, i, {}}); }
  void add_pattern(std::size_t i) { steps.push_back(Step{Step::Kind::add_pattern, i, {}}); }
  void remove_pattern(std::size_t i) { steps.push_back(Step{Step::Kind::remove_pattern, i, {}}); }
  void feed(std::vector<StreamRange> ranges) { steps.push_back(Step{Step::Kind::feed, 0, std::move(ranges)}); }
  void flush() { steps.push_back(Step{Step::Kind::flush, 0, {}}); }

  // Every stream and pattern from the start, every stream fed whole, then flush().
  static Workload all_at_once(std::vector<StreamData> streams, std::vector<PatternDef> patterns) {
    Workload w;
    w.streams = std::move(streams);
    w.patterns = std::move(patterns);
    for (std::size_t i = 0; i < w.streams.size(); ++i) w.add_stream(i);
    for (std::size_t i = 0; i < w.patterns.size(); ++i) w.add_pattern(i);
    std::vector<StreamRange> all;
    for (std::size_t i = 0; i < w.streams.size(); ++i) all.push_back({i, 0, w.streams[i].length()});
    w.feed(std::move(all));
    w.flush();
    return w;
  }

  std::set<std::string> window_pattern_ids() const {
    std::set<std::string> ids;
    for (const auto& p : patterns)
      if (p.params.mode == Mode::window) ids.insert(p.id);
    return ids;
  }
};

// Cuts one feed step into batches. A batch holds at most one chunk per stream, in random
// order; random chunkings draw each stream's chunk size on its own (so streams advance
// unevenly), give a stream with nothing to send an empty chunk or no chunk at all, and
// now and then send a batch with no chunks.
inline std::vector<std::vector<StreamRange>> make_batches(const std::vector<StreamRange>& ranges,
                                                          Chunking chunking, std::size_t large_chunk,
                                                          std::mt19937_64& rng) {
  std::vector<std::vector<StreamRange>> batches;
  if (chunking == Chunking::one_big) {
    batches.push_back(ranges);
    return batches;
  }
  std::vector<std::size_t> pos;
  for (const auto& r : ranges) pos.push_back(r.from);
  std::uniform_int_distribution<std::size_t> small(0, 9), large(0, std::max<std::size_t>(large_chunk, 1));
  std::uniform_int_distribution<int> percent(0, 99);
  for (;;) {
    bool remaining = false;
    for (std::size_t i = 0; i < ranges.size(); ++i) remaining |= pos[i] < ranges[i].to;
    if (!remaining) break;
    std::vector<StreamRange> batch;
    if (chunking != Chunking::one_sample && percent(rng) < 4) {
      batches.push_back(batch);  // no chunks at all
      continue;
    }
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      const std::size_t left = ranges[i].to - pos[i];
      std::size_t n = 0;
      if (chunking == Chunking::one_sample) {
        n = std::min<std::size_t>(1, left);
      } else {
        n = chunking == Chunking::small_random ? small(rng) : large(rng);
        if (percent(rng) < 10) n = 0;
        n = std::min(n, left);
      }
      if (n == 0 && percent(rng) < 50) continue;  // no chunk for this stream, else an empty one
      batch.push_back({ranges[i].stream, pos[i], pos[i] + n});
      pos[i] += n;
    }
    if (chunking != Chunking::one_sample) std::shuffle(batch.begin(), batch.end(), rng);
    batches.push_back(std::move(batch));
  }
  return batches;
}

// A match from process(), with the samples [lo, hi) of its stream that the call was given.
struct Reported {
  RawMatch match;
  std::uint64_t lo = 0, hi = 0;
};

struct Outcome {
  std::vector<Reported> processed;           // in the order the calls returned them
  std::vector<std::vector<RawMatch>> ended;  // what each remove_*/flush step returned
  kernels::MatcherCounters counters;

  // Everything reported, ordered by stream, pattern, end index.
  std::vector<RawMatch> all() const {
    std::vector<RawMatch> v;
    for (const auto& r : processed) v.push_back(r.match);
    for (const auto& e : ended) v.insert(v.end(), e.begin(), e.end());
    return sorted(std::move(v));
  }
};

inline void expect_ordered(const std::vector<RawMatch>& v, const std::string& what) {
  EXPECT_TRUE(std::is_sorted(v.begin(), v.end(), match_less))
      << what << ": not ordered by stream, pattern, end index:\n" << describe(v);
}

// Replays the workload on `matcher`; the batches of each feed step depend on `chunking` and
// `plan_seed` only, so every backend sees the same ones.
inline Outcome run_workload(Matcher& matcher, const Workload& w, Chunking chunking,
                            std::uint64_t plan_seed) {
  std::mt19937_64 rng(plan_seed);
  Outcome out;
  const std::string who(matcher.name());
  for (const Step& step : w.steps) {
    switch (step.kind) {
      case Step::Kind::add_stream: matcher.add_stream(w.streams[step.index].def()); break;
      case Step::Kind::add_pattern: matcher.add_pattern(w.patterns[step.index]); break;
      case Step::Kind::remove_stream:
        out.ended.push_back(matcher.remove_stream(w.streams[step.index].id));
        expect_ordered(out.ended.back(), who + " remove_stream");
        break;
      case Step::Kind::remove_pattern:
        out.ended.push_back(matcher.remove_pattern(w.patterns[step.index].id));
        expect_ordered(out.ended.back(), who + " remove_pattern");
        break;
      case Step::Kind::flush:
        out.ended.push_back(matcher.flush());
        expect_ordered(out.ended.back(), who + " flush");
        break;
      case Step::Kind::feed:
        for (const auto& batch : make_batches(step.ranges, chunking, w.large_chunk, rng)) {
          std::vector<StreamChunk> chunks;
          for (const auto& r : batch) chunks.push_back(w.streams[r.stream].chunk(r.from, r.to));
          const auto got = matcher.process(chunks);
          expect_ordered(got, who + " process");
          for (const auto& m : got) {
            Reported rep{m, 0, 0};
            bool found = false;
            for (const auto& r : batch) {
              if (w.streams[r.stream].id == m.stream_id) {
                rep.lo = r.from;
                rep.hi = r.to;
                found = true;
              }
            }
            if (!found)
              ADD_FAILURE() << who << ": process() returned a match of a stream without a chunk in the batch: "
                            << describe(m);
            out.processed.push_back(std::move(rep));
          }
        }
        break;
    }
  }
  out.counters = matcher.counters();
  return out;
}

// =================================================================================
// Comparisons.

inline std::tuple<std::string, std::string, std::uint64_t> match_key(const RawMatch& m) {
  return {m.stream_id, m.pattern_id, m.end_index};
}

// `got` against the reference's `want` (both in any order): stream-mode matches exactly,
// window-mode ones (`window_ids`) within tolerance. With triggers, also that each match
// came from the call whose chunk held the sample that completed it in the reference run
// (one sample per batch: lo is that sample).
inline void expect_conformant_matches(std::vector<Reported> got, std::vector<Reported> want,
                                      const std::set<std::string>& window_ids, const std::string& what,
                                      bool check_triggers) {
  const auto less = [](const Reported& a, const Reported& b) { return match_less(a.match, b.match); };
  std::stable_sort(got.begin(), got.end(), less);
  std::stable_sort(want.begin(), want.end(), less);
  std::vector<std::string> problems;
  std::size_t count = 0;
  std::size_t i = 0, j = 0;
  while (i < got.size() || j < want.size()) {
    std::string problem;
    if (j == want.size() || (i < got.size() && match_key(got[i].match) < match_key(want[j].match))) {
      problem = cat("extra     ", describe(got[i].match));
      ++i;
    } else if (i == got.size() || match_key(want[j].match) < match_key(got[i].match)) {
      problem = cat("missing   ", describe(want[j].match));
      ++j;
    } else {
      const double rel = window_ids.count(want[j].match.pattern_id) ? kRel : 0.0;
      if (!same_match(got[i].match, want[j].match, rel)) {
        problem = cat("differs   got ", describe(got[i].match), " want ", describe(want[j].match));
      } else if (check_triggers && !(got[i].lo <= want[j].lo && want[j].lo < got[i].hi)) {
        problem = cat("late/early ", describe(got[i].match), ": completed by sample ", want[j].lo,
                      " but returned by the call with samples [", got[i].lo, ",", got[i].hi, ")");
      }
      ++i;
      ++j;
    }
    if (!problem.empty()) {
      ++count;
      if (problems.size() < 12) problems.push_back(problem);
    }
  }
  if (count > 0) {
    std::string list;
    for (const auto& p : problems) list += cat("  ", p, "\n");
    ADD_FAILURE() << what << ": " << count << " difference(s) from the reference (got " << got.size()
                  << " matches, want " << want.size() << "; window-mode distances within " << kRel
                  << " relative, stream-mode exact):\n"
                  << list;
  }
}

inline void expect_conformant_matches(const std::vector<RawMatch>& got, const std::vector<RawMatch>& want,
                                      const std::set<std::string>& window_ids, const std::string& what) {
  std::vector<Reported> g, w;
  for (const auto& m : got) g.push_back({m, 0, 0});
  for (const auto& m : want) w.push_back({m, 0, 0});
  expect_conformant_matches(std::move(g), std::move(w), window_ids, what, false);
}

inline void expect_conformant(const Outcome& got, const Outcome& want, const std::set<std::string>& window_ids,
                              const std::string& what) {
  expect_conformant_matches(got.processed, want.processed, window_ids, what + ", process()", true);
  EXPECT_EQ(got.ended.size(), want.ended.size()) << what;
  for (std::size_t k = 0; k < std::min(got.ended.size(), want.ended.size()); ++k)
    expect_conformant_matches(got.ended[k], want.ended[k], window_ids,
                              cat(what, ", remove/flush call ", k));
  EXPECT_EQ(got.counters.samples, want.counters.samples) << what << ": counters().samples";
  EXPECT_EQ(got.counters.flat_windows_skipped, want.counters.flat_windows_skipped)
      << what << ": counters().flat_windows_skipped";
}

// Bit for bit the same results, call by call (e.g. two thread counts of one backend).
inline void expect_identical(const Outcome& got, const Outcome& first, const std::string& what) {
  bool same = got.processed.size() == first.processed.size();
  for (std::size_t i = 0; same && i < got.processed.size(); ++i) {
    const auto &a = got.processed[i], &b = first.processed[i];
    if (!(a.match == b.match && a.lo == b.lo && a.hi == b.hi)) {
      ADD_FAILURE() << what << ": process() result " << i << " differs: " << describe(a.match) << " vs "
                    << describe(b.match);
      return;
    }
  }
  if (!same) {
    ADD_FAILURE() << what << ": process() returned " << got.processed.size() << " vs "
                  << first.processed.size() << " matches";
    return;
  }
  EXPECT_EQ(got.ended, first.ended) << what << ": remove/flush results differ";
  EXPECT_EQ(got.counters.samples, first.counters.samples) << what;
  EXPECT_EQ(got.counters.flat_windows_skipped, first.counters.flat_windows_skipped) << what;
}

// The reference's outcome on `w` (one sample per batch), then every backend's for every
// chunking compared with it, and the backends with each other. `predicted_windows`, when
// given, are the window-mode events that SPEC.md 3.2 predicts from the reference's
// distances (calibrate_window_thresholds): a check of this harness against the reference.
inline Outcome check_workload(const Backends& backends, const Workload& w, std::uint64_t seed,
                              const std::string& what,
                              const std::vector<Chunking>& chunkings = all_chunkings(),
                              const std::vector<RawMatch>* predicted_windows = nullptr) {
  const std::set<std::string> window_ids = w.window_pattern_ids();
  for (const auto& p : w.patterns)
    if (p.params.mode == Mode::stream && window_ids.count(p.id))
      ADD_FAILURE() << "test setup: pattern id " << p.id << " used in both modes";
  auto reference = kernels::reference::make_matcher();
  const Outcome want = run_workload(*reference, w, Chunking::one_sample, seed);
  if (predicted_windows) {
    std::vector<RawMatch> ref_windows;
    for (const auto& m : want.all())
      if (window_ids.count(m.pattern_id)) ref_windows.push_back(m);
    expect_same_matches(ref_windows, sorted(*predicted_windows),
                        what + ": harness check, literal SPEC.md 3.2 vs the reference", 1e-9);
  }
  for (std::size_t c = 0; c < chunkings.size(); ++c) {
    std::optional<Outcome> first;
    for (const auto& backend : backends) {
      const std::string label = what + " [" + backend.name + ", " + to_string(chunkings[c]) + "]";
      Outcome got;
      try {
        auto matcher = backend.make_matcher();
        got = run_workload(*matcher, w, chunkings[c], seed + 1 + c);
      } catch (const std::exception& e) {
        ADD_FAILURE() << label << ": threw " << e.what();
        continue;
      }
      expect_conformant(got, want, window_ids, label);
      if (!first) {
        first = std::move(got);
      } else {
        expect_identical(got, *first, label + " vs " + backends.front().name);
      }
    }
  }
  return want;
}

// =================================================================================
// Window mode: the reference's window distances, thresholds in gaps, near-tie checks.

// One (stream, pattern) pair from its first sample to its removal or the final flush.
struct PairLife {
  std::size_t stream = 0, pattern = 0;
  std::uint64_t first = 0, end = 0;  // the stream's samples [first, end)
};

// Every pair the script makes, with the samples it sees.
inline std::vector<PairLife> pair_lives(const Workload& w) {
  std::vector<PairLife> lives, open;
  std::vector<std::uint64_t> next(w.streams.size(), 0);
  std::set<std::size_t> streams, patterns;
  bool flushed = false;
  const auto close = [&](auto&& pred) {
    for (auto it = open.begin(); it != open.end();) {
      if (pred(*it)) {
        it->end = next[it->stream];
        lives.push_back(*it);
        it = open.erase(it);
      } else {
        ++it;
      }
    }
  };
  for (const Step& step : w.steps) {
    switch (step.kind) {
      case Step::Kind::add_stream:
        next[step.index] = 0;
        streams.insert(step.index);
        for (std::size_t p : patterns)
          if (w.patterns[p].dims == w.streams[step.index].dims) open.push_back({step.index, p, 0, 0});
        break;
      case Step::Kind::add_pattern:
        patterns.insert(step.index);
        for (std::size_t s : streams)
          if (w.streams[s].dims == w.patterns[step.index].dims) open.push_back({s, step.index, next[s], 0});
        break;
      case Step::Kind::remove_stream:
        close([&](const PairLife& l) { return l.stream == step.index; });
        streams.erase(step.index);
        break;
      case Step::Kind::remove_pattern:
        close([&](const PairLife& l) { return l.pattern == step.index; });
        patterns.erase(step.index);
        break;
      case Step::Kind::feed:
        if (flushed) ADD_FAILURE() << "test setup: a workload feeds nothing after flush()";
        for (const auto& r : step.ranges) {
          if (r.from != next[r.stream]) ADD_FAILURE() << "test setup: stream " << r.stream << " skips samples";
          next[r.stream] = r.to;
        }
        break;
      case Step::Kind::flush: flushed = true; break;
    }
  }
  if (!flushed && !open.empty()) ADD_FAILURE() << "test setup: a workload with window patterns ends with flush()";
  close([](const PairLife&) { return true; });
  return lives;
}

struct WindowEval {
  std::uint64_t end;  // the window's last sample
  double distance;    // reference::distance(pattern, window)
};

// The reference distance of every window of the pair (SPEC.md 3.2: w samples ending at
// first + w - 1 + k * hop; znorm windows with a std below 1e-8 skipped; twed times rebased
// to the pattern's first time, in seconds; a pattern without times at the stream's
// nominal period).
inline std::vector<WindowEval> window_evals(const PatternDef& p, const StreamData& s, std::uint64_t first,
                                            std::uint64_t end) {
  const std::size_t m = p.length(), d = p.dims;
  const std::size_t w = p.params.window ? p.params.window : m;
  const bool znorm = p.params.normalize == Normalize::znorm;
  std::vector<float> pv = p.values;
  if (znorm && !znormalize(pv, d)) ADD_FAILURE() << "test setup: pattern " << p.id << " is flat";
  std::vector<double> pt(m);
  for (std::size_t i = 0; i < m; ++i)
    pt[i] = p.times.empty() ? static_cast<double>(i) * (static_cast<double>(s.period_ns) * 1e-9) : p.times[i];
  const SeriesView pattern_view{pv.data(), m, d, pt.data()};
  std::vector<WindowEval> out;
  std::vector<float> wv;
  std::vector<double> wt(w);
  for (std::uint64_t e = first + w - 1; e < end; e += p.params.hop) {
    const std::uint64_t start = e + 1 - w;
    wv.assign(s.values.begin() + static_cast<std::ptrdiff_t>(start * d),
              s.values.begin() + static_cast<std::ptrdiff_t>((e + 1) * d));
    if (znorm && !znormalize(wv, d)) continue;
    for (std::size_t j = 0; j < w; ++j)
      wt[j] = pt[0] + static_cast<double>(s.ts[start + j] - s.ts[start]) * 1e-9;
    const SeriesView window_view{wv.data(), w, d, wt.data()};
    out.push_back({e, kernels::reference::distance(pattern_view, window_view, p.params.distance)});
  }
  return out;
}

struct WindowSimulation {
  std::vector<RawMatch> events;
  std::optional<std::string> near_tie;  // two compared qualifying windows within kTie
};

// SPEC.md 3.2 for one pair, literally, with the given distances; the candidate pending at
// the end of the pair's life is reported (by its removal or the final flush). Notes the
// first comparison of two qualifying windows that float32 rounding could flip. dk without
// normalization has exact ties that every backend reproduces (the distance is one cell's
// cost), so exact ties are fine there.
inline WindowSimulation simulate_windows(const PatternDef& p, const StreamData& s, const PairLife& life,
                                         const std::vector<WindowEval>& evals, double threshold) {
  const std::size_t w = p.params.window ? p.params.window : p.length();
  const bool exact_ties_ok = p.params.distance.metric == Metric::dk && p.params.normalize == Normalize::none;
  WindowSimulation out;
  std::optional<RawMatch> cand;
  std::size_t k = 0;
  for (std::uint64_t e = life.first; e < life.end; ++e) {
    if (k < evals.size() && evals[k].end == e) {
      const double d = evals[k++].distance;
      if (d <= threshold) {
        if (cand) {
          const double c = cand->distance;
          if (!out.near_tie && !(exact_ties_ok && d == c) &&
              std::abs(d - c) <= kTie * std::max(magnitude(d), magnitude(c)))
            out.near_tie = cat("windows ending at ", cand->end_index, " and ", e, ": ", format_double(c), " vs ", format_double(d));
        }
        if (!cand || d < cand->distance) {
          const std::uint64_t start = e + 1 - w;
          cand = RawMatch{s.id, p.id, d, start, e, s.ts[start], s.ts[e]};
        }
      }
    }
    if (cand && e - cand->end_index >= w / 2) {
      out.events.push_back(*cand);
      cand.reset();
    }
  }
  if (cand) out.events.push_back(*cand);
  return out;
}

// A threshold between two neighbouring distances of `sorted_unique` (finite, ascending)
// near the quantile q, more than kGap (relative) from both; above the largest when no gap
// inside qualifies. nullopt when there is no distance.
inline std::optional<double> threshold_in_gap(const std::vector<double>& v, double q) {
  if (v.empty()) return std::nullopt;
  const std::size_t n = v.size();
  const auto target = static_cast<std::ptrdiff_t>(std::min<double>(static_cast<double>(n - 1), q * static_cast<double>(n)));
  for (std::ptrdiff_t off = 0; off < static_cast<std::ptrdiff_t>(n); ++off) {
    for (std::ptrdiff_t i : {target + off, target - off - 1}) {
      if (i < 0 || i + 1 >= static_cast<std::ptrdiff_t>(n)) continue;
      const double lo = v[static_cast<std::size_t>(i)], hi = v[static_cast<std::size_t>(i) + 1];
      if (hi - lo > 2.5 * kGap * std::max(magnitude(lo), magnitude(hi))) return 0.5 * (lo + hi);
    }
  }
  return v.back() + 2.0 * kGap * magnitude(v.back());
}

// Sets the threshold of every window-mode pattern of `w` in a gap of its reference window
// distances (over all its pairs) near `quantile`; when every candidate threshold leaves a
// near tie, perturbs the pattern's values (N(0, 0.1) per value) and tries again. Returns
// the events SPEC.md 3.2 predicts with the reference's distances.
inline std::vector<RawMatch> calibrate_window_thresholds(Workload& w, std::mt19937_64& rng, double quantile) {
  const std::vector<PairLife> lives = pair_lives(w);
  std::vector<RawMatch> predicted;
  std::normal_distribution<float> perturb(0.0f, 0.1f);
  for (std::size_t pi = 0; pi < w.patterns.size(); ++pi) {
    PatternDef& p = w.patterns[pi];
    if (p.params.mode != Mode::window) continue;
    if (std::none_of(lives.begin(), lives.end(), [&](const PairLife& l) { return l.pattern == pi; })) {
      p.params.threshold = 1.0;  // never paired: any threshold
      continue;
    }
    bool done = false;
    std::string last_problem = "no windows";
    for (int attempt = 0; attempt < 25 && !done; ++attempt) {
      if (attempt > 0)
        for (auto& v : p.values) v += perturb(rng);
      std::vector<std::pair<const PairLife*, std::vector<WindowEval>>> evals;
      std::vector<double> all;
      for (const auto& life : lives) {
        if (life.pattern != pi) continue;
        evals.emplace_back(&life, window_evals(p, w.streams[life.stream], life.first, life.end));
        for (const auto& e : evals.back().second)
          if (std::isfinite(e.distance)) all.push_back(e.distance);
      }
      std::sort(all.begin(), all.end());
      all.erase(std::unique(all.begin(), all.end()), all.end());
      for (double q : {quantile, quantile / 2, quantile * 2, quantile / 4, std::min(0.5, quantile * 4)}) {
        const auto threshold = threshold_in_gap(all, q);
        if (!threshold) break;
        std::vector<RawMatch> events;
        std::optional<std::string> near_tie;
        for (const auto& [life, ev] : evals) {
          auto sim = simulate_windows(p, w.streams[life->stream], *life, ev, *threshold);
          if (sim.near_tie && !near_tie) near_tie = w.streams[life->stream].id + ": " + *sim.near_tie;
          events.insert(events.end(), sim.events.begin(), sim.events.end());
        }
        if (near_tie) {
          last_problem = cat("near tie at threshold ", format_double(*threshold), " (", *near_tie, ")");
          continue;
        }
        p.params.threshold = *threshold;
        predicted.insert(predicted.end(), events.begin(), events.end());
        done = true;
        break;
      }
    }
    if (!done) ADD_FAILURE() << "test setup: no robust threshold for window pattern " << p.id << ": " << last_problem;
  }
  return predicted;
}

// =================================================================================
// Whole-series distances.

struct Series {
  std::vector<float> values;
  std::vector<double> times;  // seconds; empty: none (sample index)
  std::size_t dims = 1;
  std::size_t length() const { return values.size() / dims; }
  SeriesView view() const { return {values.data(), length(), dims, times.empty() ? nullptr : times.data()}; }
};

inline std::vector<SeriesView> views(const std::vector<Series>& s) {
  std::vector<SeriesView> v;
  for (const auto& x : s) v.push_back(x.view());
  return v;
}

// The matrix of every backend against reference::distance (within tolerance, +inf where it
// has +inf), and the backends with each other bit for bit.
inline void check_distance_matrix(const Backends& backends, const std::vector<Series>& a,
                                  const std::vector<Series>& b, const DistanceParams& params,
                                  const std::string& what) {
  const auto va = views(a), vb = views(b);
  std::vector<double> want(a.size() * b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) want[i * b.size() + j] = kernels::reference::distance(va[i], vb[j], params);
  std::optional<std::vector<double>> first;
  for (const auto& backend : backends) {
    const std::string label = what + " [" + backend.name + "]";
    std::vector<double> got(want.size(), std::numeric_limits<double>::quiet_NaN());
    try {
      backend.distance_matrix(va, vb, params, got);
    } catch (const std::exception& e) {
      ADD_FAILURE() << label << ": threw " << e.what();
      continue;
    }
    std::size_t bad = 0;
    std::ostringstream list;
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (std::size_t j = 0; j < b.size(); ++j) {
        const double g = got[i * b.size() + j], r = want[i * b.size() + j];
        if (within_tolerance(g, r)) continue;
        if (++bad <= 8)
          list << "  [" << i << "," << j << "] lengths " << a[i].length() << " x " << b[j].length() << ": got "
               << format_double(g) << " want " << format_double(r) << " (rel err "
               << std::abs(g - r) / magnitude(r) << ")\n";
      }
    }
    if (bad > 0)
      ADD_FAILURE() << label << ": " << bad << " of " << want.size() << " distances off the reference by more than "
                    << kRel << " relative:\n" << list.str();
    if (!first) {
      first = got;
    } else if (std::memcmp(first->data(), got.data(), got.size() * sizeof(double)) != 0) {
      ADD_FAILURE() << label << ": not bit-identical to " << backends.front().name;
    }
  }
}

// Series of random lengths in [1, max_length] (also exactly 1 and max_length), values from
// random walks; with times (seconds from `origin`, steps 0.2..2 s) when asked.
inline std::vector<Series> random_series(std::mt19937_64& rng, std::size_t count, std::size_t dims,
                                         std::size_t max_length, bool with_times, double origin = 0.0) {
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

// =================================================================================
// Scenario 1: stream mode against the reference, bit for bit.

struct StreamScenario {
  std::vector<std::size_t> ms;           // pattern lengths
  std::vector<std::size_t> dims{1, 3};
  std::size_t streams_per_dims = 3;
  std::size_t min_length = 300;          // stream length before room for the copies
  std::size_t copies = 1;                // noisy copies of each pattern per stream
  bool four_variants = true;             // dtw/dk x sq/abs per m; else two (dims alternate)
  std::vector<Chunking> chunkings = all_chunkings();
  std::size_t large_chunk = 300;
};

inline void run_stream_scenario(const Backends& backends, const StreamScenario& sc) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;  // one pattern value set per (dims, m)
  std::vector<std::pair<std::size_t, std::size_t>> planted;  // (stream, base) with the copy's position below
  std::vector<std::size_t> planted_at;
  std::vector<std::size_t> pattern_base;
  for (std::size_t di = 0; di < sc.dims.size(); ++di) {
    const std::size_t d = sc.dims[di];
    std::vector<std::size_t> my_bases;
    for (std::size_t m : sc.ms) {
      my_bases.push_back(bases.size());
      bases.push_back(random_walk(rng, m, d));
      const std::size_t b = bases.size() - 1;
      struct V { Metric metric; Cost cost; const char* name; };
      std::vector<V> variants{{Metric::dtw, Cost::sq, "dtw_sq"}, {Metric::dtw, Cost::abs, "dtw_abs"},
                              {Metric::dk, Cost::sq, "dk_sq"}, {Metric::dk, Cost::abs, "dk_abs"}};
      if (!sc.four_variants)
        variants = di % 2 == 0 ? std::vector<V>{variants[0], variants[3]} : std::vector<V>{variants[1], variants[2]};
      for (const auto& v : variants) {
        patterns.push_back(stream_pattern(cat("d", d, "_m", m, "_", v.name), d,
                                          bases[b], v.metric, v.cost, 0.0));
        pattern_base.push_back(b);
      }
    }
    for (std::size_t si = 0; si < sc.streams_per_dims; ++si) {
      std::vector<std::size_t> lengths, order;
      for (std::size_t c = 0; c < sc.copies; ++c)
        for (std::size_t b : my_bases) order.push_back(b);
      std::shuffle(order.begin(), order.end(), rng);
      std::size_t total = 0;
      for (std::size_t b : order) {
        lengths.push_back(bases[b].size() / d);
        total += lengths.back();
      }
      const std::size_t length = std::max(sc.min_length, total + total / 10 + 17 * si);
      const auto pos = random_positions(rng, length, lengths);
      std::vector<Plant> plants;
      for (std::size_t k = 0; k < pos.size(); ++k) {
        plants.push_back({&bases[order[k]], pos[k]});
        planted.emplace_back(streams.size(), order[k]);
        planted_at.push_back(pos[k]);
      }
      streams.push_back(walk_stream(rng, cat("s", d, static_cast<char>('a' + si)), d,
                                    length, plants, 0.1f));
    }
  }
  // Thresholds a little above the worst planted copy's diagonal cost: every copy matches.
  for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
    double worst = 0.0;
    for (std::size_t k = 0; k < planted.size(); ++k)
      if (planted[k].second == pattern_base[pi])
        worst = std::max(worst, diagonal_cost(patterns[pi], streams[planted[k].first], planted_at[k]));
    patterns[pi].params.threshold = worst * 1.1 + 1e-6;
  }
  Workload w = Workload::all_at_once(streams, patterns);
  w.large_chunk = sc.large_chunk;
  std::ostringstream what;
  what << "stream mode, m in {";
  for (std::size_t m : sc.ms) what << " " << m;
  what << " }";
  const Outcome want = check_workload(backends, w, rng(), what.str(), sc.chunkings);
  // Matches occur: every pattern matches every stream it was planted in.
  const auto all = want.all();
  for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
    for (std::size_t k = 0; k < planted.size(); ++k) {
      if (planted[k].second != pattern_base[pi]) continue;
      const auto& sid = streams[planted[k].first].id;
      EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const RawMatch& m) {
        return m.stream_id == sid && m.pattern_id == patterns[pi].id;
      })) << "no reference match of " << patterns[pi].id << " on " << sid;
    }
  }
}

// Stream mode on quantized data (values in {0, 1, 2, 3}): D values tie exactly all the
// time, so the tie rule of SPEC.md 3.1 (earlier predecessor wins, start S follows it)
// decides the starts.
inline void run_stream_quantized_ties(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> level(0, 3);
  const auto quantized = [&](std::size_t count) {
    std::vector<float> v(count);
    for (auto& x : v) x = static_cast<float>(level(rng));
    return v;
  };
  std::vector<StreamData> streams;
  for (std::size_t d : {1u, 3u}) {
    for (int k = 0; k < 2; ++k) {
      StreamData s;
      s.id = cat("q", d, k);
      s.dims = d;
      const std::size_t n = 400 + 37 * static_cast<std::size_t>(k);
      s.values = quantized(n * d);
      for (std::size_t i = 0; i < n; ++i) s.ts.push_back(kEpochNs + static_cast<std::int64_t>(i) * kSecond);
      streams.push_back(std::move(s));
    }
  }
  std::vector<PatternDef> patterns;
  for (std::size_t d : {1u, 3u}) {
    for (std::size_t m : {2u, 3u, 8u, 33u}) {
      const auto values = quantized(m * d);
      int v = 0;
      for (Metric metric : {Metric::dtw, Metric::dk}) {
        for (Cost cost : {Cost::sq, Cost::abs}) {
          // dtw: about half a unit of cost per pattern sample; dk: one unit.
          const double threshold = metric == Metric::dtw ? 0.5 * static_cast<double>(m * d) : 1.0 + v % 2;
          patterns.push_back(stream_pattern(cat("q", d, "_m", m, "_", v++),
                                            d, values, metric, cost, threshold));
        }
      }
    }
  }
  const Outcome want = check_workload(backends, Workload::all_at_once(streams, patterns), rng(), "quantized ties");
  EXPECT_GT(want.all().size(), 50u) << "the thresholds should give many matches";
}

// Thresholds at the edges of the float32 comparison D <= eps of the reference (threshold
// rounded to float, clamped to FLT_MAX beyond it): exactly an attainable distance r, the
// double just below r (rounds to r), the float below r, 0 with an exact copy, a negative
// one, and thresholds beyond float range (everything qualifies, +inf never).
inline void run_stream_threshold_edges(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  for (std::size_t d : {1u, 3u}) {
    const std::vector<float> base = random_walk(rng, 9, d);
    const std::string sd = cat("s", d);
    // An exact copy (noise 0) at 100 and a noisy one elsewhere.
    StreamData exact = walk_stream(rng, sd + "x", d, 300, {{&base, 100}}, 0.0f);
    StreamData noisy = walk_stream(rng, sd + "n", d, 300, {{&base, 200}}, 0.05f);
    for (Metric metric : {Metric::dtw, Metric::dk}) {
      const Cost cost = metric == Metric::dtw ? Cost::sq : Cost::abs;
      const std::string id = cat(sd, "_", kernels::to_string(metric), "_");
      // r: the reference's smallest reported distance on the noisy stream with a huge
      // threshold (the first candidate of that run is attained before any report).
      auto ref = kernels::reference::make_matcher();
      ref->add_stream(noisy.def());
      ref->add_pattern(stream_pattern("probe", d, base, metric, cost, 1e30));
      const StreamChunk c = noisy.chunk(0, noisy.length());
      auto probe = ref->process(std::span<const StreamChunk>(&c, 1));
      const auto tail = ref->flush();
      probe.insert(probe.end(), tail.begin(), tail.end());
      if (probe.empty()) {
        ADD_FAILURE() << "test setup: no probe matches";
        continue;
      }
      const double r = probe.front().distance;  // the first report: its candidate saw no reset
      const auto rf = static_cast<float>(r);
      patterns.push_back(stream_pattern(id + "at_r", d, base, metric, cost, r));
      patterns.push_back(stream_pattern(id + "just_below_r", d, base, metric, cost, std::nextafter(r, 0.0)));
      patterns.push_back(stream_pattern(id + "float_below_r", d, base, metric, cost,
                                        static_cast<double>(std::nextafter(rf, 0.0f))));
      patterns.push_back(stream_pattern(id + "zero", d, base, metric, cost, 0.0));
      patterns.push_back(stream_pattern(id + "negative", d, base, metric, cost, -1.0));
      patterns.push_back(stream_pattern(id + "1e300", d, base, metric, cost, 1e300));
      patterns.push_back(stream_pattern(id + "dblmax", d, base, metric, cost, std::numeric_limits<double>::max()));
    }
    streams.push_back(std::move(exact));
    streams.push_back(std::move(noisy));
  }
  const Outcome want = check_workload(backends, Workload::all_at_once(streams, patterns), rng(), "threshold edges");
  const auto all = want.all();
  const auto count = [&](const std::string& suffix) {
    return std::count_if(all.begin(), all.end(), [&](const RawMatch& m) {
      return m.pattern_id.size() >= suffix.size() &&
             m.pattern_id.compare(m.pattern_id.size() - suffix.size(), suffix.size(), suffix) == 0;
    });
  };
  // The edges are exercised: the reference reports at r and just below, and the exact
  // copies at 0.
  EXPECT_GT(count("_at_r"), 0);
  EXPECT_GT(count("_just_below_r"), 0);
  EXPECT_GT(count("_zero"), 0);
  EXPECT_EQ(count("_negative"), 0);
  EXPECT_GT(count("_1e300"), 0);
}

// =================================================================================
// Scenario 2: many pairs.

// `n_streams` x `n_patterns` stream-mode pairs, all of dimension `dims`: short streams,
// patterns of 2..max_m samples, each a noisy copy of a stretch of one stream.
inline void run_many_pairs(const Backends& backends, std::size_t n_streams, std::size_t n_patterns,
                           std::size_t min_length, std::size_t max_length, std::size_t max_m,
                           std::size_t dims = 1) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(min_length, max_length), plen(2, max_m);
  std::vector<std::vector<float>> bases;
  for (std::size_t i = 0; i < n_patterns; ++i) bases.push_back(random_walk(rng, plen(rng), dims));
  std::vector<StreamData> streams;
  std::vector<std::pair<std::size_t, std::size_t>> where(n_patterns);  // pattern -> (stream, at)
  for (std::size_t s = 0; s < n_streams; ++s) {
    const std::size_t n = len(rng);
    std::vector<Plant> plants;
    std::vector<std::size_t> mine, lengths;
    for (std::size_t p = s; p < n_patterns; p += n_streams) {
      mine.push_back(p);
      lengths.push_back(bases[p].size() / dims);
    }
    std::size_t total = 0;
    for (auto l : lengths) total += l;
    const auto pos = random_positions(rng, std::max(n, total), lengths);
    for (std::size_t k = 0; k < mine.size() && k < pos.size(); ++k) {
      plants.push_back({&bases[mine[k]], pos[k]});
      where[mine[k]] = {s, pos[k]};
    }
    streams.push_back(walk_stream(rng, cat("stream", s), dims, std::max(n, total), plants, 0.1f));
  }
  // Pattern p is planted in stream p % n_streams; its threshold is above that copy's cost.
  std::vector<PatternDef> patterns;
  for (std::size_t p = 0; p < n_patterns; ++p) {
    const Metric metric = p % 2 ? Metric::dk : Metric::dtw;
    const Cost cost = (p / 2) % 2 ? Cost::abs : Cost::sq;
    patterns.push_back(stream_pattern(cat("pattern", p), dims, bases[p], metric, cost, 0.0));
    patterns.back().params.threshold =
        1.5 * diagonal_cost(patterns.back(), streams[where[p].first], where[p].second) + 1e-6;
  }
  std::ostringstream what;
  what << n_streams << " streams x " << n_patterns << " patterns";
  const Outcome want = check_workload(backends, Workload::all_at_once(streams, patterns), rng(), what.str());
  std::set<std::string> matched;
  for (const auto& m : want.all())
    if (m.stream_id == streams[std::stoul(m.pattern_id.substr(7)) % n_streams].id) matched.insert(m.pattern_id);
  EXPECT_EQ(matched.size(), n_patterns) << "every pattern matches the stream it was planted in";
}

// Streams and patterns of several dimensions (1..64) in one matcher, stream and window
// mode: only pairs of equal dimension exist, patterns without a stream of their dimension
// and streams without patterns are fine; a few streams x patterns of mixed modes.
inline void run_mixed_dims_and_modes(const Backends& backends, const std::vector<std::size_t>& stream_dims,
                                     const std::vector<std::size_t>& pattern_dims, std::size_t length) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> plen(3, 9);
  std::vector<std::vector<float>> bases;
  std::vector<PatternDef> patterns;
  for (std::size_t i = 0; i < pattern_dims.size(); ++i) {
    const std::size_t d = pattern_dims[i], m = plen(rng);
    bases.push_back(random_walk(rng, m, d));
    const std::string id = cat("p", i, "_d", d);
    switch (i % 4) {
      case 0: patterns.push_back(stream_pattern(id + "_dtw", d, bases.back(), Metric::dtw, Cost::sq, 0.0)); break;
      case 1: patterns.push_back(stream_pattern(id + "_dk", d, bases.back(), Metric::dk, Cost::abs, 0.0)); break;
      case 2: {
        patterns.push_back(window_pattern(id + "_wsoft", d, bases.back(), Metric::softdtw, m + 2, 2));
        patterns.back().params.distance.gamma = 0.5;
        break;
      }
      default: {
        patterns.push_back(window_pattern(id + "_wtwed", d, bases.back(), Metric::twed, 0, 1, Normalize::znorm));
        patterns.back().params.distance.nu = 0.01;
        patterns.back().params.distance.lambda = 0.5;
        break;
      }
    }
  }
  std::vector<StreamData> streams;
  std::vector<std::tuple<std::size_t, std::size_t, std::size_t>> planted;  // stream, pattern, at
  for (std::size_t s = 0; s < stream_dims.size(); ++s) {
    const std::size_t d = stream_dims[s];
    std::vector<std::size_t> mine, lengths;
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (patterns[p].dims == d) {
        mine.push_back(p);
        lengths.push_back(patterns[p].length());
      }
    const auto pos = random_positions(rng, length, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < mine.size() && k < pos.size(); ++k) {
      plants.push_back({&bases[mine[k]], pos[k]});
      planted.emplace_back(streams.size(), mine[k], pos[k]);
    }
    TimeShape time;
    time.period_ns = kSecond / static_cast<std::int64_t>(1 + s % 3);
    streams.push_back(walk_stream(rng, cat("s", s, "_d", d), d, length, plants, 0.1f, time));
  }
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (patterns[p].params.mode != Mode::stream) continue;
    double worst = 0.0;
    bool found = false;
    for (const auto& [s, pp, at] : planted)
      if (pp == p) {
        worst = std::max(worst, diagonal_cost(patterns[p], streams[s], at));
        found = true;
      }
    patterns[p].params.threshold = found ? 1.2 * worst + 1e-6 : 1.0;  // no stream of its dims: any
  }
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  std::ostringstream what;
  what << stream_dims.size() << " streams x " << pattern_dims.size() << " patterns of mixed dims and modes";
  const Outcome want = check_workload(backends, w, rng(), what.str(), all_chunkings(), &predicted);
  EXPECT_FALSE(want.all().empty());
  for (const auto& m : want.all()) {
    const auto& sd = std::find_if(streams.begin(), streams.end(), [&](const StreamData& s) { return s.id == m.stream_id; })->dims;
    const auto& pd = std::find_if(w.patterns.begin(), w.patterns.end(), [&](const PatternDef& p) { return p.id == m.pattern_id; })->dims;
    EXPECT_EQ(sd, pd) << describe(m);
  }
}

// =================================================================================
// Scenario 3: hot changes between batches.

// Streams and patterns (both modes) added and removed between batches, a stream removed and
// added again under the same id (index 0 again, timestamps from the start), a pattern id
// removed and added again with other parameters; removal returns the pending candidates
// (copies are planted so that the stream-mode pairs removed have one); flush at the end.
inline void run_hot_changes(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  Workload w;
  const auto walk = [&](std::size_t m, std::size_t d) { return random_walk(rng, m, d); };
  // Pattern values.
  const auto v_p1 = walk(12, 1), v_p2 = walk(9, 2), v_w1 = walk(10, 1), v_w2 = walk(8, 2), v_p3 = walk(33, 1),
             v_w3 = walk(7, 1), v_p1b = walk(6, 1), v_p6 = walk(5, 3);
  // Streams (incarnations): 0 s1 (d1), 1 s2 (d2), 2 s3 (d1), 3 s2 again (d2), 4 s4 (d3).
  TimeShape irregular;
  irregular.step_min_ns = kSecond / 10;
  irregular.step_max_ns = 3 * kSecond;
  w.streams.push_back(walk_stream(rng, "s1", 1, 900,
                                  {{&v_w1, 40}, {&v_p1, 120}, {&v_p1, 288}, {&v_p3, 400}, {&v_w3, 480}, {&v_p1b, 600},
                                   {&v_w3, 640}, {&v_p3, 760}},
                                  0.1f));
  w.streams.push_back(walk_stream(rng, "s2", 2, 600, {{&v_w2, 30}, {&v_p2, 150}, {&v_w2, 250}, {&v_p2, 391}}, 0.1f,
                                  irregular));
  w.streams.push_back(walk_stream(rng, "s3", 1, 500, {{&v_p3, 50}, {&v_w1, 150}, {&v_p1b, 300}, {&v_w3, 420}}, 0.1f));
  w.streams.push_back(walk_stream(rng, "s2", 2, 400, {{&v_p2, 60}, {&v_w2, 210}}, 0.1f, irregular));
  w.streams.push_back(walk_stream(rng, "s4", 3, 300, {{&v_p6, 40}, {&v_p6, 200}}, 0.1f));
  // Patterns: 0 p1, 1 p2, 2 w1, 3 w2, 4 p3, 5 w3, 6 p1 again (other values and metric), 7 p6.
  w.patterns.push_back(stream_pattern("p1", 1, v_p1, Metric::dtw, Cost::sq, 0.0));
  w.patterns.push_back(stream_pattern("p2", 2, v_p2, Metric::dk, Cost::abs, 0.0));
  w.patterns.push_back(window_pattern("w1", 1, v_w1, Metric::dtw));
  w.patterns.push_back(window_pattern("w2", 2, v_w2, Metric::twed, 10, 2));
  w.patterns.back().times = {0.0, 0.5, 1.7, 2.0, 3.1, 3.6, 4.0, 5.2};
  w.patterns.back().params.distance.nu = 0.1;
  w.patterns.back().params.distance.lambda = 0.5;
  w.patterns.push_back(stream_pattern("p3", 1, v_p3, Metric::dk, Cost::sq, 0.0));
  w.patterns.push_back(window_pattern("w3", 1, v_w3, Metric::dk, 6, 2, Normalize::znorm));
  w.patterns.push_back(stream_pattern("p1", 1, v_p1b, Metric::dk, Cost::abs, 0.0));
  w.patterns.push_back(stream_pattern("p6", 3, v_p6, Metric::dtw, Cost::abs, 0.0));
  // Stream-mode thresholds above the planted copies' diagonal costs.
  const auto plant_threshold = [&](std::size_t p, const std::vector<std::pair<std::size_t, std::size_t>>& copies) {
    double worst = 0.0;
    for (const auto& [s, at] : copies) worst = std::max(worst, diagonal_cost(w.patterns[p], w.streams[s], at));
    w.patterns[p].params.threshold = 1.2 * worst + 1e-6;
  };
  plant_threshold(0, {{0, 120}, {0, 288}});
  plant_threshold(1, {{1, 150}, {1, 391}, {3, 60}});
  plant_threshold(4, {{0, 400}, {0, 760}, {2, 50}});
  plant_threshold(6, {{0, 600}, {2, 300}});
  plant_threshold(7, {{4, 40}, {4, 200}});
  // Where to remove p1 (from s1) and s2 (with p2) so that a candidate is pending: just
  // after the end of a match of the pair (its candidate is set by its last sample and
  // reported at a later sample at the earliest), near the copies planted at 288 and 391.
  const auto pending_after = [&](std::size_t s, std::size_t p, std::uint64_t near) -> std::size_t {
    auto ref = kernels::reference::make_matcher();
    ref->add_stream(w.streams[s].def());
    ref->add_pattern(w.patterns[p]);
    std::optional<std::uint64_t> best;
    for (std::size_t i = 0; i < w.streams[s].length(); ++i) {
      const StreamChunk c = w.streams[s].chunk(i, i + 1);
      for (const auto& m : ref->process(std::span<const StreamChunk>(&c, 1)))
        if (!best || (m.end_index > near ? m.end_index - near : near - m.end_index) <
                         (*best > near ? *best - near : near - *best))
          best = m.end_index;
    }
    if (!best) ADD_FAILURE() << "test setup: " << w.patterns[p].id << " never matches " << w.streams[s].id;
    return best ? static_cast<std::size_t>(*best + 1) : static_cast<std::size_t>(near + 1);
  };
  const std::size_t k1 = pending_after(0, 0, 299), k2 = pending_after(1, 1, 399);
  // The script.
  w.add_stream(0);
  w.add_stream(1);
  for (std::size_t p : {0u, 1u, 2u, 3u}) w.add_pattern(p);
  w.feed({{0, 0, k1}, {1, 0, 200}});
  w.add_pattern(4);     // p3 joins s1 at k1
  w.remove_pattern(0);  // p1: a candidate is pending on s1
  w.add_stream(2);      // s3 pairs with p3, w1
  w.feed({{0, k1, 550}, {1, 200, k2}, {2, 0, 250}});
  w.remove_stream(1);   // s2: p2's candidate is pending
  w.add_pattern(6);     // p1 again, other values and metric
  w.add_pattern(5);     // w3 from s1's 550 and s3's 250
  w.remove_pattern(2);  // w1
  w.add_stream(3);      // s2 again: index 0, earlier timestamps than before
  w.add_stream(4);      // s4: no pattern of dimension 3 yet
  w.feed({{0, 550, 700}, {2, 250, 500}, {3, 0, 200}, {4, 0, 150}});
  w.add_pattern(7);     // p6 joins s4 at 150
  w.remove_stream(2);   // s3
  w.feed({{0, 700, 900}, {3, 200, 400}, {4, 150, 300}});
  w.flush();
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const Outcome want = check_workload(backends, w, rng(), "hot changes", all_chunkings(), &predicted);
  // Removals return pending candidates: p1's on s1 and p2's on s2 (planted to end there).
  ASSERT_EQ(want.ended.size(), 5u);  // remove p1, remove s2, remove w1, remove s3, flush
  const auto has = [](const std::vector<RawMatch>& v, const std::string& s, const std::string& p) {
    return std::any_of(v.begin(), v.end(), [&](const RawMatch& m) { return m.stream_id == s && m.pattern_id == p; });
  };
  EXPECT_TRUE(has(want.ended[0], "s1", "p1")) << describe(want.ended[0]);
  EXPECT_TRUE(has(want.ended[1], "s2", "p2")) << describe(want.ended[1]);
  // Every stream-mode pattern incarnation matches.
  const auto all = want.all();
  for (const char* p : {"p1", "p2", "p3", "p6"})
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const RawMatch& m) { return m.pattern_id == p; })) << p;
  // A second flush has nothing left.
  for (const auto& backend : backends) {
    auto matcher = backend.make_matcher();
    run_workload(*matcher, w, Chunking::large_random, 7);
    EXPECT_TRUE(matcher->flush().empty()) << backend.name << ": a flushed candidate is reported once";
  }
}

// =================================================================================
// Scenario 4: window mode.

struct WindowCase {
  std::size_t dims, m, w, hop;
  Normalize normalize;
  std::optional<double> band;
  Cost cost;
};

// One metric in window mode: patterns with w = m, w < m, w > m, hop 1..3, normalize
// none/znorm, bands (none, 0, fractional) for dtw/dk/softdtw, gamma 0.1/1 for softdtw; twed
// with nu/lambda/p variations and patterns with and without times; streams of d = 1 and 3
// with irregular timestamps and different nominal periods.
inline void run_window_scenario(const Backends& backends, Metric metric) {
  std::mt19937_64 rng(test_seed());
  const std::vector<WindowCase> cases{
      {1, 2, 0, 1, Normalize::none, std::nullopt, Cost::sq},
      {1, 7, 0, 2, Normalize::znorm, std::nullopt, Cost::abs},
      {1, 12, 9, 1, Normalize::none, 2.0, Cost::sq},
      {1, 7, 10, 3, Normalize::znorm, 1.5, Cost::sq},
      {3, 31, 0, 1, Normalize::none, std::nullopt, Cost::abs},
      {3, 32, 40, 2, Normalize::znorm, 3.5, Cost::sq},
      {1, 33, 25, 3, Normalize::none, 3.5, Cost::abs},
      {3, 5, 0, 1, Normalize::znorm, std::nullopt, Cost::sq},
      {1, 64, 0, 2, Normalize::none, 0.0, Cost::sq},
      {1, 16, 0, 1, Normalize::znorm, 0.0, Cost::abs},
      {3, 9, 13, 1, Normalize::none, 1.0, Cost::abs},
  };
  struct TwedVariant { double nu, lambda, p; bool times; };
  const std::vector<TwedVariant> twed{{0.001, 1.0, 2.0, false}, {0.5, 0.0, 1.0, true}, {0.0, 0.3, 3.0, false},
                                      {0.1, 2.0, 2.0, true}};
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  std::uniform_real_distribution<double> tstep(0.3, 2.0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    bases.push_back(random_walk(rng, c.m, c.dims));
    std::ostringstream id;
    id << "w" << i << "_d" << c.dims << "_m" << c.m << "_w" << (c.w ? c.w : c.m) << "_hop" << c.hop << "_"
       << kernels::to_string(c.normalize);
    PatternDef p = window_pattern(id.str(), c.dims, bases.back(), metric, c.w, c.hop, c.normalize);
    p.params.distance.cost = c.cost;
    if (metric != Metric::twed) p.params.distance.band = c.band;
    p.params.distance.gamma = i % 2 ? 0.1 : 1.0;
    const auto& tv = twed[i % twed.size()];
    p.params.distance.nu = tv.nu;
    p.params.distance.lambda = tv.lambda;
    p.params.distance.p = tv.p;
    if (metric == Metric::twed && tv.times) {
      double t = 10.0 * static_cast<double>(i % 3);
      for (std::size_t j = 0; j < c.m; ++j) p.times.push_back(t += tstep(rng));
    }
    patterns.push_back(std::move(p));
  }
  // a: d1, 1 s period, 0.5..1.5 s steps; c: d1, 2 s period, 0.1..4 s steps; b: d3, 0.5 s
  // period, 0.2..0.8 s steps. Each pattern planted once in every stream of its dimension.
  struct S { const char* id; std::size_t dims, length; TimeShape time; };
  const std::vector<S> shapes{{"a", 1, 420, {kSecond, kSecond / 2, 3 * kSecond / 2}},
                              {"c", 1, 300, {2 * kSecond, kSecond / 10, 4 * kSecond}},
                              {"b", 3, 360, {kSecond / 2, kSecond / 5, 4 * kSecond / 5}}};
  std::vector<StreamData> streams;
  for (const auto& sh : shapes) {
    std::vector<std::size_t> mine, lengths;
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (patterns[p].dims == sh.dims) {
        mine.push_back(p);
        lengths.push_back(patterns[p].length());
      }
    std::shuffle(mine.begin(), mine.end(), rng);
    lengths.clear();
    for (std::size_t p : mine) lengths.push_back(patterns[p].length());
    const auto pos = random_positions(rng, sh.length, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < mine.size() && k < pos.size(); ++k) plants.push_back({&bases[mine[k]], pos[k]});
    streams.push_back(walk_stream(rng, sh.id, sh.dims, sh.length, plants, 0.1f, sh.time));
  }
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const std::string what = cat("window mode, ", kernels::to_string(metric));
  check_workload(backends, w, rng(), what, all_chunkings(), &predicted);
  for (const auto& p : w.patterns)
    EXPECT_TRUE(std::any_of(predicted.begin(), predicted.end(), [&](const RawMatch& m) { return m.pattern_id == p.id; }))
        << p.id << " has no event";
}

// znorm with exactly constant stretches (values that are not powers of two, so that a
// float32 mean is not exact): those windows are flat (std 0 < 1e-8), skipped and counted
// exactly as the reference does.
inline void run_window_flat_znorm(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  for (std::size_t d : {1u, 2u}) {
    StreamData s = walk_stream(rng, cat("flat", d), d, 400, {}, 0.0f);
    const float levels[] = {3.7f, 0.1f, -123.456f, 1e4f / 3.0f};
    for (int k = 0; k < 4; ++k) {
      const std::size_t from = 30 + 90 * static_cast<std::size_t>(k), to = from + 25 + 5 * static_cast<std::size_t>(k);
      for (std::size_t i = from; i < to; ++i)
        for (std::size_t c = 0; c < d; ++c)
          // d = 2: component 1 constant only on every other stretch.
          if (c == 0 || k % 2 == 0) s.values[i * d + c] = levels[k] + static_cast<float>(c);
    }
    streams.push_back(std::move(s));
  }
  std::vector<PatternDef> patterns;
  patterns.push_back(window_pattern("z_dtw_m7", 1, random_walk(rng, 7, 1), Metric::dtw, 0, 1, Normalize::znorm));
  patterns.push_back(window_pattern("z_dk_m5_w9", 1, random_walk(rng, 5, 1), Metric::dk, 9, 2, Normalize::znorm));
  patterns.push_back(window_pattern("z_twed_m6", 2, random_walk(rng, 6, 2), Metric::twed, 0, 1, Normalize::znorm));
  patterns.push_back(window_pattern("z_soft_m8_w11", 2, random_walk(rng, 8, 2), Metric::softdtw, 11, 3, Normalize::znorm));
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.1);
  const Outcome want = check_workload(backends, w, rng(), "znorm with flat windows", all_chunkings(), &predicted);
  EXPECT_GT(want.counters.flat_windows_skipped, 50u);
}

// =================================================================================
// Scenario 5: whole-series distance matrices.

// |A| x |B| with unequal lengths (1..300) inside A and inside B, d = 1 and 3, for one
// metric: dtw/dk with band none/0/3.5 and cost sq/abs; softdtw also with gamma 0.1/1;
// twed with nu/lambda/p variations, with and without timestamps.
inline void run_distance_scenario(const Backends& backends, Metric metric, std::size_t na = 5, std::size_t nb = 4,
                                  std::size_t max_length = 300) {
  std::mt19937_64 rng(test_seed());
  std::size_t configs = 0;
  for (std::size_t d : {1u, 3u}) {
    for (bool times : {false, true}) {
      if (times && metric != Metric::twed) continue;
      const auto a = random_series(rng, na, d, max_length, times);
      const auto b = random_series(rng, nb, d, max_length, times);
      std::vector<DistanceParams> params;
      DistanceParams base;
      base.metric = metric;
      if (metric == Metric::twed) {
        for (auto [nu, lambda, p] : {std::tuple{0.001, 1.0, 2.0}, std::tuple{0.5, 0.0, 1.0}, std::tuple{0.0, 0.3, 3.0},
                                     std::tuple{0.05, 2.0, 1.5}}) {
          DistanceParams q = base;
          q.nu = nu;
          q.lambda = lambda;
          q.p = p;
          params.push_back(q);
        }
      } else {
        for (std::optional<double> band : {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{3.5}})
          for (Cost cost : {Cost::sq, Cost::abs})
            for (double gamma : {0.1, 1.0}) {
              if (metric != Metric::softdtw && gamma != 1.0) continue;
              DistanceParams q = base;
              q.band = band;
              q.cost = cost;
              q.gamma = gamma;
              params.push_back(q);
            }
      }
      for (const auto& q : params) {
        std::ostringstream what;
        what << kernels::to_string(metric) << " d=" << d << (times ? " with times" : "") << " cost "
             << kernels::to_string(q.cost) << " band " << (q.band ? format_double(*q.band) : "none") << " gamma "
             << q.gamma << " nu " << q.nu << " lambda " << q.lambda << " p " << q.p;
        check_distance_matrix(backends, a, b, q, what.str());
        ++configs;
      }
    }
  }
  EXPECT_GT(configs, 0u);
}

// twed with timestamps far from 0 (seconds since the epoch, as a CSV time column gives
// them): only differences of times enter SPEC.md 4.3, and the result must still be within
// tolerance (float32 times of that size would be off by minutes).
inline void run_distance_twed_large_time_origin(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  for (std::size_t d : {1u, 3u}) {
    const auto a = random_series(rng, 4, d, 120, true, 1.7e9);
    const auto b = random_series(rng, 3, d, 120, true, 1.7e9);
    DistanceParams q;
    q.metric = Metric::twed;
    q.nu = 0.5;
    q.lambda = 0.5;
    check_distance_matrix(backends, a, b, q, cat("twed, times near 1.7e9 s, d=", d));
  }
}

// Empty sets give an empty matrix; mismatched dimensions, an empty series, a wrong output
// size and invalid parameters throw std::invalid_argument.
inline void run_distance_edge_cases(const Backend& backend) {
  std::mt19937_64 rng(test_seed());
  const auto a = random_series(rng, 3, 2, 20, false), b = random_series(rng, 2, 2, 20, false);
  const auto va = views(a), vb = views(b);
  DistanceParams q;
  std::vector<double> none;
  EXPECT_NO_THROW(backend.distance_matrix({}, vb, q, none)) << backend.name << ": empty A";
  EXPECT_NO_THROW(backend.distance_matrix(va, {}, q, none)) << backend.name << ": empty B";
  EXPECT_NO_THROW(backend.distance_matrix({}, {}, q, none)) << backend.name << ": both empty";
  std::vector<double> out(va.size() * vb.size());
  // Mismatched dimensions: A against B, and inside A.
  const auto c = random_series(rng, 2, 3, 20, false);
  const auto vc = views(c);
  std::vector<double> out_ac(va.size() * vc.size());
  EXPECT_THROW(backend.distance_matrix(va, vc, q, out_ac), std::invalid_argument) << backend.name << ": dims of A vs B";
  std::vector<SeriesView> mixed = va;
  mixed[1] = vc[0];
  EXPECT_THROW(backend.distance_matrix(mixed, vb, q, out), std::invalid_argument) << backend.name << ": dims inside A";
  std::vector<SeriesView> mixed_b = vb;
  mixed_b[0] = vc[0];
  EXPECT_THROW(backend.distance_matrix(va, mixed_b, q, out), std::invalid_argument) << backend.name << ": dims inside B";
  // An empty series.
  std::vector<SeriesView> with_empty = va;
  with_empty[2].length = 0;
  EXPECT_THROW(backend.distance_matrix(with_empty, vb, q, out), std::invalid_argument) << backend.name << ": empty series";
  // The output's size is not |A| x |B|.
  std::vector<double> small(out.size() - 1);
  EXPECT_THROW(backend.distance_matrix(va, vb, q, small), std::invalid_argument) << backend.name << ": output size";
  // Invalid parameters.
  for (int k = 0; k < 4; ++k) {
    DistanceParams bad;
    if (k == 0) { bad.metric = Metric::softdtw; bad.gamma = 0.0; }
    if (k == 1) { bad.metric = Metric::twed; bad.p = 0.5; }
    if (k == 2) { bad.metric = Metric::dtw; bad.band = -1.0; }
    if (k == 3) { bad.metric = Metric::twed; bad.nu = -0.1; }
    EXPECT_THROW(backend.distance_matrix(va, vb, bad, out), std::invalid_argument) << backend.name << ": invalid params " << k;
  }
  // Single samples, and a matrix that is right after all those errors.
  const auto one = random_series(rng, 2, 2, 1, false);
  check_distance_matrix({backend}, one, b, q, "single samples");
  check_distance_matrix({backend}, a, b, q, "after errors");
}

// =================================================================================
// Scenario 6: several backends (thread counts) agree bit for bit on larger work, without
// the reference. (Every scenario above also compares them on its own inputs.)
inline void run_backends_agree(const Backends& backends) {
  if (backends.size() < 2) return;
  std::mt19937_64 rng(test_seed());
  // Distance matrices, every metric.
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
    const auto a = random_series(rng, 17, 2, 160, metric == Metric::twed);
    const auto b = random_series(rng, 13, 2, 160, metric == Metric::twed);
    DistanceParams q;
    q.metric = metric;
    if (metric == Metric::dk) q.band = 4.0;
    const auto va = views(a), vb = views(b);
    std::optional<std::vector<double>> first;
    for (const auto& backend : backends) {
      std::vector<double> out(a.size() * b.size());
      backend.distance_matrix(va, vb, q, out);
      if (!first) {
        first = out;
      } else {
        EXPECT_EQ(std::memcmp(first->data(), out.data(), out.size() * sizeof(double)), 0)
            << backend.name << " vs " << backends.front().name << ": " << kernels::to_string(metric) << " matrix";
      }
    }
  }
  // A matcher with 24 streams x 16 patterns of both modes.
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  for (std::size_t p = 0; p < 16; ++p) bases.push_back(random_walk(rng, 4 + p % 11, 1 + p % 2));
  for (std::size_t s = 0; s < 24; ++s) {
    const std::size_t d = 1 + s % 2;
    std::vector<Plant> plants;
    std::size_t at = 10;
    for (std::size_t p = 0; p < bases.size(); ++p)
      if (1 + p % 2 == d && (p + s) % 3 == 0) {
        plants.push_back({&bases[p], at});
        at += bases[p].size() / d + 20;
      }
    streams.push_back(walk_stream(rng, cat("s", s), d, 300, plants, 0.1f));
  }
  const Metric metrics[] = {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed};
  for (std::size_t p = 0; p < bases.size(); ++p) {
    const std::size_t d = 1 + p % 2, m = bases[p].size() / d;
    if (p % 2 == 0) {
      patterns.push_back(stream_pattern(cat("p", p), d, bases[p], p % 4 ? Metric::dk : Metric::dtw, Cost::sq,
                                        p % 4 ? 1.0 : 0.5 * static_cast<double>(m)));
    } else {
      patterns.push_back(window_pattern(cat("p", p), d, bases[p], metrics[(p / 2) % 4], m + p % 3, 1 + p % 3,
                                        p % 3 ? Normalize::none : Normalize::znorm));
      patterns.back().params.threshold = 1e30;  // every window qualifies: many comparisons
    }
  }
  const Workload w = Workload::all_at_once(streams, patterns);
  for (Chunking chunking : {Chunking::small_random, Chunking::one_big}) {
    std::optional<Outcome> first;
    for (const auto& backend : backends) {
      auto matcher = backend.make_matcher();
      const Outcome got = run_workload(*matcher, w, chunking, 99);
      if (!first) {
        EXPECT_FALSE(got.all().empty());
        first = got;
      } else {
        expect_identical(got, *first, backend.name + " vs " + backends.front().name + ", " + to_string(chunking));
      }
    }
  }
}

}  // namespace warpwatch::testing::conformance
