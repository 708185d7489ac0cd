// Conformance suite (overview: conformance.hpp), scenario 2: many pairs in one matcher,
// stream mode, and streams and patterns of mixed dimensions and modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "window.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Scenario 2: many pairs.

// `n_streams` x `n_patterns` stream-mode pairs, all of dimension `dims`: short streams,
// patterns of 2..max_m samples, each a noisy copy of a stretch of one stream.
void run_many_pairs(const Backends& backends, std::size_t n_streams, std::size_t n_patterns,
                    std::size_t min_length, std::size_t max_length, std::size_t max_m,
                    std::size_t dims) {
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
  const Outcome want =
      check_workload(backends, Workload::all_at_once(streams, patterns), rng(), what.str());
  std::set<std::string> matched;
  for (const auto& m : want.all())
    if (m.stream_id() == streams[std::stoul(m.pattern_id().substr(7)) % n_streams].id)
      matched.insert(m.pattern_id());
  EXPECT_EQ(matched.size(), n_patterns) << "every pattern matches the stream it was planted in";
}

// Streams and patterns of several dimensions (1..64) in one matcher, stream and window
// mode: only pairs of equal dimension exist, patterns without a stream of their dimension
// and streams without patterns are fine; a few streams x patterns of mixed modes.
void run_mixed_dims_and_modes(const Backends& backends, const std::vector<std::size_t>& stream_dims,
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
      case 0:
        patterns.push_back(
            stream_pattern(id + "_dtw", d, bases.back(), Metric::dtw, Cost::sq, 0.0));
        break;
      case 1:
        patterns.push_back(stream_pattern(id + "_dk", d, bases.back(), Metric::dk, Cost::abs, 0.0));
        break;
      case 2: {
        patterns.push_back(
            window_pattern(id + "_wsoft", d, bases.back(), Metric::softdtw, m + 2, 2));
        patterns.back().params.distance.gamma = 0.5;
        break;
      }
      default: {
        patterns.push_back(
            window_pattern(id + "_wtwed", d, bases.back(), Metric::twed, 0, 1, Normalize::znorm));
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
  what << stream_dims.size() << " streams x " << pattern_dims.size()
       << " patterns of mixed dims and modes";
  const Outcome want = check_workload(backends, w, rng(), what.str(), all_chunkings(), &predicted);
  EXPECT_FALSE(want.all().empty());
  for (const auto& m : want.all()) {
    const auto& sd = std::find_if(streams.begin(), streams.end(), [&](const StreamData& s) {
                       return s.id == m.stream_id();
                     })->dims;
    const auto& pd = std::find_if(w.patterns.begin(), w.patterns.end(), [&](const PatternDef& p) {
                       return p.id == m.pattern_id();
                     })->dims;
    EXPECT_EQ(sd, pd) << describe(m);
  }
}

}  // namespace warpwatch::testing::conformance
