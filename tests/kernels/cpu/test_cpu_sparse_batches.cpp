// The CPU backend when few of many streams have samples in a batch (kernels/cpu/
// spring_pattern.hpp: only the lanes with samples run, in place, gathered into packs, or
// moved for good beside other lanes that keep having samples): exactly the reference's
// matches in stream mode, bit for bit, and the conformance suite's window-mode tolerance,
// through the conformance suite's workloads (tests/support/conformance/workload.hpp).
// Each test prints its seed (WARPWATCH_SEED replays it).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "conformance/inputs.hpp"
#include "conformance/window.hpp"
#include "conformance/workload.hpp"
#include "warpwatch/kernels/cpu.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::StreamData;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;

namespace {

Backends cpu_backends() {
  Backends b;
  for (unsigned threads : {1u, 2u, 3u})
    b.push_back(Backend{
        cat("cpu threads=", threads),
        [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); }, nullptr});
  return b;
}

// A stream-mode pattern and where its copies go: streams of its dims get `copies` each.
struct PatternPlan {
  PatternDef def;
  std::size_t copies = 0;
  double threshold_factor = 1.3;  // of the worst planted copy's diagonal cost; 0: keep def's
};

// `count` streams of `dims`: low-amplitude random walks (steps N(0, 0.05)) with noisy
// copies (N(0, 0.05)) of the patterns of their dims planted, `copies` of each in random
// order; the thresholds of those patterns are set above their worst copy's diagonal cost.
std::vector<StreamData> make_streams(std::mt19937_64& rng, std::vector<PatternPlan>& plans,
                                     std::size_t count, std::size_t dims, std::size_t length,
                                     const std::string& prefix) {
  std::vector<StreamData> out;
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> copies(plans.size());
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::size_t> which, lengths;
    for (std::size_t p = 0; p < plans.size(); ++p)
      if (plans[p].def.dims == dims)
        for (std::size_t c = 0; c < plans[p].copies; ++c) which.push_back(p);
    std::shuffle(which.begin(), which.end(), rng);
    for (std::size_t p : which) lengths.push_back(plans[p].def.length());
    const auto at = random_positions(rng, length, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < at.size(); ++k) {
      plants.push_back({&plans[which[k]].def.values, at[k]});
      copies[which[k]].push_back({out.size(), at[k]});
    }
    out.push_back(walk_stream(rng, cat(prefix, i), dims, length, plants, 0.05f, {}, 0.05f));
  }
  for (std::size_t p = 0; p < plans.size(); ++p) {
    if (plans[p].def.dims != dims || plans[p].threshold_factor == 0.0) continue;
    double worst = 0.0;
    for (const auto& [s, at] : copies[p])
      worst = std::max(worst, diagonal_cost(plans[p].def, out[s], at));
    plans[p].def.params.threshold =
        std::max(plans[p].def.params.threshold, plans[p].threshold_factor * worst + 1e-6);
  }
  return out;
}

// Stream-mode patterns of m 5..64, dims 1 and 3, dtw and dk, sq and abs; one of each dims
// with a loose threshold that the background meets all the time.
std::vector<PatternPlan> stream_plans(std::mt19937_64& rng) {
  std::vector<PatternPlan> plans;
  const auto add = [&](const std::string& id, std::size_t dims, std::size_t m, Metric metric,
                       Cost cost, std::size_t copies) {
    plans.push_back(
        {stream_pattern(id, dims, random_walk(rng, m, dims), metric, cost, 0.0), copies});
  };
  add("p5", 1, 5, Metric::dtw, Cost::sq, 2);
  add("p24", 1, 24, Metric::dk, Cost::abs, 2);
  add("p64", 1, 64, Metric::dtw, Cost::abs, 2);
  add("q7", 3, 7, Metric::dtw, Cost::sq, 2);
  add("q33", 3, 33, Metric::dk, Cost::sq, 1);
  // Dense: a short flat-ish pattern and a threshold of about the spread of the streams'
  // levels (N(0, 1) starts), so that a good part of every stream matches.
  plans.push_back(
      {stream_pattern("dense1", 1, random_walk(rng, 9, 1, 0.05f), Metric::dk, Cost::abs, 0.8), 0,
       0.0});
  plans.push_back(
      {stream_pattern("dense3", 3, random_walk(rng, 4, 3, 0.05f), Metric::dtw, Cost::sq, 6.0), 0,
       0.0});
  return plans;
}

}  // namespace

// 300 streams (200 of dims 1, 100 of dims 3, 30 of them added later), 9 stream-mode and 3
// window-mode patterns (some added or removed later). Each batch gives a random few of the
// streams a chunk of 1..200 samples (a slowly changing set that keeps having samples, plus
// random others; some chunks empty, some batches empty); streams and patterns come and go
// between batches. Over 65536 samples in all, so histories are trimmed several times while
// most streams sit idle.
TEST(CpuSparseBatches, FewOfManyStreamsMatchTheReference) {
  std::mt19937_64 rng(test_seed());
  std::vector<PatternPlan> plans = stream_plans(rng);
  plans.push_back(
      {stream_pattern("late16", 1, random_walk(rng, 16, 1), Metric::dtw, Cost::sq, 0.0), 2});
  plans.push_back(
      {stream_pattern("late3", 3, random_walk(rng, 12, 3), Metric::dk, Cost::abs, 0.0), 1});
  Workload w;
  const std::size_t length = 1500;
  w.streams = make_streams(rng, plans, 200, 1, length, "a");
  {
    auto three = make_streams(rng, plans, 100, 3, length, "b");
    w.streams.insert(w.streams.end(), three.begin(), three.end());
  }
  for (auto& plan : plans) w.patterns.push_back(plan.def);
  // Window mode: dims 1 dtw (w = m), dims 3 dk (w > m, hop 2), one added later.
  w.patterns.push_back(window_pattern("w1", 1, random_walk(rng, 8, 1), Metric::dtw));
  w.patterns.push_back(window_pattern("w3", 3, random_walk(rng, 6, 3), Metric::dk, 8, 2));
  w.patterns.push_back(window_pattern("wlate", 1, random_walk(rng, 6, 1), Metric::dtw, 6, 3));
  const std::size_t n_patterns = w.patterns.size();
  // Patterns added at these batches (late16, late3, wlate); patterns that may leave (p24,
  // q7, late16, late3): the others stay, so that each is sure to have windows or matches.
  const std::map<int, std::size_t> late_patterns{{40, 7}, {80, 8}, {60, n_patterns - 1}};
  const std::vector<std::size_t> may_leave{1, 3, 7, 8};

  // The script.
  std::vector<std::size_t> next(w.streams.size(), 0);
  std::vector<bool> live(w.streams.size(), false);
  std::set<std::size_t> late_streams;
  while (late_streams.size() < 30) late_streams.insert(rng() % w.streams.size());
  for (std::size_t s = 0; s < w.streams.size(); ++s)
    if (!late_streams.count(s)) {
      w.add_stream(s);
      live[s] = true;
    }
  std::vector<bool> pattern_live(n_patterns, false);
  for (std::size_t p = 0; p < n_patterns; ++p)
    if (std::none_of(late_patterns.begin(), late_patterns.end(),
                     [&](const auto& late) { return late.second == p; })) {
      w.add_pattern(p);
      pattern_live[p] = true;
    }
  const auto pick = [&](const std::vector<bool>& on) {
    std::vector<std::size_t> v;
    for (std::size_t i = 0; i < on.size(); ++i)
      if (on[i]) v.push_back(i);
    return v.empty() ? std::size_t{0} : v[rng() % v.size()];
  };
  std::uniform_int_distribution<int> percent(0, 99);
  std::vector<std::size_t> steady;  // streams that keep having samples
  std::size_t fed = 0;
  for (int batch = 0; batch < 400 && fed < 250'000; ++batch) {
    // Hot changes between batches.
    if (percent(rng) < 5) {
      const std::size_t s = pick(live);
      if (live[s]) {
        w.remove_stream(s);
        live[s] = false;
      }
    }
    if (percent(rng) < 6 && !late_streams.empty()) {
      const std::size_t s = *late_streams.begin();
      late_streams.erase(late_streams.begin());
      w.add_stream(s);
      live[s] = true;
    }
    if (percent(rng) < 2) {
      const std::size_t p = may_leave[rng() % may_leave.size()];
      if (pattern_live[p]) {
        w.remove_pattern(p);
        pattern_live[p] = false;
      }
    }
    if (const auto late = late_patterns.find(batch); late != late_patterns.end()) {
      w.add_pattern(late->second);
      pattern_live[late->second] = true;
    }
    // The steady set: about 16 streams, one replaced now and then.
    std::erase_if(steady, [&](std::size_t s) { return !live[s] || next[s] == length; });
    if (percent(rng) < 15 && !steady.empty()) steady.erase(steady.begin() + rng() % steady.size());
    for (int tries = 0; steady.size() < 16 && tries < 50; ++tries) {
      const std::size_t s = pick(live);
      if (live[s] && next[s] < length && std::find(steady.begin(), steady.end(), s) == steady.end())
        steady.push_back(s);
    }
    // This batch.
    std::vector<StreamRange> ranges;
    if (percent(rng) >= 4) {
      std::set<std::size_t> chosen;
      for (std::size_t s : steady)
        if (percent(rng) < 90) chosen.insert(s);
      const int extra = percent(rng) % 11;
      for (int k = 0; k < extra; ++k) chosen.insert(pick(live));
      for (std::size_t s : chosen) {
        if (!live[s]) continue;
        const int kind = percent(rng);
        std::size_t n = kind < 5    ? 0
                        : kind < 30 ? 1
                        : kind < 70 ? 1 + rng() % 10
                                    : 10 + rng() % 191;
        n = std::min(n, length - next[s]);
        ranges.push_back({s, next[s], next[s] + n});
        next[s] += n;
        fed += n;
      }
    }
    w.feed(std::move(ranges));
  }
  w.flush();
  EXPECT_GT(fed, 3u * 65536) << "test setup: histories are trimmed every 65536 samples";

  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const Outcome want =
      check_workload(cpu_backends(), w, rng(), "few of many streams",
                     {Chunking::one_big, Chunking::small_random, Chunking::pipelined}, &predicted);
  // The inputs do what they are for: many matches, of every stream-mode pattern.
  const auto all = want.all();
  std::set<std::string> matched;
  for (const auto& m : all) matched.insert(m.pattern_id());
  for (std::size_t p = 0; p < plans.size(); ++p)
    if (std::find(may_leave.begin(), may_leave.end(), p) == may_leave.end()) {
      EXPECT_TRUE(matched.count(plans[p].def.id))
          << "test setup: " << plans[p].def.id << " never matches";
    }
  EXPECT_GT(all.size(), 1000u) << "test setup: dense matches";
}

// A steady set of active streams among 2000 (the lanes with samples move together into as few
// groups as they fill), then another set, then one that overlaps both, with chunks of 1 and
// of 100 samples: the reference's matches, bit for bit.
TEST(CpuSparseBatches, SteadyActiveSetsAmongManyStreams) {
  std::mt19937_64 rng(test_seed());
  std::vector<PatternPlan> plans;
  plans.push_back({stream_pattern("p3", 1, random_walk(rng, 3, 1), Metric::dtw, Cost::sq, 0.0), 3});
  plans.push_back(
      {stream_pattern("p40", 1, random_walk(rng, 40, 1), Metric::dk, Cost::sq, 0.0), 2});
  plans.push_back(
      {stream_pattern("dense", 1, random_walk(rng, 6, 1, 0.05f), Metric::dtw, Cost::abs, 3.0), 0,
       0.0});
  Workload w;
  const std::size_t length = 1200;
  w.streams = make_streams(rng, plans, 2000, 1, length, "s");
  for (auto& plan : plans) w.patterns.push_back(plan.def);
  for (std::size_t s = 0; s < w.streams.size(); ++s) w.add_stream(s);
  for (std::size_t p = 0; p < w.patterns.size(); ++p) w.add_pattern(p);
  std::vector<std::size_t> next(w.streams.size(), 0);
  const auto draw_set = [&](std::size_t n) {
    std::set<std::size_t> set;
    while (set.size() < n) set.insert(rng() % w.streams.size());
    return std::vector<std::size_t>(set.begin(), set.end());
  };
  const std::vector<std::size_t> a = draw_set(45), b = draw_set(70);
  const std::vector<std::size_t> both = [&] {  // some of each
    std::set<std::size_t> v(a.begin(), a.begin() + 20);
    v.insert(b.begin(), b.begin() + 30);
    return std::vector<std::size_t>(v.begin(), v.end());
  }();
  for (const auto* set : {&a, &b, &both, &a})
    for (int batch = 0; batch < 6; ++batch) {
      std::vector<StreamRange> ranges;
      for (std::size_t s : *set) {
        const std::size_t n = std::min<std::size_t>(batch % 3 == 1 ? 1 : 100, length - next[s]);
        ranges.push_back({s, next[s], next[s] + n});
        next[s] += n;
      }
      std::shuffle(ranges.begin(), ranges.end(), rng);
      w.feed(std::move(ranges));
    }
  w.flush();
  const Outcome want =
      check_workload(cpu_backends(), w, rng(), "steady active sets", {Chunking::one_big});
  EXPECT_GT(want.all().size(), 100u) << "test setup: dense matches";
}

// A measurement, not a test (run it with --gtest_also_run_disabled_tests): the process CPU
// time of one batch (chunks of 100 samples, one per active stream) of 100 active streams
// among 100 and among 10,000 declared ones (every 100th), 8 stream-mode patterns of m 64
// (dims 1, dtw), 1 worker thread; the median of 5 runs of 20 batches after 5 to warm up.
// The two should be close: a batch costs what its chunks hold.
TEST(CpuSparseBatches, DISABLED_MeasureFewOfManyStreams) {
  for (const std::size_t declared : {std::size_t{100}, std::size_t{10'000}}) {
    std::mt19937_64 rng(42);
    auto matcher = kernels::cpu::make_matcher(kernels::cpu::Options{1});
    for (int p = 0; p < 8; ++p)
      matcher->add_pattern(
          stream_pattern(cat("p", p), 1, random_walk(rng, 64, 1), Metric::dtw, Cost::sq, 2.0));
    for (std::size_t s = 0; s < declared; ++s)
      matcher->add_stream(kernels::StreamDef{cat("s", 100'000 + s), 1, 10'000'000});
    const std::size_t active = 100, chunk = 100, stride = declared / active;
    std::vector<float> values(active * chunk), last(active, 0.0f);
    std::vector<std::int64_t> times(active * chunk);
    std::vector<std::string> ids;
    for (std::size_t a = 0; a < active; ++a) ids.push_back(cat("s", 100'000 + a * stride));
    std::normal_distribution<float> step(0.0f, 0.3f);
    std::int64_t t = kEpochNs;
    double spent = 0.0;
    const auto batch = [&] {
      std::vector<StreamChunk> chunks;
      for (std::size_t a = 0; a < active; ++a) {
        for (std::size_t i = 0; i < chunk; ++i) {
          values[a * chunk + i] = last[a] += step(rng);
          times[a * chunk + i] = t + static_cast<std::int64_t>(i) * 10'000'000;
        }
        chunks.push_back({ids[a], std::span<const float>(values).subspan(a * chunk, chunk),
                          std::span<const std::int64_t>(times).subspan(a * chunk, chunk)});
      }
      t += static_cast<std::int64_t>(chunk) * 10'000'000;
      const std::clock_t start = std::clock();
      matcher->process(chunks);
      spent += static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
    };
    for (int i = 0; i < 5; ++i) batch();
    std::vector<double> runs;
    for (int r = 0; r < 5; ++r) {
      spent = 0.0;
      for (int i = 0; i < 20; ++i) batch();
      runs.push_back(spent / 20);
    }
    std::sort(runs.begin(), runs.end());
    std::cout << "[ measure  ] " << declared << " declared, " << active << " active, chunks of "
              << chunk << ": " << runs[2] * 1e3 << " ms CPU a batch (median of 5)\n";
  }
}
