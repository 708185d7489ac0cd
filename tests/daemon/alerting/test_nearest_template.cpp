// The nearest-template filter (docs/spec.md §5.1, alerting/nearest_template.hpp): on
// hand-made matches (overlap chains, ties, thresholds of 0 and below, libraries that are not
// exclusive), and on the Matcher's matches of a planted stream fed in every chunking, with
// Matcher::settled_before on the reference and cpu backends.
#include "warpwatch/alerting/nearest_template.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "matching/matcher_test_support.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using alerting::NearestTemplate;
using kernels::RawMatch;

kernels::PatternRef pattern(const std::string& id, double threshold,
                            const std::string& library = "L") {
  kernels::PatternDef p;
  p.id = id;
  p.params.threshold = threshold;
  p.library = library;
  return kernels::make_pattern(std::move(p));
}

RawMatch match(const kernels::PatternRef& p, double distance, std::uint64_t start,
               std::uint64_t end, const std::string& stream = "s") {
  kernels::StreamDef def;
  def.id = stream;
  return {stream::make_stream(def),      p, distance, start, end, static_cast<std::int64_t>(start),
          static_cast<std::int64_t>(end)};
}

std::vector<std::string> names(const std::vector<RawMatch>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms)
    out.push_back(m.pattern_id() + "[" + std::to_string(m.start_index) + "," +
                  std::to_string(m.end_index) + "]");
  return out;
}

NearestTemplate exclusive_of(std::set<std::string, std::less<>> libraries) {
  NearestTemplate f;
  std::vector<RawMatch> none;
  f.set_exclusive(std::move(libraries), none);
  return f;
}

TEST(NearestTemplate, HoldsUntilSettledThenPublishesTheClosestOverItsThreshold) {
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 10.0), b = pattern("b", 2.0);
  std::vector<RawMatch> out;
  // a: 5 / 10 = 0.5; b: 0.8 / 2 = 0.4, the smaller distance loses to the smaller ratio.
  f.offer({match(a, 5.0, 10, 20), match(b, 0.8, 15, 25)}, out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(f.holding(), std::vector<std::string>{"s"});
  f.settle("s", 21, out);  // a is settled, b (ending at 25) is not: b could still lose or win
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(f.held_count(), 2u);
  f.settle("s", 26, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"b[15,25]"});
  EXPECT_EQ(f.superseded().at("L"), 1u);
  EXPECT_EQ(f.held_count(), 0u);
  EXPECT_TRUE(f.holding().empty());
}

TEST(NearestTemplate, AChainIsResolvedGreedilyInKeyOrder) {
  // a1 < b1 < a2 in key; b1 overlaps both, a1 and a2 do not overlap. a1 is published, b1
  // superseded by it, and a2, whose only rival b1 is superseded, is published: a superseded
  // match suppresses nothing.
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 1.0), b = pattern("b", 1.0);
  std::vector<RawMatch> out;
  f.offer({match(a, 0.1, 0, 10), match(b, 0.2, 8, 20), match(a, 0.3, 18, 30)}, out);
  f.settle("s", 31, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"a[0,10]", "a[18,30]"}));
  EXPECT_EQ(f.superseded().at("L"), 1u);
}

TEST(NearestTemplate, TheOutcomeDoesNotDependOnWhenMatchesArrive) {
  // The chain above offered one match at a time with the settled index advancing.
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 1.0), b = pattern("b", 1.0);
  std::vector<RawMatch> out;
  f.offer({match(a, 0.1, 0, 10)}, out);
  f.settle("s", 8, out);  // b1 may still come (it starts at 8)
  EXPECT_TRUE(out.empty());
  f.offer({match(b, 0.2, 8, 20)}, out);
  f.settle("s", 12, out);  // a1 settled and closest of its rivals: published, b1 superseded
  EXPECT_EQ(names(out), std::vector<std::string>{"a[0,10]"});
  f.offer({match(a, 0.3, 18, 30)}, out);
  f.settle("s", 40, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"a[0,10]", "a[18,30]"}));
}

TEST(NearestTemplate, TiesGoToTheEarlierEndThenTheSmallerPatternId) {
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 2.0), b = pattern("b", 4.0), c = pattern("c", 1.0);
  std::vector<RawMatch> out;
  // Equal ratios (0.5): b ends first and wins over a and c.
  f.offer({match(a, 1.0, 0, 12), match(b, 2.0, 2, 10), match(c, 0.5, 4, 12)}, out);
  f.flush("s", out);
  EXPECT_EQ(names(out), std::vector<std::string>{"b[2,10]"});
  // Equal ratios and ends: the smaller pattern id.
  out.clear();
  f.offer({match(c, 0.5, 0, 10), match(a, 1.0, 3, 10)}, out);
  f.flush("s", out);
  EXPECT_EQ(names(out), std::vector<std::string>{"a[3,10]"});
  EXPECT_EQ(f.superseded().at("L"), 3u);
}

TEST(NearestTemplate, MatchesOfOnePatternDoNotSupersedeEachOther) {
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 1.0);
  std::vector<RawMatch> out;
  f.offer({match(a, 0.5, 0, 10), match(a, 0.2, 5, 15)}, out);
  f.flush(out);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_TRUE(f.superseded().empty());
}

TEST(NearestTemplate, ThresholdsOfZeroOrBelowCompareDistanceMinusThreshold) {
  EXPECT_DOUBLE_EQ(alerting::closeness(match(pattern("a", 4.0), 1.0, 0, 1)), 0.25);
  EXPECT_DOUBLE_EQ(alerting::closeness(match(pattern("z", 0.0), 0.0, 0, 1)), 0.0);
  EXPECT_DOUBLE_EQ(alerting::closeness(match(pattern("n", -2.0), -3.0, 0, 1)), -1.0);
  NearestTemplate f = exclusive_of({"L"});
  std::vector<RawMatch> out;
  // An exact match at threshold 0 (0) beats 1 / 4 = 0.25; -1 beats both.
  f.offer({match(pattern("a", 4.0), 1.0, 0, 10), match(pattern("z", 0.0), 0.0, 2, 12)}, out);
  f.flush(out);
  EXPECT_EQ(names(out), std::vector<std::string>{"z[2,12]"});
  out.clear();
  f.offer({match(pattern("z", 0.0), 0.0, 0, 10), match(pattern("n", -2.0), -3.0, 5, 15)}, out);
  f.flush(out);
  EXPECT_EQ(names(out), std::vector<std::string>{"n[5,15]"});
}

TEST(NearestTemplate, OtherLibrariesAndStreamsPassOrWaitApart) {
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 1.0), b = pattern("b", 1.0);
  const auto m = pattern("m", 1.0, "M");  // a library that is not exclusive
  std::vector<RawMatch> out;
  f.offer(
      {match(a, 0.5, 0, 10), match(m, 0.9, 0, 10), match(b, 0.1, 0, 10, "t"), match(m, 0.1, 2, 8)},
      out);
  // M's matches pass at once, in order; a and b are on different streams: no rivals.
  EXPECT_EQ(names(out), (std::vector<std::string>{"m[0,10]", "m[2,8]"}));
  EXPECT_EQ(f.holding(), (std::vector<std::string>{"s", "t"}));
  f.settle("t", 11, out);
  EXPECT_EQ(names(out), (std::vector<std::string>{"m[0,10]", "m[2,8]", "b[0,10]"}));
  // L is no longer exclusive: what it held is decided (a has no rival left) and passes.
  f.set_exclusive({}, out);
  EXPECT_EQ(out.size(), 4u);
  EXPECT_EQ(out.back().pattern_id(), "a");
  EXPECT_FALSE(f.active());
}

TEST(NearestTemplate, HeldMatchesCanBeTakenOutAndGivenBack) {
  NearestTemplate f = exclusive_of({"L"});
  const auto a = pattern("a", 1.0), b = pattern("b", 1.0);
  std::vector<RawMatch> out;
  f.offer({match(a, 0.5, 0, 10), match(b, 0.2, 4, 14)}, out);
  const std::vector<RawMatch> held = f.held("s");
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].pattern_id(), "b");  // key order
  f.forget("s");
  EXPECT_EQ(f.held_count(), 0u);
  NearestTemplate g = exclusive_of({"L"});
  g.restore("s", held, out);
  EXPECT_TRUE(out.empty());
  g.settle("s", 20, out);
  EXPECT_EQ(names(out), std::vector<std::string>{"b[4,14]"});
}

// --- through the Matcher: a stream with planted copies of two patterns of one exclusive
// library, each within the other's threshold on every copy, fed in every chunking.

struct Planted2 {
  Series series;
  std::vector<kernels::PatternDef> patterns;
  std::vector<std::pair<std::string, std::size_t>> copies;  // pattern id, start
};

// `a` is the bump; `b` the bump at 0.7 of its amplitude. Copies of each, time-warped in
// stream mode (exact in window mode, whose windows are the pattern's length).
Planted2 planted(kernels::Mode mode) {
  std::mt19937_64 rng(test_seed());
  std::vector<float> a = bump_pattern<float>(), b = a;
  for (float& x : b) x *= 0.7f;
  Planted2 p;
  p.copies = {{"a", 200}, {"b", 550}, {"a", 900}, {"b", 1250}};
  std::vector<std::pair<std::size_t, std::size_t>> at;
  for (const auto& [id, start] : p.copies) at.emplace_back(id == "a" ? 0 : 1, start);
  p.series = make_series("s", 1500, {a, b}, at, rng, mode == kernels::Mode::stream);
  // A copy of one scores about 0.1..2 against itself, about 5..15 against the other; noise
  // elsewhere scores far above 40.
  const double threshold = mode == kernels::Mode::stream ? 40.0 : 30.0;
  p.patterns = {make_pattern("a", a, mode, threshold), make_pattern("b", b, mode, threshold)};
  for (auto& def : p.patterns) def.library = "L";
  return p;
}

// The filtered events of `p` fed in chunks of `chunk` samples (0: whole), with the
// filter settled after every batch; checks settled_before's promise on the way: no match
// reported later starts before what it said.
std::vector<RawMatch> run_filtered(kernels::Backend backend, const Planted2& p, std::size_t chunk,
                                   std::uint64_t& raw_count) {
  auto matcher = kernels::make_matcher(backend, {});
  for (const auto& def : p.patterns) matcher->add_pattern(def);
  matcher->add_stream(kernels::StreamDef{"s", 1, kPeriod});
  NearestTemplate f = exclusive_of({"L"});
  std::vector<RawMatch> out;
  std::uint64_t promised = 0;
  const std::size_t n = p.series.values.size();
  const std::size_t step = chunk ? chunk : n;
  const std::vector<std::string> ids{"s"};
  for (std::size_t at = 0;; at += step) {
    const std::size_t count = std::min(step, n - std::min(at, n));
    std::vector<RawMatch> got;
    if (at < n) {
      const kernels::StreamChunk c{"s", std::span(p.series.values).subspan(at, count),
                                   std::span(p.series.times).subspan(at, count)};
      got = matcher->process(std::span(&c, 1));
    } else {
      got = matcher->flush();
    }
    for (const RawMatch& m : got) EXPECT_GE(m.start_index, promised) << describe(m);
    raw_count += got.size();
    f.offer(std::move(got), out);
    if (at >= n) {
      f.flush(out);
      break;
    }
    const std::uint64_t settled = matcher->settled_before(ids).at(0);
    EXPECT_LE(settled, at + count);  // at most the next index
    EXPECT_GE(settled, promised);    // never moves back
    promised = settled;
    f.settle("s", settled, out);
  }
  std::sort(out.begin(), out.end(), match_less);
  return out;
}

void expect_one_event_per_copy(kernels::Backend backend, kernels::Mode mode) {
  const Planted2 p = planted(mode);
  std::uint64_t raw = 0;
  const std::vector<RawMatch> whole = run_filtered(backend, p, 0, raw);
  // Both patterns matched every copy; only the copy's own pattern is published.
  EXPECT_EQ(raw, 8u) << describe(whole);
  ASSERT_EQ(whole.size(), 4u) << describe(whole);
  std::vector<std::pair<std::string, std::size_t>> got;
  for (const RawMatch& m : whole) got.emplace_back(m.pattern_id(), m.start_index);
  std::sort(got.begin(), got.end());
  std::vector<std::pair<std::string, std::size_t>> want = p.copies;
  std::sort(want.begin(), want.end());
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(got[k].first, want[k].first);
    // Stream mode: the warped copy's own start; window mode: the window on the copy.
    EXPECT_NEAR(static_cast<double>(got[k].second), static_cast<double>(want[k].second), 2.0);
  }
  for (const std::size_t chunk : {1u, 7u, 64u}) {
    std::uint64_t raw_chunked = 0;
    const std::vector<RawMatch> chunked = run_filtered(backend, p, chunk, raw_chunked);
    EXPECT_EQ(raw_chunked, raw);
    ASSERT_EQ(chunked.size(), whole.size()) << "chunk " << chunk << "\n" << describe(chunked);
    for (std::size_t k = 0; k < whole.size(); ++k)
      EXPECT_EQ(chunked[k], whole[k]) << "chunk " << chunk;
  }
}

TEST(NearestTemplateMatcher, StreamModeOneEventPerCopyInEveryChunkingReference) {
  expect_one_event_per_copy(kernels::Backend::reference, kernels::Mode::stream);
}
TEST(NearestTemplateMatcher, StreamModeOneEventPerCopyInEveryChunkingCpu) {
  expect_one_event_per_copy(kernels::Backend::cpu, kernels::Mode::stream);
}
TEST(NearestTemplateMatcher, WindowModeOneEventPerCopyInEveryChunkingReference) {
  expect_one_event_per_copy(kernels::Backend::reference, kernels::Mode::window);
}
TEST(NearestTemplateMatcher, WindowModeOneEventPerCopyInEveryChunkingCpu) {
  expect_one_event_per_copy(kernels::Backend::cpu, kernels::Mode::window);
}

TEST(NearestTemplateMatcher, SettledBeforeNeedsNoBatchOutstandingAndAKnownStream) {
  auto matcher = kernels::make_matcher(kernels::Backend::cpu, {});
  matcher->add_stream(kernels::StreamDef{"s", 1, kPeriod});
  const std::vector<std::string> unknown{"nope"};
  EXPECT_THROW(matcher->settled_before(unknown), std::invalid_argument);
  const std::vector<std::string> ids{"s"};
  EXPECT_EQ(matcher->settled_before(ids), std::vector<std::uint64_t>{0});
  const std::vector<float> v{1, 2, 3};
  const std::vector<std::int64_t> t{1, 2, 3};
  const kernels::StreamChunk c{"s", v, t};
  matcher->submit(std::span(&c, 1));
  EXPECT_THROW(matcher->settled_before(ids), std::logic_error);
  matcher->collect();
  EXPECT_EQ(matcher->settled_before(ids), std::vector<std::uint64_t>{3});  // no pattern
}

}  // namespace
