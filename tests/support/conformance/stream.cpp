// Conformance suite (overview: conformance.hpp), scenario 1: stream mode (dtw, dk) against
// the reference, bit for bit; planted copies, quantized values (exact ties), threshold edges.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Scenario 1: stream mode against the reference, bit for bit.

StreamScenario StreamScenario::small_patterns() {
  StreamScenario sc;
  sc.ms = {2, 31, 32, 33};
  return sc;
}

StreamScenario StreamScenario::pattern_257() {
  StreamScenario sc;
  sc.ms = {257};
  sc.streams_per_dims = 2;
  sc.copies = 2;
  sc.min_length = 1200;
  return sc;
}

StreamScenario StreamScenario::pattern_3000() {
  StreamScenario sc;
  sc.ms = {3000};
  sc.streams_per_dims = 1;
  sc.min_length = 3300;
  sc.four_variants = false;
  sc.chunkings = {Chunking::one_sample, Chunking::large_random, Chunking::one_big};
  sc.large_chunk = 1000;
  return sc;
}

void run_stream_scenario(const Backends& backends, const StreamScenario& sc) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;  // one pattern value set per (dims, m)
  std::vector<std::pair<std::size_t, std::size_t>>
      planted;  // (stream, base) with the copy's position below
  std::vector<std::size_t> planted_at;
  std::vector<std::size_t> pattern_base;
  for (std::size_t di = 0; di < sc.dims.size(); ++di) {
    const std::size_t d = sc.dims[di];
    std::vector<std::size_t> my_bases;
    for (std::size_t m : sc.ms) {
      my_bases.push_back(bases.size());
      bases.push_back(random_walk(rng, m, d));
      const std::size_t b = bases.size() - 1;
      struct V {
        Metric metric;
        Cost cost;
        const char* name;
      };
      std::vector<V> variants{{Metric::dtw, Cost::sq, "dtw_sq"},
                              {Metric::dtw, Cost::abs, "dtw_abs"},
                              {Metric::dk, Cost::sq, "dk_sq"},
                              {Metric::dk, Cost::abs, "dk_abs"}};
      if (!sc.four_variants)
        variants = di % 2 == 0 ? std::vector<V>{variants[0], variants[3]}
                               : std::vector<V>{variants[1], variants[2]};
      for (const auto& v : variants) {
        patterns.push_back(
            stream_pattern(cat("d", d, "_m", m, "_", v.name), d, bases[b], v.metric, v.cost, 0.0));
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
      streams.push_back(
          walk_stream(rng, cat("s", d, static_cast<char>('a' + si)), d, length, plants, 0.1f));
    }
  }
  // Thresholds a little above the worst planted copy's diagonal cost: every copy matches.
  for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
    double worst = 0.0;
    for (std::size_t k = 0; k < planted.size(); ++k)
      if (planted[k].second == pattern_base[pi])
        worst =
            std::max(worst, diagonal_cost(patterns[pi], streams[planted[k].first], planted_at[k]));
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
      EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                              [&](const RawMatch& m) {
                                return m.stream_id() == sid && m.pattern_id() == patterns[pi].id;
                              }))
          << "no reference match of " << patterns[pi].id << " on " << sid;
    }
  }
}

void run_stream_dense(const Backends& backends, const DenseStreamScenario& sc) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<std::size_t> planted_per_stream;
  // Shrunk for a tool (test_shrink), still room for three copies at the widest spacing in
  // the stream of the most dimensions.
  const std::size_t most_dims = *std::max_element(sc.dims.begin(), sc.dims.end());
  const std::size_t total_length =
      std::max(sc.length / test_shrink(),
               std::min(sc.length, most_dims * 3 * std::max<std::size_t>(200, sc.m + 140)));
  for (std::size_t d : sc.dims) {
    const std::size_t length = total_length / d;
    const std::vector<float> base = random_walk(rng, sc.m, d);
    std::vector<Plant> plants;
    std::uniform_int_distribution<std::size_t> spacing(std::max<std::size_t>(60, sc.m),
                                                       std::max<std::size_t>(200, sc.m + 140));
    for (std::size_t at = spacing(rng) / 2; at + sc.m <= length; at += spacing(rng))
      plants.push_back({&base, at});
    StreamData s = walk_stream(rng, cat("dense", d), d, length, plants, 0.1f);
    double worst = 0.0;
    PatternDef dtw = stream_pattern(cat("dense", d, "_dtw_sq"), d, base, Metric::dtw, Cost::sq, 0);
    PatternDef dk = stream_pattern(cat("dense", d, "_dk_abs"), d, base, Metric::dk, Cost::abs, 0);
    for (const Plant& p : plants) worst = std::max(worst, diagonal_cost(dtw, s, p.at));
    dtw.params.threshold = worst * 1.1 + 1e-6;
    worst = 0.0;
    for (const Plant& p : plants) worst = std::max(worst, diagonal_cost(dk, s, p.at));
    dk.params.threshold = worst * 1.1 + 1e-6;
    patterns.push_back(std::move(dtw));
    patterns.push_back(std::move(dk));
    streams.push_back(std::move(s));
    planted_per_stream.push_back(plants.size());
  }
  // Real heartbeats: a stream of TEST beats per d, two TRAIN beats as patterns.
  const bench::Beats& beats = bench::ecg_beats(bench::default_data_dir());
  for (std::size_t d : {1u, 3u}) {
    constexpr std::size_t beat = 96;
    const std::size_t length = total_length / d;
    bench::BeatStream source(beats, beat, d, rng());
    StreamData s;
    s.id = cat("ecg", d);
    s.dims = d;
    s.values.resize(length * d);
    source.fill(s.values.data(), length);
    for (std::size_t i = 0; i < length; ++i)
      s.ts.push_back(kEpochNs + static_cast<std::int64_t>(i) * kSecond);
    streams.push_back(std::move(s));
    for (std::size_t k = 0; k < 2; ++k) {
      const std::vector<float> values = bench::beat_pattern(beats, k, beat, d);
      patterns.push_back(stream_pattern(cat("ecg", d, "_beat", k), d, values, Metric::dtw, Cost::sq,
                                        bench::dense_threshold(beats, values, beat, d, rng())));
    }
    planted_per_stream.push_back(length / 150);
  }
  Workload w = Workload::all_at_once(streams, patterns);
  w.large_chunk = sc.large_chunk;
  const Outcome want =
      check_workload(backends, w, rng(), cat("dense matches, m ", sc.m), sc.chunkings);
  // Dense: a stream's patterns together match it about as often as they occur there. Not
  // each pattern alone: an ECG beat's threshold is the 60th percentile of 20 drawn
  // occurrences (bench::dense_threshold), so one beat's share moves with the seed (8 of 43
  // planted beats with WARPWATCH_SEED=7625646192673523434, its other beat far more).
  const auto all = want.all();
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const auto n = static_cast<std::size_t>(std::count_if(
        all.begin(), all.end(), [&](const RawMatch& m) { return m.stream_id() == streams[i].id; }));
    EXPECT_GE(n, planted_per_stream[i] / 3) << "matches on " << streams[i].id;
  }
}

// Stream mode on quantized data (values in {0, 1, 2, 3}): D values tie exactly all the
// time, so the tie rule of docs/spec.md §3.1 (earlier predecessor wins, start S follows it)
// decides the starts.
void run_stream_quantized_ties(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> level(0, 3);
  // Zeros of either sign: |(-0) - (+0)| is -0 in the reference's own abs (which its
  // c = 0 + term turns into +0), and dk's max(c, best) would keep a -0 that a min of bit
  // patterns orders below +0.
  const auto quantized = [&](std::size_t count) {
    std::vector<float> v(count);
    for (auto& x : v) {
      x = static_cast<float>(level(rng));
      if (x == 0.0f && rng() % 2 == 0) x = -0.0f;
    }
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
      for (std::size_t i = 0; i < n; ++i)
        s.ts.push_back(kEpochNs + static_cast<std::int64_t>(i) * kSecond);
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
          const double threshold =
              metric == Metric::dtw ? 0.5 * static_cast<double>(m * d) : 1.0 + v % 2;
          patterns.push_back(
              stream_pattern(cat("q", d, "_m", m, "_", v++), d, values, metric, cost, threshold));
        }
      }
    }
  }
  const Outcome want =
      check_workload(backends, Workload::all_at_once(streams, patterns), rng(), "quantized ties");
  EXPECT_GT(want.all().size(), 50u) << "the thresholds should give many matches";
}

// Thresholds at the edges of the float32 comparison D <= eps of the reference (threshold
// rounded to float, clamped to FLT_MAX beyond it): exactly an attainable distance r, the
// double just below r (rounds to r), the float below r, 0 with an exact copy, a negative
// one, and thresholds beyond float range (everything qualifies, +inf never).
void run_stream_threshold_edges(const Backends& backends) {
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
      patterns.push_back(
          stream_pattern(id + "just_below_r", d, base, metric, cost, std::nextafter(r, 0.0)));
      patterns.push_back(stream_pattern(id + "float_below_r", d, base, metric, cost,
                                        static_cast<double>(std::nextafter(rf, 0.0f))));
      patterns.push_back(stream_pattern(id + "zero", d, base, metric, cost, 0.0));
      patterns.push_back(stream_pattern(id + "negative", d, base, metric, cost, -1.0));
      patterns.push_back(stream_pattern(id + "1e300", d, base, metric, cost, 1e300));
      patterns.push_back(
          stream_pattern(id + "dblmax", d, base, metric, cost, std::numeric_limits<double>::max()));
    }
    streams.push_back(std::move(exact));
    streams.push_back(std::move(noisy));
  }
  const Outcome want =
      check_workload(backends, Workload::all_at_once(streams, patterns), rng(), "threshold edges");
  const auto all = want.all();
  const auto count = [&](const std::string& suffix) {
    return std::count_if(all.begin(), all.end(), [&](const RawMatch& m) {
      return m.pattern_id().size() >= suffix.size() &&
             m.pattern_id().compare(m.pattern_id().size() - suffix.size(), suffix.size(), suffix) ==
                 0;
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

}  // namespace warpwatch::testing::conformance
