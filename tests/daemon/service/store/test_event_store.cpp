// The event store and the recent history (daemon/service/store/) inside a real Pipeline fed
// through its hub: each event's segment is the samples fed at the match's indices plus the
// context, its pattern as matched (a reload's new version beside the old copy); the bounds
// by count and bytes evict the oldest and count it; the filters; the history's bounds and
// samples(since, limit); the checkpoint keeps the events over a restart (and a version-1
// file still loads); readers on another thread while rounds run.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/service/event_store.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/recent_history.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using Stored = std::shared_ptr<const service::StoredEvent>;

constexpr std::size_t kLength = 300;
constexpr float kBackground = 20.0f;  // far from every pattern value: matches are exact copies

kernels::PatternDef ramp(double threshold = 1.0) {
  return make_pattern("ramp", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, kernels::Mode::stream, threshold);
}
kernels::PatternDef falling() {
  return make_pattern("falling", {40, 36, 32, 28, 24, 30}, kernels::Mode::stream, 1.0);
}

// kBackground with copies of `pattern`'s values starting at each of `starts`.
Series planted(std::string id, const kernels::PatternDef& pattern,
               const std::vector<std::size_t>& starts, std::size_t length = kLength,
               const Series* onto = nullptr) {
  Series s;
  if (onto) s = *onto;
  s.id = std::move(id);
  s.values.resize(length, kBackground);
  s.times.resize(length);
  for (std::size_t i = 0; i < length; ++i)
    s.times[i] = kT0 + static_cast<std::int64_t>(i) * kPeriod;
  for (const std::size_t start : starts)
    for (std::size_t k = 0; k < pattern.values.size(); ++k) s.values[start + k] = pattern.values[k];
  return s;
}

config::DaemonConfig config(std::vector<std::string> streams = {"s"},
                            std::vector<kernels::PatternDef> patterns = {ramp()}) {
  return base_config(std::move(streams), std::move(patterns));
}

// An offline Pipeline and its hub's source.
struct Offline {
  explicit Offline(config::DaemonConfig c, const CapturedLog& log)
      : p(std::move(c), log.logger(), options()),
        source(p.hub().add_source("test", stream::Overflow::wait)) {}
  static service::PipelineOptions options() {
    service::PipelineOptions o;
    o.offline = true;
    return o;
  }
  // Samples [from, to) of `s`, in chunks of `chunk`, matched.
  void feed(const Series& s, std::size_t from, std::size_t to, std::size_t chunk = 1000) {
    for (std::size_t at = from; at < to; at += chunk) {
      p.hub().offer_samples(source, s.id, slice(s, at, std::min(chunk, to - at)));
      p.run_queued();
    }
  }
  service::Pipeline p;
  stream::SourceId source;
};

std::vector<Stored> all_events(const service::Pipeline& p) {
  service::EventFilter everything;
  everything.limit = 1'000'000;
  return p.event_store().list(everything);
}

std::vector<std::uint64_t> sequences(const std::vector<Stored>& events) {
  std::vector<std::uint64_t> out;
  for (const Stored& e : events) out.push_back(e->event.sequence);
  return out;
}

// The segment is exactly the samples fed at its indices, and covers [start - before, end],
// at most `after` samples beyond.
void expect_segment_of(const service::StoredEvent& e, const Series& fed, std::size_t before,
                       std::size_t after) {
  SCOPED_TRACE("event " + std::to_string(e.event.sequence) + " [" +
               std::to_string(e.event.start_index) + ", " + std::to_string(e.event.end_index) +
               "]");
  EXPECT_EQ(e.first_index, e.event.start_index - before);
  ASSERT_EQ(e.segment.size(), e.segment_times_ns.size() * e.dims);
  ASSERT_GE(e.first_index + e.segment_times_ns.size(), e.event.end_index + 1);
  EXPECT_LE(e.first_index + e.segment_times_ns.size(), e.event.end_index + after + 1);
  EXPECT_FALSE(e.segment_partial);
  for (std::size_t i = 0; i < e.segment_times_ns.size(); ++i) {
    EXPECT_EQ(e.segment[i], fed.values.at(e.first_index + i)) << i;
    EXPECT_EQ(e.segment_times_ns[i], fed.times.at(e.first_index + i)) << i;
  }
}

TEST(EventStore, SegmentHoldsTheMatchedSamplesAndTheContextAndThePatternAsMatched) {
  CapturedLog log;
  Offline o(config(), log);
  const Series s = planted("s", ramp(), {50, 150, 250});
  o.feed(s, 0, kLength, 37);  // rounds that cut through the copies
  o.p.shutdown();
  const auto events = all_events(o.p);
  ASSERT_EQ(events.size(), 3u) << log.joined();
  EXPECT_EQ(sequences(events), (std::vector<std::uint64_t>{3, 2, 1})) << "newest first";
  const std::string version = service::pattern_version(ramp());
  EXPECT_EQ(version.size(), 16u);
  EXPECT_EQ(version.find_first_not_of("0123456789abcdef"), std::string::npos) << version;
  for (const Stored& e : events) {
    EXPECT_EQ(e->event.start_index, 50 + 100 * (e->event.sequence - 1));
    EXPECT_EQ(e->event.end_index, e->event.start_index + 9);
    // After: max(8, 10 / 2) under context_samples 256; before a stream-mode match 4 pattern
    // lengths (SPRING's replay, docs/spec.md §7).
    expect_segment_of(*e, s, 40, 8);
    EXPECT_EQ(e->pattern->values, ramp().values);
    EXPECT_EQ(e->pattern->params, ramp().params);
    EXPECT_EQ(e->pattern_version, version);
    EXPECT_EQ(e->pattern, events.front()->pattern) << "one copy per pattern version";
  }
  // The API's JSON: the event's fields, the segment a row a sample, the pattern.
  const Stored& first = events.back();
  const nlohmann::json brief = service::to_json(*first, false);
  EXPECT_EQ(brief.at("pattern"), "ramp");
  EXPECT_EQ(brief.at("pattern_version"), version);
  EXPECT_EQ(brief.at("id"), first->event.id);
  EXPECT_FALSE(brief.contains("segment"));
  const nlohmann::json full = service::to_json(*first, true);
  EXPECT_EQ(full.at("segment").at("first_index"), 10);
  EXPECT_EQ(full.at("segment").at("values").at(40), std::vector<float>{0.0f});
  EXPECT_EQ(full.at("segment").at("values").at(49), std::vector<float>{9.0f});
  EXPECT_EQ(full.at("segment").at("times_ns").at(0), s.times[10]);
  EXPECT_EQ(full.at("pattern").at("id"), "ramp");
  EXPECT_EQ(full.at("pattern").at("library"), "shapes");
  EXPECT_EQ(full.at("pattern").at("version"), version);
  EXPECT_EQ(full.at("pattern").at("metric"), "dtw");
  EXPECT_EQ(full.at("pattern").at("mode"), "stream");
  EXPECT_EQ(full.at("pattern").at("threshold"), 1.0);
  EXPECT_EQ(full.at("pattern").at("values").size(), 10u);
  // And back (the checkpoint's way).
  const service::StoredEvent back = service::stored_event_from_json(full);
  EXPECT_EQ(back.segment, first->segment);
  EXPECT_EQ(back.segment_times_ns, first->segment_times_ns);
  EXPECT_EQ(*back.pattern, *first->pattern);
  EXPECT_EQ(back.event.id, first->event.id);
}

// /metrics' value of `name` (-1 when absent).
double metric(const service::Pipeline& p, const std::string& name) {
  const auto metrics = parse_prometheus_text(service::render_metrics(p.metrics_snapshot()));
  const auto it = metrics.find(name);
  return it == metrics.end() ? -1 : it->second;
}

TEST(EventStore, BoundByCountEvictsTheOldestAndCountsIt) {
  CapturedLog log;
  auto c = config();
  c.event_store.max_events = 2;
  Offline o(c, log);
  const Series s = planted("s", ramp(), {50, 150, 250});
  o.feed(s, 0, 200);
  const std::vector<Stored> early = all_events(o.p);
  ASSERT_EQ(early.size(), 2u);
  o.feed(s, 200, kLength);
  o.p.shutdown();
  const auto events = all_events(o.p);
  EXPECT_EQ(sequences(events), (std::vector<std::uint64_t>{3, 2}));
  EXPECT_EQ(o.p.event_store().size(), 2u);
  EXPECT_EQ(o.p.event_store().evicted(), 1u);
  EXPECT_EQ(o.p.event_store().find(early.back()->event.id), nullptr) << "the oldest went";
  EXPECT_EQ(o.p.event_store().find(events.front()->event.id), events.front());
  EXPECT_EQ(o.p.event_store().find("no-such-id"), nullptr);
  EXPECT_EQ(early.back()->event.sequence, 1u) << "a reader's copy outlives its eviction";
  EXPECT_EQ(metric(o.p, "warpwatch_event_store_events"), 2.0);
  EXPECT_EQ(metric(o.p, "warpwatch_event_store_evicted_total"), 1.0);
  EXPECT_EQ(metric(o.p, "warpwatch_event_store_bytes"),
            static_cast<double>(o.p.event_store().bytes()));
}

TEST(EventStore, BoundByBytesEvictsTheOldestAndCountsIt) {
  CapturedLog log;
  const Series s = planted("s", ramp(), {50, 150, 250});
  std::size_t each = 0;
  {
    Offline unbounded(config(), log);
    unbounded.feed(s, 0, kLength);
    unbounded.p.shutdown();
    const auto events = all_events(unbounded.p);
    ASSERT_EQ(events.size(), 3u);
    for (const Stored& e : events) each = std::max(each, service::EventStore::bytes_of(*e));
    EXPECT_EQ(unbounded.p.event_store().bytes(), service::EventStore::bytes_of(*events[0]) +
                                                     service::EventStore::bytes_of(*events[1]) +
                                                     service::EventStore::bytes_of(*events[2]));
    // Strings, segment (26 samples of 12 bytes) and pattern (10 values) are in it.
    EXPECT_GT(each, sizeof(service::StoredEvent) + 26 * 12 + 10 * 4);
  }
  auto c = config();
  c.event_store.max_bytes = 2 * each + each / 2;  // room for two
  Offline o(c, log);
  o.feed(s, 0, kLength);
  o.p.shutdown();
  EXPECT_EQ(sequences(all_events(o.p)), (std::vector<std::uint64_t>{3, 2}));
  EXPECT_LE(o.p.event_store().bytes(), c.event_store.max_bytes);
  EXPECT_EQ(o.p.event_store().evicted(), 1u);
  // An event larger than the whole bound is not kept (and counted).
  c.event_store.max_bytes = each / 2;
  Offline tiny(c, log);
  tiny.feed(s, 0, kLength);
  tiny.p.shutdown();
  EXPECT_EQ(tiny.p.event_store().size(), 0u);
  EXPECT_EQ(tiny.p.event_store().evicted(), 3u);
  // 0 = off: nothing kept, nothing counted.
  c.event_store.max_bytes = 0;
  Offline off(c, log);
  off.feed(s, 0, kLength);
  off.p.shutdown();
  EXPECT_EQ(off.p.event_store().size(), 0u);
  EXPECT_EQ(off.p.event_store().evicted(), 0u);
}

TEST(EventStore, FiltersByStreamPatternLibrarySinceAndLimitNewestFirst) {
  CapturedLog log;
  auto c = config({"a", "b"}, {ramp()});
  config::Library other;
  other.name = "other";
  other.patterns = {falling()};
  other.patterns[0].library = "other";
  c.live.libraries.push_back(other);
  Offline o(c, log);
  const Series a = planted("a", falling(), {120}, kLength, nullptr);
  const Series a2 = planted("a", ramp(), {50, 200}, kLength, &a);
  const Series b = planted("b", ramp(), {80}, kLength);
  o.feed(a2, 0, kLength);
  o.feed(b, 0, kLength);
  o.p.shutdown();
  const auto events = all_events(o.p);
  ASSERT_EQ(events.size(), 4u) << log.joined();
  const auto pick = [&](auto&& fill) {
    service::EventFilter f;
    f.limit = 100;
    fill(f);
    std::vector<std::string> out;
    for (const Stored& e : o.p.event_store().list(f))
      out.push_back(e->event.stream + ":" + e->event.pattern + "@" +
                    std::to_string(e->event.start_index));
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(pick([](auto&) {}), (V{"b:ramp@80", "a:ramp@200", "a:falling@120", "a:ramp@50"}));
  EXPECT_EQ(pick([](auto& f) { f.stream = "a"; }), (V{"a:ramp@200", "a:falling@120", "a:ramp@50"}));
  EXPECT_EQ(pick([](auto& f) { f.pattern = "ramp"; }), (V{"b:ramp@80", "a:ramp@200", "a:ramp@50"}));
  EXPECT_EQ(pick([](auto& f) { f.library = "other"; }), (V{"a:falling@120"}));
  EXPECT_EQ(pick([](auto& f) {
              f.library = "shapes";
              f.stream = "a";
            }),
            (V{"a:ramp@200", "a:ramp@50"}));
  // since: events that end after it (a's falling ends at sample 125, b's ramp at 89; the
  // streams share their clock).
  EXPECT_EQ(pick([&](auto& f) { f.since_ns = a.times[125]; }), (V{"a:ramp@200"}));
  EXPECT_EQ(pick([&](auto& f) { f.since_ns = a.times[124]; }), (V{"a:ramp@200", "a:falling@120"}));
  EXPECT_EQ(pick([&](auto& f) { f.since_ns = a.times[88]; }),
            (V{"b:ramp@80", "a:ramp@200", "a:falling@120"}));
  EXPECT_EQ(pick([](auto& f) { f.limit = 2; }), (V{"b:ramp@80", "a:ramp@200"}));
  EXPECT_EQ(pick([](auto& f) { f.stream = "nobody"; }), V{});
}

TEST(EventStore, AReloadThatChangesThePatternGivesANewVersionAndOldEventsKeepTheOldCopy) {
  CapturedLog log;
  Offline o(config(), log);
  const Series s = planted("s", ramp(), {50, 150, 250});
  o.feed(s, 0, 100);
  ASSERT_EQ(o.p.event_store().size(), 1u);
  ASSERT_TRUE(o.p.reload(config({"s"}, {ramp(2.0)}))) << log.joined();
  o.feed(s, 100, 200);
  auto events = all_events(o.p);
  ASSERT_EQ(events.size(), 2u) << log.joined();
  const Stored &before = events[1], &after = events[0];
  EXPECT_NE(before->pattern_version, after->pattern_version);
  EXPECT_EQ(before->pattern_version, service::pattern_version(ramp(1.0)));
  EXPECT_EQ(after->pattern_version, service::pattern_version(ramp(2.0)));
  EXPECT_EQ(before->pattern->params.threshold, 1.0);
  EXPECT_EQ(after->pattern->params.threshold, 2.0);
  // A reload that removes the pattern and the stream: the events stay with their copies,
  // the stream's history goes.
  ASSERT_TRUE(o.p.history().samples("s", std::nullopt, 10).has_value());
  auto none = config({"t"}, {falling()});
  ASSERT_TRUE(o.p.reload(none)) << log.joined();
  events = all_events(o.p);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1]->pattern->params.threshold, 1.0);
  EXPECT_EQ(events[0]->pattern->values, ramp().values);
  EXPECT_EQ(service::to_json(*events[0], true).at("pattern").at("version"),
            service::pattern_version(ramp(2.0)));
  EXPECT_FALSE(o.p.history().samples("s", std::nullopt, 10).has_value());
}

TEST(RecentHistory, KeepsTheLastSamplesPerStreamAndServesThemSinceATime) {
  CapturedLog log;
  auto c = config();
  c.history.samples_per_stream = 50;
  Offline o(c, log);
  const Series s = planted("s", ramp(), {50, 150, 250});
  o.feed(s, 0, kLength, 23);
  const auto all = o.p.history().samples("s", std::nullopt, 1000);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->dims, 1u);
  EXPECT_EQ(all->first_index, kLength - 50);
  ASSERT_EQ(all->count(), 50u);
  for (std::size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(all->values[i], s.values[kLength - 50 + i]) << i;
    EXPECT_EQ(all->times_ns[i], s.times[kLength - 50 + i]) << i;
  }
  const auto since = o.p.history().samples("s", s.times[279], 5);
  ASSERT_TRUE(since.has_value());
  EXPECT_EQ(since->first_index, 280u);
  EXPECT_EQ(since->times_ns,
            std::vector<std::int64_t>(s.times.begin() + 280, s.times.begin() + 285));
  EXPECT_EQ(o.p.history().samples("s", s.times.back(), 5)->count(), 0u);
  EXPECT_FALSE(o.p.history().samples("unknown", std::nullopt, 5).has_value());
  const nlohmann::json j = service::to_json(*since);
  EXPECT_EQ(j.at("first_index"), 280);
  EXPECT_EQ(j.at("values").at(0), std::vector<float>{s.values[280]});
  EXPECT_EQ(o.p.history().bytes(), 50u * 12);
  EXPECT_EQ(metric(o.p, "warpwatch_history_bytes"), 600.0);
  EXPECT_EQ(metric(o.p, "warpwatch_history_streams"), 1.0);
  // The third copy's event still had its matched samples, but a shorter history does not:
  // its segment is what was left, flagged.
  auto short_history = config();
  short_history.history.samples_per_stream = 6;
  Offline shorter(short_history, log);
  shorter.feed(s, 0, kLength);
  shorter.p.shutdown();
  const auto events = all_events(shorter.p);
  ASSERT_EQ(events.size(), 3u);
  for (const Stored& e : events) {
    EXPECT_TRUE(e->segment_partial);
    EXPECT_LE(e->segment_times_ns.size(), 6u);
    for (std::size_t i = 0; i < e->segment_times_ns.size(); ++i)
      EXPECT_EQ(e->segment[i], s.values.at(e->first_index + i));
  }
}

TEST(RecentHistory, TheByteCapOverAllStreamsWins) {
  CapturedLog log;
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < 8; ++k) ids.push_back(stream_name(k));
  auto c = config(ids);
  c.history.max_bytes = 8 * 64 * 12;  // 64 samples a stream, less the plan's headroom
  Offline o(c, log);
  for (const std::string& id : ids) o.feed(planted(id, ramp(), {}), 0, kLength);
  EXPECT_EQ(o.p.history().streams(), 8u);
  EXPECT_LE(o.p.history().bytes(), c.history.max_bytes);
  std::size_t kept = 0;
  for (const std::string& id : ids) {
    const auto h = o.p.history().samples(id, std::nullopt, 100000);
    ASSERT_TRUE(h.has_value()) << id;
    EXPECT_LT(h->count(), 64u) << id;
    EXPECT_GT(h->count(), 16u) << id;
    EXPECT_EQ(h->first_index + h->count(), kLength) << id << ": the newest kept";
    kept += h->count();
  }
  EXPECT_GT(kept * 12, c.history.max_bytes / 2) << "the cap is used, not wasted";
}

// A Pipeline with state.dir, fed through its hub, its rounds run by step().
class EventStoreState : public ::testing::Test {
 protected:
  config::DaemonConfig daemon_config() const {
    auto c = config();
    c.state_dir = dir_.path() + "/state";
    c.checkpoint_interval = std::chrono::milliseconds(0);
    return c;
  }
  std::string checkpoint_file() const { return dir_.path() + "/state/checkpoint.bin"; }
  void feed(service::Pipeline& p, std::size_t from, std::size_t to) {
    const stream::SourceId source = p.hub().add_source("test", stream::Overflow::wait);
    p.hub().offer_samples(source, "s", slice(series_, from, to - from));
    const std::uint64_t want = p.stats().samples + (to - from);
    ASSERT_TRUE(step_until(
        p, [&] { return p.stats().samples >= want; }, 10s))
        << "matched " << p.stats().samples << " of " << want;
  }
  TempDir dir_;
  CapturedLog log_;
  Series series_ = planted("s", ramp(), {50, 150, 250, 350}, 400);
};

TEST_F(EventStoreState, ARestartKeepsTheStoredEventsAndTheHistoryGoesOnAtTheSameIndices) {
  std::vector<Stored> before;
  {
    service::Pipeline p(daemon_config(), log_.logger());
    p.start();
    feed(p, 0, 200);
    p.shutdown();
    before = all_events(p);
  }
  ASSERT_EQ(before.size(), 2u) << log_.joined();
  const service::Checkpoint saved =
      service::decode_checkpoint(service::read_whole_file(checkpoint_file()));
  ASSERT_TRUE(saved.events.has_value());
  EXPECT_EQ(service::read_whole_file(checkpoint_file())[4], 2) << "format version 2";

  service::Pipeline p(daemon_config(), log_.logger());
  EXPECT_EQ(log_.count("state: restored 2 stored events"), 1u) << log_.joined();
  const auto restored = all_events(p);
  ASSERT_EQ(restored.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(restored[k]->event.id, before[k]->event.id);
    EXPECT_EQ(restored[k]->event.sequence, before[k]->event.sequence);
    EXPECT_EQ(restored[k]->event.labels, before[k]->event.labels);
    EXPECT_EQ(restored[k]->event.detected_ns, before[k]->event.detected_ns);
    EXPECT_EQ(restored[k]->segment, before[k]->segment);
    EXPECT_EQ(restored[k]->segment_times_ns, before[k]->segment_times_ns);
    EXPECT_EQ(restored[k]->first_index, before[k]->first_index);
    EXPECT_EQ(*restored[k]->pattern, *before[k]->pattern);
    EXPECT_EQ(restored[k]->pattern_version, before[k]->pattern_version);
  }
  EXPECT_EQ(restored[0]->pattern, restored[1]->pattern) << "one copy per version again";
  EXPECT_EQ(p.event_store().bytes(), service::EventStore::bytes_of(*restored[0]) +
                                         service::EventStore::bytes_of(*restored[1]));
  // The history goes on at the Matcher's indices: the next events' segments are the samples
  // fed at their indices.
  p.start();
  feed(p, 200, 400);
  p.shutdown();
  const auto events = all_events(p);
  ASSERT_EQ(events.size(), 4u) << log_.joined();
  EXPECT_EQ(events[0]->event.start_index, 350u);
  EXPECT_EQ(events[1]->event.start_index, 250u);
  expect_segment_of(*events[0], series_, 40, 8);
  expect_segment_of(*events[1], series_, 40, 8);
  const auto h = p.history().samples("s", std::nullopt, 1000);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->first_index + h->count(), 400u);
}

TEST_F(EventStoreState, AVersionOneCheckpointStillLoads) {
  {
    service::Pipeline p(daemon_config(), log_.logger());
    p.start();
    feed(p, 0, 200);
    p.shutdown();
  }
  // The same state as a version-1 file (as written before the event store existed).
  service::Checkpoint c = service::decode_checkpoint(service::read_whole_file(checkpoint_file()));
  c.events.reset();
  const std::string old = service::encode_checkpoint(c);
  ASSERT_EQ(old[4], 1) << "version 1";
  EXPECT_EQ(service::decode_checkpoint(old), c);
  service::write_file_atomically(checkpoint_file(), old);
  CapturedLog log;
  service::Pipeline p(daemon_config(), log.logger());
  EXPECT_EQ(log.count("state: restored 1 of 1 streams"), 1u) << log.joined();
  EXPECT_EQ(log.count("refused"), 0u) << log.joined();
  EXPECT_EQ(p.event_store().size(), 0u);
  EXPECT_EQ(p.last_sequence(), 2u);
  p.start();
  feed(p, 200, 300);
  p.shutdown();
  const auto events = all_events(p);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]->event.sequence, 3u);
  expect_segment_of(*events[0], series_, 40, 8);
}

// Readers on another thread (the API's) while the scheduler's rounds add events and samples.
// Under ThreadSanitizer (`make test-tsan`) a race between them is reported.
TEST(EventStore, ReadersOnAnotherThreadWhileRoundsRun) {
  CapturedLog log;
  auto c = config();
  c.event_store.max_events = 5;
  c.history.samples_per_stream = 64;
  Offline o(c, log);
  std::vector<std::size_t> starts;
  for (std::size_t at = 20; at + 10 < 2000; at += 40) starts.push_back(at);
  const Series s = planted("s", ramp(), starts, 2000);
  std::atomic<bool> done{false};
  std::atomic<std::size_t> reads{0}, bad{0};
  std::thread reader([&] {
    const auto deadline = Clock::now() + scaled(20s);
    do {  // at least once, however soon the rounds end
      service::EventFilter f;
      f.stream = "s";
      const auto events = o.p.event_store().list(f);
      std::uint64_t last = UINT64_MAX;
      for (const Stored& e : events) {
        if (e->event.sequence >= last) ++bad;  // newest first
        last = e->event.sequence;
        if (e->segment.size() != e->segment_times_ns.size()) ++bad;
        if (o.p.event_store().find(e->event.id) == nullptr && o.p.event_store().size() < 5) ++bad;
        (void)service::to_json(*e, true).dump();
      }
      if (const auto h = o.p.history().samples("s", std::nullopt, 1000))
        for (std::size_t i = 1; i < h->count(); ++i)
          if (h->times_ns[i] <= h->times_ns[i - 1]) ++bad;
      (void)o.p.metrics_snapshot();
      ++reads;
    } while (!done && Clock::now() < deadline);
  });
  const auto started = Clock::now();  // the reader first, so that it reads during the rounds
  while (reads == 0 && Clock::now() - started < scaled(5s)) std::this_thread::yield();
  o.feed(s, 0, s.values.size(), 7);  // many rounds
  const std::size_t during = reads;
  done = true;
  reader.join();
  o.p.shutdown();
  EXPECT_GT(during, 0u);
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_EQ(o.p.event_store().size(), 5u);
  EXPECT_EQ(o.p.event_store().evicted(), starts.size() - 5);
}

}  // namespace
