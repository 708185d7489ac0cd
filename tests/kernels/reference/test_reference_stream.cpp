// Stream mode (SPRING, docs/spec.md §3.1) of the reference Matcher.
//
// The expected matches come from a hand-worked example and from a slow, literal float32
// simulation of docs/spec.md §3.1 written here (SpringSim), which must agree bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;
using namespace warpwatch::testing;

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();

// SPRING ignores time: timestamps anywhere within +-1000 s of the epoch, 1 ns to 1 ms
// apart. Planted copies carry noise of standard deviation 0.15.
constexpr RandomStreamShape kSpringStreams{0.15f, 0,        -1'000'000'000'000, 1'000'000'000'000,
                                           1,     1'000'000};

// Hand-worked streams start at 1000 ns.
constexpr std::int64_t kHandStartNs = 1000;

std::vector<RawMatch> select(const std::vector<RawMatch>& v, const std::string& stream,
                             const std::string& pattern) {
  std::vector<RawMatch> out;
  for (const auto& m : v)
    if (m.stream_id() == stream && m.pattern_id() == pattern) out.push_back(m);
  return out;
}

PatternDef make_pattern(const std::string& id, std::size_t dims, std::vector<float> values,
                        Metric metric, Cost cost, double threshold) {
  PatternDef p = base_pattern(id, dims, std::move(values), Mode::stream, metric, threshold);
  p.params.distance.cost = cost;
  return p;
}

// ---------------------------------------------------------------------------------
// docs/spec.md §3.1, literally, in float32 (the conventions of the reference: c accumulated
// component by component without fused multiply-add, D <= float(threshold)).
class SpringSim {
 public:
  SpringSim(const PatternDef& pattern, const StreamData& stream, std::uint64_t first = 0)
      : pattern_(pattern),
        stream_(stream),
        m_(pattern.length()),
        d_(pattern.dims),
        eps_(static_cast<float>(pattern.params.threshold)),
        next_(first),
        D_(m_, kInfF),
        S_(m_, 0) {}

  // Feeds the stream's sample with index next_ (0-based); returns a report if any.
  std::optional<RawMatch> step() {
    const std::uint64_t t = next_++;
    const float* x = stream_.values.data() + t * d_;
    std::vector<float> Dn(m_);
    std::vector<std::uint64_t> Sn(m_);
    for (std::size_t i = 0; i < m_; ++i) {
      float c = 0.0f;
      for (std::size_t k = 0; k < d_; ++k) {
        const float diff = x[k] - pattern_.values[i * d_ + k];
        if (pattern_.params.distance.cost == Cost::sq)
          c = c + diff * diff;
        else
          c = c + std::fabs(diff);
      }
      // Predecessors in the order (t,i-1), (t-1,i-1), (t-1,i); only strictly smaller replaces.
      float best;
      std::uint64_t start;
      if (i == 0) {
        best = 0.0f;  // (t,0): D = 0, S = t
        start = t;
        // (t-1,0): D = 0 as well, never strictly smaller than the first.
        if (D_[0] < best) {
          best = D_[0];
          start = S_[0];
        }
      } else {
        best = Dn[i - 1];
        start = Sn[i - 1];
        if (D_[i - 1] < best) {
          best = D_[i - 1];
          start = S_[i - 1];
        }
        if (D_[i] < best) {
          best = D_[i];
          start = S_[i];
        }
      }
      if (pattern_.params.distance.metric == Metric::dtw)
        Dn[i] = c + best;
      else
        Dn[i] = c > best ? c : best;
      Sn[i] = start;
    }
    std::optional<RawMatch> report;
    if (dmin_ <= eps_) {
      bool done = true;
      for (std::size_t i = 0; i < m_; ++i)
        if (!(Dn[i] >= dmin_ || Sn[i] > te_)) done = false;
      if (done) {
        report = make(dmin_, ts_, te_);
        dmin_ = kInfF;
        for (std::size_t i = 0; i < m_; ++i)
          if (Sn[i] <= te_) Dn[i] = kInfF;
      }
    }
    if (Dn[m_ - 1] <= eps_ && Dn[m_ - 1] < dmin_) {
      dmin_ = Dn[m_ - 1];
      ts_ = Sn[m_ - 1];
      te_ = t;
    }
    D_ = std::move(Dn);
    S_ = std::move(Sn);
    last_column_end_ = D_[m_ - 1];
    return report;
  }

  std::optional<RawMatch> flush() {
    if (dmin_ <= eps_) {
      auto r = make(dmin_, ts_, te_);
      dmin_ = kInfF;
      return r;
    }
    return std::nullopt;
  }

  // Runs samples [next_, end) and then, when asked, the flush.
  std::vector<RawMatch> run(std::size_t end, bool flush_at_end) {
    std::vector<RawMatch> out;
    while (next_ < end)
      if (auto r = step()) out.push_back(*r);
    if (flush_at_end)
      if (auto r = flush()) out.push_back(*r);
    return out;
  }

  float last_column_end() const { return last_column_end_; }

 private:
  RawMatch make(float d, std::uint64_t s, std::uint64_t e) const {
    RawMatch r = raw_match(stream_.id, pattern_.id, 0.0, 0, 0, 0, 0);
    r.distance = static_cast<double>(d);
    r.start_index = s;
    r.end_index = e;
    r.start_ns = stream_.ts[s];
    r.end_ns = stream_.ts[e];
    return r;
  }

  const PatternDef& pattern_;
  const StreamData& stream_;
  std::size_t m_, d_;
  float eps_;
  std::uint64_t next_;
  std::vector<float> D_;
  std::vector<std::uint64_t> S_;
  float dmin_ = kInfF;
  std::uint64_t ts_ = 0, te_ = 0;
  float last_column_end_ = kInfF;
};

// All D(t,m) of a run without any report (threshold below every distance): the
// attainable subsequence distances, to pick thresholds at which matches occur.
std::vector<float> attainable(PatternDef pattern, const StreamData& stream) {
  pattern.params.threshold = -1.0;
  SpringSim sim(pattern, stream);
  std::vector<float> out;
  for (std::size_t t = 0; t < stream.length(); ++t) {
    sim.step();
    out.push_back(sim.last_column_end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

double quantile_threshold(PatternDef pattern, const StreamData& stream, double q) {
  const auto v = attainable(std::move(pattern), stream);
  const std::size_t i =
      std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));
  return static_cast<double>(v[i]);
}

}  // namespace

// =================================================================================
// Hand-worked SPRING: pattern p = {0, 1}, stream x = {5, 0, 1.5, 1, 5, 0.5, 1, 5},
// sq cost, threshold 1. SPEC t = index + 1; columns (D1,S1 | D2,S2), S as SPEC t:
//
//  t x    c1    c2    D(t,1) S   D(t,2) S            report / candidate after the column
//  1 5    25    16    25     1   41     1  (16+25)
//  2 0    0     1     0      2   1      2  (1+D(2,1))  cand (1, 2, 2)
//  3 1.5  2.25  .25   2.25   3   .25    2  (.25+D(2,1)=0)
//                                          step 1: D(3,2)=.25 < 1 with S=2 <= 2: wait;
//                                          step 2: cand (.25, 2, 3)
//  4 1    1     0     1      4   .25    2  (0+D(3,2)=.25)
//                                          step 1: D(4,1)=1 >= .25, D(4,2)=.25 >= .25:
//                                          REPORT (.25, 2, 3); reset D(4,2) (S=2<=3) to inf
//  5 5    25    16    25     5   17     4  (16+D(4,1)=1)
//  6 .5   .25   .25   .25    6   .5     6  (.25+D(6,1))  cand (.5, 6, 6)
//  7 1    1     0     1      7   .25    6  (0+min(1, D(6,1)=.25, .5)) step 1: .25 < .5,
//                                          S=6 <= 6: wait; step 2: cand (.25, 6, 7)
//  8 5    25    16    25     8   16.25  6  (16+D(7,2)) step 1: REPORT (.25, 6, 7)
//
// 0-based: (start 1, end 2, 0.25) returned by the call of index 3, (5, 6, 0.25) by index 7.
TEST(ReferenceSpring, HandWorkedDtw) {
  const StreamData s = hand_stream({5, 0, 1.5f, 1, 5, 0.5f, 1, 5}, kHandStartNs);
  auto matcher = reference::make_matcher();
  EXPECT_EQ(matcher->name(), "reference");
  matcher->add_stream(s.def());
  matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0));
  const auto got = feed_one_by_one(*matcher, s);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, 3u);
  EXPECT_EQ(got[0].second, expected(s, "p", 0.25, 1, 2)) << describe(got[0].second);
  EXPECT_EQ(got[1].first, 7u);
  EXPECT_EQ(got[1].second, expected(s, "p", 0.25, 5, 6)) << describe(got[1].second);
  EXPECT_EQ(matcher->counters().samples, s.length());
}

// The same stream with dk (max instead of +):
//  t x    D(t,1) S   D(t,2) S
//  1 5    25     1   25     1
//  2 0    0      2   1      2   cand (1, 2, 2)
//  3 1.5  2.25   3   .25    2   (max(.25, D(2,1)=0)) wait (S=2 <= 2, .25 < 1); cand (.25, 2, 3)
//  4 1    1      4   .25    2   (max(0, D(3,2)=.25)) REPORT (.25, 2, 3), reset D(4,2)
//  5 5    25     5   16     4   (max(16, D(4,1)=1))
//  6 .5   .25    6   .25    6   (max(.25, D(6,1)=.25)) cand (.25, 6, 6)
//  7 1    1      7   .25    6   (max(0, min(1, D(6,1)=.25, D(6,2)=.25)), the diagonal wins
//                                the tie) D(7,2) = .25 >= d_min: REPORT (.25, 6, 6) at t = 7
//  8 5    25     8   16     7
// 0-based: (1, 2, .25) at call 3, (5, 5, .25) at call 6.
TEST(ReferenceSpring, HandWorkedDk) {
  const StreamData s = hand_stream({5, 0, 1.5f, 1, 5, 0.5f, 1, 5}, kHandStartNs);
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dk, Cost::sq, 1.0));
  const auto got = feed_one_by_one(*matcher, s);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, 3u);
  EXPECT_EQ(got[0].second, expected(s, "p", 0.25, 1, 2)) << describe(got[0].second);
  EXPECT_EQ(got[1].first, 6u);
  EXPECT_EQ(got[1].second, expected(s, "p", 0.25, 5, 5)) << describe(got[1].second);
}

// The threshold is inclusive (<=): at 0.25 exactly the same two matches, below none.
TEST(ReferenceSpring, ThresholdIsInclusive) {
  const StreamData s = hand_stream({5, 0, 1.5f, 1, 5, 0.5f, 1, 5}, kHandStartNs);
  for (double threshold : {0.25, 0.2}) {
    auto matcher = reference::make_matcher();
    matcher->add_stream(s.def());
    matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, threshold));
    std::mt19937_64 rng(warpwatch::testing::test_seed());
    const auto got = feed(*matcher, {s}, Partition::one_big, rng);
    if (threshold == 0.25) {
      ASSERT_EQ(got.size(), 2u) << describe(got);
      EXPECT_EQ(got[0], expected(s, "p", 0.25, 1, 2));
      EXPECT_EQ(got[1], expected(s, "p", 0.25, 5, 6));
    } else {
      EXPECT_TRUE(got.empty()) << describe(got);
    }
  }
}

// Without the final 5 the second candidate (.25, 6, 7) is still pending at the end:
// flush, remove_stream and remove_pattern each report it, exactly once.
TEST(ReferenceSpring, EndOfInputReportsThePendingCandidate) {
  const StreamData s = hand_stream({5, 0, 1.5f, 1, 5, 0.5f, 1}, kHandStartNs);
  const RawMatch first = expected(s, "p", 0.25, 1, 2), second = expected(s, "p", 0.25, 5, 6);
  for (int how = 0; how < 3; ++how) {
    auto matcher = reference::make_matcher();
    matcher->add_stream(s.def());
    matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0));
    const StreamChunk c = s.chunk(0, s.length());
    const auto got = matcher->process(std::span<const StreamChunk>(&c, 1));
    ASSERT_EQ(got.size(), 1u) << describe(got);
    EXPECT_EQ(got[0], first);
    std::vector<RawMatch> end;
    if (how == 0) {
      end = matcher->flush();
      EXPECT_TRUE(matcher->flush().empty()) << "a flushed candidate is reported once";
    } else if (how == 1) {
      end = matcher->remove_stream("s");
      EXPECT_FALSE(matcher->has_stream("s"));
      EXPECT_TRUE(matcher->flush().empty());
    } else {
      end = matcher->remove_pattern("p");
      EXPECT_FALSE(matcher->has_pattern("p"));
      EXPECT_TRUE(matcher->flush().empty());
    }
    ASSERT_EQ(end.size(), 1u) << "how=" << how << "\n" << describe(end);
    EXPECT_EQ(end[0], second) << "how=" << how;
  }
}

// Multivariate hand case, d = 2, abs cost, pattern (0,0) (1,1), threshold 0.5:
// stream (3,3) (0,0.25) (1,1) (3,3). Columns (c1 = |x|_1, c2 = |x - (1,1)|_1):
//  t=1 (3,3):     c 6, 4      D1 6 S1, D2 10 S1
//  t=2 (0,.25):   c .25, 1.75 D1 .25 S2, D2 1.75+.25 = 2 S2
//  t=3 (1,1):     c 2, 0      D1 2 S3, D2 0 + min(2, .25, 2) = .25 S2   cand (.25, 2, 3)
//  t=4 (3,3):     c 6, 4      D1 6 S4, D2 4 + min(6, 2, .25) = 4.25 S2: REPORT (.25, 2, 3)
// 0-based (1, 2, 0.25).
TEST(ReferenceSpring, HandWorkedMultivariateAbs) {
  StreamData s;
  s.id = "mv";
  s.dims = 2;
  s.values = {3, 3, 0, 0.25f, 1, 1, 3, 3};
  s.ts = {5, 6, 7, 8};
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  matcher->add_pattern(make_pattern("q", 2, {0, 0, 1, 1}, Metric::dtw, Cost::abs, 0.5));
  const auto got = feed_one_by_one(*matcher, s);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].first, 3u);
  EXPECT_EQ(got[0].second, expected(s, "q", 0.25, 1, 2)) << describe(got[0].second);
}

// =================================================================================
// Brute force: with a huge threshold, the smallest reported distance (after flush) is
// the smallest distance over all subsequences; reports never overlap and each reported
// distance is at least the whole-series distance of its own subsequence.
TEST(ReferenceSpring, BruteForceMinimumOverSubsequences) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 12), plen(2, 4);
  int runs = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const std::size_t d = trial % 2 ? 2 : 1, n = len(rng), m = plen(rng);
    const StreamData s = random_stream(rng, kSpringStreams, "s", d, n);
    const std::vector<float> pv = random_values(rng, m * d);
    for (Metric metric : {Metric::dtw, Metric::dk}) {
      for (Cost cost : {Cost::sq, Cost::abs}) {
        auto matcher = reference::make_matcher();
        matcher->add_stream(s.def());
        const PatternDef p = make_pattern("p", d, pv, metric, cost, 1e30);
        matcher->add_pattern(p);
        const auto got = feed(*matcher, {s}, Partition::one_big, rng);
        ASSERT_FALSE(got.empty());
        double brute = std::numeric_limits<double>::infinity();
        for (std::size_t a = 0; a < n; ++a) {
          for (std::size_t b = a; b < n; ++b) {
            const SeriesView sub{s.values.data() + a * d, b - a + 1, d, nullptr};
            brute = std::min(brute, metric == Metric::dtw ? reference::dtw(sub, p.view(), cost)
                                                          : reference::dk(sub, p.view(), cost));
          }
        }
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t i = 0; i < got.size(); ++i) {
          const auto& r = got[i];
          best = std::min(best, r.distance);
          ASSERT_LE(r.start_index, r.end_index);
          ASSERT_LT(r.end_index, n);
          if (i > 0) {
            EXPECT_GT(r.start_index, got[i - 1].end_index) << "matches never overlap";
          }
          const SeriesView sub{s.values.data() + r.start_index * d, r.end_index - r.start_index + 1,
                               d, nullptr};
          const double whole = metric == Metric::dtw ? reference::dtw(sub, p.view(), cost)
                                                     : reference::dk(sub, p.view(), cost);
          EXPECT_GE(r.distance, whole * (1 - 1e-5) - 1e-6) << describe(r);
          EXPECT_EQ(r.start_ns, s.ts[r.start_index]);
          EXPECT_EQ(r.end_ns, s.ts[r.end_index]);
        }
        EXPECT_NEAR(best, brute, 1e-5 * brute + 1e-6)
            << "metric " << to_string(metric) << " cost " << to_string(cost) << " n=" << n
            << " m=" << m << " d=" << d << "\n"
            << describe(got);
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 600);
}

// The literal float32 simulation of docs/spec.md §3.1 and the reference agree bit for bit:
// same starts, ends, timestamps and float distances.
TEST(ReferenceSpring, MatchesLiteralSimulation) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const double quantiles[] = {0.001, 0.01, 0.05, 0.2};
  std::uniform_int_distribution<int> pick(0, 3);
  std::size_t total = 0;
  for (Metric metric : {Metric::dtw, Metric::dk}) {
    for (Cost cost : {Cost::sq, Cost::abs}) {
      for (std::size_t d : {1u, 3u}) {
        for (std::size_t m : {2u, 3u, 5u, 31u, 32u, 33u}) {
          for (int rep = 0; rep < 2; ++rep) {
            const std::vector<float> pv = random_values(rng, m * d);
            const StreamData s = random_stream(rng, kSpringStreams, "s", d, 300 + 10 * m, &pv);
            PatternDef p = make_pattern("p", d, pv, metric, cost, 0.0);
            p.params.threshold = quantile_threshold(p, s, quantiles[pick(rng)]);
            SpringSim sim(p, s);
            const auto want = sim.run(s.length(), true);
            auto matcher = reference::make_matcher();
            matcher->add_stream(s.def());
            matcher->add_pattern(p);
            const auto got = feed(*matcher, {s}, Partition::random_sizes, rng);
            std::ostringstream what;
            what << "metric " << to_string(metric) << " cost " << to_string(cost) << " d=" << d
                 << " m=" << m << " threshold " << p.params.threshold;
            ASSERT_FALSE(want.empty()) << what.str();
            expect_same_matches(got, want, what.str());
            total += want.size();
          }
        }
      }
    }
  }
  EXPECT_GT(total, 96u);
}

// Any partition of the streams into batches gives the same matches: several streams
// (d = 1 and d = 3) and patterns (dtw/dk, sq/abs) at once.
TEST(ReferenceSpring, ChunkingInvariance) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::vector<PatternDef> patterns;
  const std::vector<float> p1 = random_values(rng, 6), p2 = random_values(rng, 4),
                           p3 = random_values(rng, 5 * 3), p4 = random_values(rng, 33 * 3);
  patterns.push_back(make_pattern("p1", 1, p1, Metric::dtw, Cost::sq, 0));
  patterns.push_back(make_pattern("p2", 1, p2, Metric::dk, Cost::abs, 0));
  patterns.push_back(make_pattern("p3", 3, p3, Metric::dtw, Cost::abs, 0));
  patterns.push_back(make_pattern("p4", 3, p4, Metric::dk, Cost::sq, 0));
  std::vector<StreamData> streams;
  streams.push_back(random_stream(rng, kSpringStreams, "a", 1, 400, &p1));
  streams.push_back(random_stream(rng, kSpringStreams, "b", 3, 350, &p3));
  streams.push_back(random_stream(rng, kSpringStreams, "c", 1, 300, &p2));
  // Thresholds at a low quantile of the first stream of the pattern's dimension.
  for (auto& p : patterns)
    p.params.threshold = quantile_threshold(p, p.dims == 1 ? streams[0] : streams[1], 0.05);

  auto run = [&](Partition partition) {
    auto matcher = reference::make_matcher();
    for (const auto& s : streams) matcher->add_stream(s.def());
    for (const auto& p : patterns) matcher->add_pattern(p);
    return sorted(feed(*matcher, streams, partition, rng));
  };
  const auto big = run(Partition::one_big);
  ASSERT_GT(big.size(), 10u);
  // Every pair that exists has its matches, and they are the simulation's.
  expect_same_matches(big, simulate_all_pairs<SpringSim>(streams, patterns),
                      "one big chunk vs simulation");
  expect_same_matches(run(Partition::one_sample), big, "one sample per chunk");
  for (int rep = 0; rep < 3; ++rep)
    expect_same_matches(run(Partition::random_sizes), big, "random chunks");
}

// Adding a pattern and a stream, removing another pattern and another stream mid-way
// leaves the existing pair's matches as they were; the new pairs start at the stream's
// next sample; the removed pairs report their pending candidates on removal.
TEST(ReferenceSpring, UnchangedPairsKeepTheirState) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (int rep = 0; rep < 4; ++rep) {
    const std::vector<float> pv = random_values(rng, 7), qv = random_values(rng, 4),
                             rv = random_values(rng, 5);
    StreamData s = random_stream(rng, kSpringStreams, "s", 1, 500, &pv);
    // Plant q and r too so that every pair has matches.
    {
      const StreamData tmp_q = random_stream(rng, kSpringStreams, "x", 1, 500, &qv);
      for (std::size_t i = 300; i < 500; ++i) s.values[i] = tmp_q.values[i];
      const StreamData tmp_r = random_stream(rng, kSpringStreams, "x", 1, 250, &rv);
      for (std::size_t i = 0; i < 250; ++i) s.values[i] = 0.5f * (s.values[i] + tmp_r.values[i]);
    }
    const StreamData s2 = random_stream(rng, kSpringStreams, "s2", 1, 300, &qv);
    const StreamData s3 = random_stream(rng, kSpringStreams, "s3", 1, 260, &pv);
    PatternDef p = make_pattern("p", 1, pv, Metric::dtw, Cost::sq, 0);
    PatternDef q = make_pattern("q", 1, qv, Metric::dk, Cost::abs, 0);
    PatternDef r = make_pattern("r", 1, rv, Metric::dtw, Cost::abs, 0);
    p.params.threshold = quantile_threshold(p, s, 0.05);
    q.params.threshold = quantile_threshold(q, s, 0.05);
    r.params.threshold = quantile_threshold(r, s, 0.05);
    const std::size_t K = 250;  // the change happens after K samples of s

    // A: never sees a change.
    auto a = reference::make_matcher();
    a->add_stream(s.def());
    a->add_pattern(p);
    const auto a_matches = feed(*a, {s}, Partition::random_sizes, rng);

    // B: s, s3 and patterns p, r; after K samples of s (and all of s3's first K):
    // add q and s2, remove r and s3.
    auto b = reference::make_matcher();
    b->add_stream(s.def());
    b->add_stream(s3.def());
    b->add_pattern(p);
    b->add_pattern(r);
    StreamData s_head = s, s3_head = s3;
    s_head.values.resize(K);
    s_head.ts.resize(K);
    s3_head.values.resize(K < s3.length() ? K : s3.length());
    s3_head.ts.resize(s3_head.values.size());
    std::vector<RawMatch> b_matches =
        feed(*b, {s_head, s3_head}, Partition::random_sizes, rng, false);
    b->add_pattern(q);
    b->add_stream(s2.def());
    const auto removed_r = b->remove_pattern("r");
    const auto removed_s3 = b->remove_stream("s3");
    b_matches.insert(b_matches.end(), removed_r.begin(), removed_r.end());
    b_matches.insert(b_matches.end(), removed_s3.begin(), removed_s3.end());
    // The rest of s, from index K, and all of s2 (the two chunk lists are fed together).
    {
      std::vector<RawMatch> rest;
      std::size_t i = K, j = 0;
      std::uniform_int_distribution<std::size_t> size(0, 9);
      while (i < s.length() || j < s2.length()) {
        const std::size_t ni = std::min(size(rng), s.length() - i),
                          nj = std::min(size(rng), s2.length() - j);
        const StreamChunk batch[] = {s.chunk(i, i + ni), s2.chunk(j, j + nj)};
        auto got = b->process(batch);
        EXPECT_TRUE(std::is_sorted(got.begin(), got.end(), match_less));
        b_matches.insert(b_matches.end(), got.begin(), got.end());
        i += ni;
        j += nj;
      }
      auto got = b->flush();
      b_matches.insert(b_matches.end(), got.begin(), got.end());
    }

    expect_same_matches(select(b_matches, "s", "p"), a_matches, "unchanged pair (s, p)");
    ASSERT_FALSE(a_matches.empty());

    // q on s starts at index K; q on s2 at 0.
    SpringSim q_on_s(q, s, K);
    expect_same_matches(select(b_matches, "s", "q"), q_on_s.run(s.length(), true),
                        "(s, q) added mid-way");
    SpringSim q_on_s2(q, s2);
    expect_same_matches(select(b_matches, "s2", "q"), q_on_s2.run(s2.length(), true), "(s2, q)");
    // r on s ran K samples and was flushed on removal; the pairs of s3 likewise.
    SpringSim r_on_s(r, s);
    const auto r_want = r_on_s.run(K, true);
    expect_same_matches(select(b_matches, "s", "r"), r_want, "(s, r) removed mid-way");
    SpringSim p_on_s3(p, s3);
    SpringSim r_on_s3(r, s3);
    expect_same_matches(select(b_matches, "s3", "p"), p_on_s3.run(s3_head.length(), true),
                        "(s3, p)");
    // r was removed before s3: its pending candidate on s3 came with remove_pattern.
    expect_same_matches(select(b_matches, "s3", "r"), r_on_s3.run(s3_head.length(), true),
                        "(s3, r)");
    // What remove_* returned is exactly the pending candidates of the removed pairs.
    for (const auto& m : removed_r) EXPECT_EQ(m.pattern_id(), "r");
    for (const auto& m : removed_s3) {
      EXPECT_EQ(m.stream_id(), "s3");
      EXPECT_EQ(m.pattern_id(), "p");  // r was already gone
    }
  }
}

// A pattern added after the stream has samples starts at the stream's next sample:
// a match that would need an earlier sample is not found. Pattern {0, 1}, stream
// {0, 1, 5, 0, 1, 5}: added after the first sample, only (3, 4) is reported.
TEST(ReferenceSpring, PatternAddedLaterStartsAtTheNextSample) {
  const StreamData s = hand_stream({0, 1, 5, 0, 1, 5}, kHandStartNs);
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  const StreamChunk c0 = s.chunk(0, 1);
  EXPECT_TRUE(matcher->process(std::span<const StreamChunk>(&c0, 1)).empty());
  matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 0.5));
  const StreamChunk rest = s.chunk(1, s.length());
  auto got = matcher->process(std::span<const StreamChunk>(&rest, 1));
  auto tail = matcher->flush();
  got.insert(got.end(), tail.begin(), tail.end());
  // From index 1: x = 1 5 0 1 5. (1) alone costs c(1,0) + c(1,1) = 1 > 0.5 for dtw
  // (both pattern samples must be aligned), (0,1) at 3..4 costs 0.
  ASSERT_EQ(got.size(), 1u) << describe(got);
  EXPECT_EQ(got[0], expected(s, "p", 0.0, 3, 4));
}

// =================================================================================
// Errors (std::invalid_argument).

TEST(ReferenceSpring, InvalidStreamsAndPatternsThrow) {
  auto matcher = reference::make_matcher();
  matcher->add_stream(StreamDef{"s", 1, 1'000'000'000});
  EXPECT_THROW(matcher->add_stream(StreamDef{"s", 1, 1'000'000'000}), std::invalid_argument);
  EXPECT_THROW(matcher->add_stream(StreamDef{"zero", 0, 1'000'000'000}), std::invalid_argument);
  EXPECT_THROW(matcher->add_stream(StreamDef{"big", 65, 1'000'000'000}), std::invalid_argument);
  EXPECT_NO_THROW(matcher->add_stream(StreamDef{"d64", 64, 1'000'000'000}));

  matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0));
  EXPECT_THROW(matcher->add_pattern(make_pattern("p", 1, {0, 1, 2}, Metric::dtw, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("short", 1, {0}, Metric::dtw, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("short2", 2, {0, 1}, Metric::dtw, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("empty", 1, {}, Metric::dtw, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(
      matcher->add_pattern(make_pattern("nan", 1, {0, std::numeric_limits<float>::quiet_NaN()},
                                        Metric::dtw, Cost::sq, 1.0)),
      std::invalid_argument);
  EXPECT_THROW(
      matcher->add_pattern(make_pattern("inf", 1, {std::numeric_limits<float>::infinity(), 0},
                                        Metric::dk, Cost::sq, 1.0)),
      std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("tw", 1, {0, 1}, Metric::twed, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("sd", 1, {0, 1}, Metric::softdtw, Cost::sq, 1.0)),
               std::invalid_argument);
  EXPECT_THROW(matcher->add_pattern(make_pattern("thr", 1, {0, 1}, Metric::dtw, Cost::sq,
                                                 std::numeric_limits<double>::infinity())),
               std::invalid_argument);
  PatternDef hop0 = make_pattern("hop0", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0);
  hop0.params.hop = 0;
  EXPECT_THROW(matcher->add_pattern(hop0), std::invalid_argument);
  // Rejected patterns were not added.
  for (const char* id : {"short", "short2", "empty", "nan", "inf", "tw", "sd", "thr", "hop0"})
    EXPECT_FALSE(matcher->has_pattern(id)) << id;
  EXPECT_TRUE(matcher->has_pattern("p"));

  EXPECT_THROW(matcher->remove_stream("nope"), std::invalid_argument);
  EXPECT_THROW(matcher->remove_pattern("nope"), std::invalid_argument);
}

TEST(ReferenceSpring, InvalidChunksThrowAndLeaveTheStateAlone) {
  const StreamData s = hand_stream({5, 0, 1.5f, 1, 5, 0.5f, 1, 5}, kHandStartNs);
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  matcher->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0));

  const std::vector<float> one{1.0f}, two{1.0f, 2.0f};
  const std::vector<std::int64_t> t1{1}, t_dup{5, 5};
  auto process = [&](StreamChunk c) {
    return matcher->process(std::span<const StreamChunk>(&c, 1));
  };
  EXPECT_THROW(process(StreamChunk{"unknown", one, t1}), std::invalid_argument);
  EXPECT_THROW(process(StreamChunk{"s", two, t1}), std::invalid_argument);  // 2 values, 1 timestamp
  EXPECT_THROW(process(StreamChunk{"s", one, t_dup}), std::invalid_argument);
  const std::array<StreamChunk, 2> twice{StreamChunk{"s", one, t1}, StreamChunk{"s", one, t1}};
  EXPECT_THROW(matcher->process(twice), std::invalid_argument);  // one chunk per stream

  // The rejected chunks changed nothing: the whole stream gives the hand-worked matches.
  std::vector<RawMatch> got = process(s.chunk(0, 4));
  auto rest = process(s.chunk(4, s.length()));
  got.insert(got.end(), rest.begin(), rest.end());
  ASSERT_EQ(got.size(), 2u) << describe(got);
  EXPECT_EQ(got[0], expected(s, "p", 0.25, 1, 2));
  EXPECT_EQ(got[1], expected(s, "p", 0.25, 5, 6));

  // A stream that was removed is unknown.
  matcher->remove_stream("s");
  EXPECT_THROW(process(s.chunk(0, 1)), std::invalid_argument);
}

// Samples out of order or not finite never reach a Matcher from the daemon or the CLI:
// the stream layer drops and counts them (test_validator.cpp). A caller that passes them
// anyway has a bug, which the Matcher stops at (WW_ASSERT) instead of matching garbage.
TEST(ReferenceSpringDeathTest, SamplesTheStreamLayerRejectsAreACallersBug) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const StreamData s = hand_stream({5, 0, 1.5f, 1}, kHandStartNs);
  auto fresh = [&] {
    auto m = reference::make_matcher();
    m->add_stream(s.def());
    m->add_pattern(make_pattern("p", 1, {0, 1}, Metric::dtw, Cost::sq, 1.0));
    m->process(std::vector<StreamChunk>{s.chunk(0, 4)});
    return m;
  };
  const std::vector<float> two{1.0f, 2.0f}, one{0.0f}, nan{std::numeric_limits<float>::quiet_NaN()};
  const std::vector<std::int64_t> t_dup{s.ts[3] + 5, s.ts[3] + 5}, t_down{s.ts[3] + 6, s.ts[3] + 4};
  const std::vector<std::int64_t> same{s.ts[3]}, before{s.ts[3] - 1}, later{s.ts[3] + 1};
  const char* why = "internal error.*timestamps that do not increase";
  EXPECT_DEATH(fresh()->process(std::vector<StreamChunk>{{"s", two, t_dup}}),
               why);  // equal timestamps
  EXPECT_DEATH(fresh()->process(std::vector<StreamChunk>{{"s", two, t_down}}), why);  // decreasing
  EXPECT_DEATH(fresh()->process(std::vector<StreamChunk>{{"s", one, same}}),
               why);  // not after the last
  EXPECT_DEATH(fresh()->process(std::vector<StreamChunk>{{"s", one, before}}), why);
  EXPECT_DEATH(fresh()->process(std::vector<StreamChunk>{{"s", nan, later}}), "non-finite values");
}
