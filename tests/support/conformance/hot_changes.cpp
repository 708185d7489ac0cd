// Conformance suite (overview: conformance.hpp), scenario 3: streams and patterns added and
// removed between batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "window.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Scenario 3: hot changes between batches.

// Streams and patterns (both modes) added and removed between batches, a stream removed and
// added again under the same id (index 0 again, timestamps from the start), a pattern id
// removed and added again with other parameters; removal returns the pending candidates
// (copies are planted so that the stream-mode pairs removed have one); flush at the end.
void run_hot_changes(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  Workload w;
  const auto walk = [&](std::size_t m, std::size_t d) { return random_walk(rng, m, d); };
  // Pattern values.
  const auto v_p1 = walk(12, 1), v_p2 = walk(9, 2), v_w1 = walk(10, 1), v_w2 = walk(8, 2),
             v_p3 = walk(33, 1), v_w3 = walk(7, 1), v_p1b = walk(6, 1), v_p6 = walk(5, 3);
  // Streams (incarnations): 0 s1 (d1), 1 s2 (d2), 2 s3 (d1), 3 s2 again (d2), 4 s4 (d3).
  TimeShape irregular;
  irregular.step_min_ns = kSecond / 10;
  irregular.step_max_ns = 3 * kSecond;
  w.streams.push_back(walk_stream(rng, "s1", 1, 900,
                                  {{&v_w1, 40},
                                   {&v_p1, 120},
                                   {&v_p1, 288},
                                   {&v_p3, 400},
                                   {&v_w3, 480},
                                   {&v_p1b, 600},
                                   {&v_w3, 640},
                                   {&v_p3, 760}},
                                  0.1f));
  w.streams.push_back(walk_stream(
      rng, "s2", 2, 600, {{&v_w2, 30}, {&v_p2, 150}, {&v_w2, 250}, {&v_p2, 391}}, 0.1f, irregular));
  w.streams.push_back(walk_stream(rng, "s3", 1, 500,
                                  {{&v_p3, 50}, {&v_w1, 150}, {&v_p1b, 300}, {&v_w3, 420}}, 0.1f));
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
  const auto plant_threshold = [&](std::size_t p,
                                   const std::vector<std::pair<std::size_t, std::size_t>>& copies) {
    double worst = 0.0;
    for (const auto& [s, at] : copies)
      worst = std::max(worst, diagonal_cost(w.patterns[p], w.streams[s], at));
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
    if (!best)
      ADD_FAILURE() << "test setup: " << w.patterns[p].id << " never matches " << w.streams[s].id;
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
  w.add_pattern(7);    // p6 joins s4 at 150
  w.remove_stream(2);  // s3
  w.feed({{0, 700, 900}, {3, 200, 400}, {4, 150, 300}});
  w.flush();
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const Outcome want =
      check_workload(backends, w, rng(), "hot changes", all_chunkings(), &predicted);
  // Removals return pending candidates: p1's on s1 and p2's on s2 (planted to end there).
  ASSERT_EQ(want.ended.size(), 5u);  // remove p1, remove s2, remove w1, remove s3, flush
  const auto has = [](const std::vector<RawMatch>& v, const std::string& s, const std::string& p) {
    return std::any_of(v.begin(), v.end(), [&](const RawMatch& m) {
      return m.stream_id() == s && m.pattern_id() == p;
    });
  };
  EXPECT_TRUE(has(want.ended[0], "s1", "p1")) << describe(want.ended[0]);
  EXPECT_TRUE(has(want.ended[1], "s2", "p2")) << describe(want.ended[1]);
  // Every stream-mode pattern incarnation matches.
  const auto all = want.all();
  for (const char* p : {"p1", "p2", "p3", "p6"})
    EXPECT_TRUE(std::any_of(all.begin(), all.end(), [&](const RawMatch& m) {
      return m.pattern_id() == p;
    })) << p;
  // A second flush has nothing left.
  for (const auto& backend : backends) {
    auto matcher = backend.make_matcher();
    run_workload(*matcher, w, Chunking::large_random, 7);
    EXPECT_TRUE(matcher->flush().empty())
        << backend.name << ": a flushed candidate is reported once";
  }
}

}  // namespace warpwatch::testing::conformance
