// The IngestHub's bounded queues (stream/ingest_hub.hpp): batches of at most the asked
// size, shared fairly and in order; room, waiting and dropping at the limits; the
// per-source backlog; an ended stream reported after its last samples; and the named
// reasons for payloads without samples. The ZeroMQ tests at the end push back through a
// real PULL socket and refuse an oversized frame before it is read.
#include <gtest/gtest.h>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "test_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/zmq_source.hpp"

namespace {

using namespace warpwatch::stream;
using namespace std::chrono_literals;

Samples ramp(std::size_t n, std::int64_t t0) {
  Samples s;
  s.dims = 1;
  for (std::size_t i = 0; i < n; ++i) {
    s.times_ns.push_back(t0 + static_cast<std::int64_t>(i));
    s.values.push_back(static_cast<float>(t0 + static_cast<std::int64_t>(i)));
  }
  return s;
}

std::span<const std::byte> bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

RegistryOptions auto_create() {
  RegistryOptions o;
  o.auto_create = true;
  return o;
}

constexpr std::size_t b1 = queued_sample_bytes(1);  // 12 bytes a 1-D sample

TEST(IngestHub, TakeIsBoundedFairAndKeepsEachStreamsOrder) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  const SourceId src = hub.add_source("test", Overflow::wait);
  std::map<std::string, std::int64_t> next_t;  // per stream: the next timestamp sent
  std::map<std::string, std::int64_t> next_taken;
  std::size_t sent = 0, taken = 0;
  for (int round = 0; round < 200; ++round) {
    for (int k = 0; k < 5; ++k) {
      std::string id = "s";
      id += std::to_string(rng() % 12);
      const std::size_t n = 1 + rng() % 40;
      hub.offer_samples(src, id, ramp(n, next_t[id]));
      next_t[id] += static_cast<std::int64_t>(n);
      sent += n;
    }
    const std::size_t max = 1 + rng() % 64;
    const std::size_t queued = hub.queued_samples();
    const IngestBatch b = hub.take(max);
    ASSERT_EQ(b.samples, std::min(max, queued)) << "seed " << seed;
    std::size_t in_batch = 0;
    for (std::size_t i = 0; i < b.streams.size(); ++i) {
      const QueuedSamples& q = b.streams[i];
      if (i > 0) {
        EXPECT_LT(b.streams[i - 1].stream->id, q.stream->id) << "sorted by id";
      }
      ASSERT_FALSE(q.times_ns.empty());
      for (std::size_t j = 0; j < q.times_ns.size(); ++j) {
        ASSERT_EQ(q.times_ns[j], next_taken[q.stream->id]++)
            << "in order, none lost, seed " << seed;
        ASSERT_EQ(q.values[j], static_cast<float>(q.times_ns[j]));
      }
      in_batch += q.times_ns.size();
    }
    EXPECT_EQ(in_batch, b.samples);
    for (const QueuedSamples& q : b.streams) {  // the arrival runs cover each stream's samples
      std::size_t covered = 0;
      for (const Arrival& a : b.arrivals_of(q)) covered += a.samples;
      EXPECT_EQ(covered, q.times_ns.size()) << q.stream->id << ", seed " << seed;
    }
    taken += b.samples;
    // Every other round gives the batch back: its vectors then hold later samples.
    if (round % 2 == 0) hub.recycle(IngestBatch(b));
  }
  taken += hub.take_all().samples;
  EXPECT_EQ(taken, sent) << "seed " << seed;
  EXPECT_EQ(hub.queued_samples(), 0u);
}

// Each taken sample comes with when it was queued: a run per source and 10 ms, kept
// whole when a take splits it.
// The hub's arrival runs (ingest_hub.cpp): one source's offers within 10 ms of each other
// are one run.
struct TwoSourcesHub {
  StreamRegistry registry{{}, auto_create()};
  IngestHub hub{registry, QueueLimits{}};
  SourceId one = hub.add_source("one", Overflow::wait);
  SourceId two = hub.add_source("two", Overflow::wait);
};

TEST(IngestHub, TakenSamplesSayWhenTheyArrived) {
  // Its first two offers must come within the 10 ms of a run: on a loaded machine (or a
  // sanitized build) a pause between them splits the run, so they are made again, on a
  // fresh hub, until they did (bounded).
  std::optional<TwoSourcesHub> fresh;
  IngestHub::Clock::time_point before;
  for (int attempt = 0;; ++attempt) {
    ASSERT_LT(attempt, 20) << "never two offers within 10 ms of each other";
    fresh.emplace();
    before = IngestHub::Clock::now();
    fresh->hub.offer_samples(fresh->one, "a", ramp(5, 0));
    fresh->hub.offer_samples(fresh->one, "a", ramp(3, 5));  // the same run: within 10 ms
    if (IngestHub::Clock::now() - before < 10ms) break;
  }
  IngestHub& hub = fresh->hub;
  const SourceId two = fresh->two;
  hub.offer_samples(two, "a", ramp(4, 8));  // another source: a run of its own
  std::this_thread::sleep_for(15ms);
  const auto later = IngestHub::Clock::now();
  hub.offer_samples(two, "a", ramp(2, 12));  // 10 ms on: a new run
  IngestBatch first = hub.take(6);
  ASSERT_EQ(first.streams.size(), 1u);
  ASSERT_EQ(first.arrivals_of(first.streams[0]).size(), 1u);
  const Arrival head = first.arrivals_of(first.streams[0])[0];
  EXPECT_EQ(head.samples, 6u);
  EXPECT_GE(head.at, before);
  EXPECT_LT(head.at, later);
  hub.recycle(std::move(first));  // its vectors, the arrivals' too, serve the next take
  const IngestBatch rest = hub.take(100);
  ASSERT_EQ(rest.streams.size(), 1u);
  const auto tail = rest.arrivals_of(rest.streams[0]);
  ASSERT_EQ(tail.size(), 3u);
  EXPECT_EQ(tail[0].samples, 2u);
  EXPECT_EQ(tail[0].at, head.at) << "the rest of the split run";
  EXPECT_EQ(tail[1].samples, 4u);
  EXPECT_LE(tail[0].at, tail[1].at);
  EXPECT_EQ(tail[2].samples, 2u);
  EXPECT_GE(tail[2].at, later);
}

TEST(IngestHub, EveryStreamGetsItsShareAndTheFirstServedRotate) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  const SourceId src = hub.add_source("test", Overflow::wait);
  hub.offer_samples(src, "a", ramp(1000, 0));
  hub.offer_samples(src, "b", ramp(10, 0));
  hub.offer_samples(src, "c", ramp(1000, 0));
  IngestBatch b = hub.take(60);  // a share of 20 each; b's unused 10 go to a stream after it
  ASSERT_EQ(b.streams.size(), 3u);
  EXPECT_EQ(b.samples, 60u);
  EXPECT_EQ(b.streams[1].times_ns.size(), 10u);
  EXPECT_GE(b.streams[0].times_ns.size(), 20u);
  EXPECT_GE(b.streams[2].times_ns.size(), 20u);

  // More streams than samples taken: one sample each, and the next take goes on after them.
  StreamRegistry many_registry({}, auto_create());
  IngestHub many(many_registry, QueueLimits{});
  const SourceId m = many.add_source("test", Overflow::wait);
  for (int k = 0; k < 10; ++k) {
    std::string id = "s";
    id += std::to_string(k);
    many.offer_samples(m, id, ramp(5, 0));
  }
  std::map<std::string, int> served;
  for (int t = 0; t < 10; ++t) {
    const IngestBatch one = many.take(3);
    EXPECT_EQ(one.samples, 3u);
    for (const auto& q : one.streams) served[q.stream->id] += static_cast<int>(q.times_ns.size());
  }
  ASSERT_EQ(served.size(), 10u) << "every stream is served within a few rounds";
  for (const auto& [id, n] : served) EXPECT_EQ(n, 3) << id;
}

// The scheduler's wait() returns once the samples it waits for are queued (ingest wakes it
// then, not on every message), at its deadline when they never come, and at once for an
// ended stream; the backlog counts only the streams that hold samples now.
TEST(IngestHub, WaitWakesAtItsThresholdOrDeadline) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  const SourceId src = hub.add_source("test", Overflow::wait);
  std::thread producer([&] {
    for (int k = 0; k < 100; ++k) {
      std::string id = "s";
      id += std::to_string(k % 7);
      hub.offer_samples(src, id, ramp(1, k));
      std::this_thread::sleep_for(100us);
    }
  });
  const auto began = std::chrono::steady_clock::now();
  hub.wait(100, began + 60s);
  const auto waited = std::chrono::steady_clock::now() - began;
  producer.join();
  EXPECT_EQ(hub.queued_samples(), 100u);
  EXPECT_LT(waited, 30s) << "woken by the hundredth sample, not the deadline";
  EXPECT_EQ(hub.backlog().streams, 7u);

  const auto before = std::chrono::steady_clock::now();
  hub.wait(1000, before + 50ms);  // never that many
  EXPECT_GE(std::chrono::steady_clock::now() - before, 50ms);

  EXPECT_EQ(hub.take_all().samples, 100u);
  EXPECT_EQ(hub.backlog().streams, 0u) << "emptied queues are not counted";
  hub.offer_samples(src, "s3", ramp(1, 500));
  EXPECT_EQ(hub.backlog().streams, 1u);
  hub.end_stream("s3");
  hub.take_all();
  const auto end_began = std::chrono::steady_clock::now();
  hub.end_stream("s4");  // nothing queued for it: reportable now
  hub.wait(1000, end_began + 60s);
  EXPECT_LT(std::chrono::steady_clock::now() - end_began, 30s);
  EXPECT_EQ(hub.take(10).ended, std::vector<std::string>{"s4"});
}

TEST(IngestHub, AWaitingSourceFindsRoomOnceTheSchedulerTakes) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{1 << 20, 100 * b1, 100 * b1});
  const SourceId src = hub.add_source("pull test", Overflow::wait);
  hub.offer_samples(src, "s", ramp(60, 0));
  EXPECT_TRUE(hub.has_room());
  hub.offer_samples(src, "s", ramp(60, 60));  // a waiting source overshoots by one message
  EXPECT_FALSE(hub.has_room());
  EXPECT_EQ(hub.queued_samples(), 120u) << "a wait source's message is never dropped";
  std::stop_source stop;
  EXPECT_FALSE(hub.wait_for_room(src, stop.get_token(), std::chrono::steady_clock::now() + 50ms));
  Backlog backlog = hub.backlog();
  ASSERT_EQ(backlog.sources.size(), 1u);
  EXPECT_EQ(backlog.sources[0].waits, 1u);
  EXPECT_EQ(backlog.sources[0].samples, 120u);
  EXPECT_EQ(backlog.sources[0].bytes, 120 * b1);
  EXPECT_EQ(backlog.bytes, 120 * b1);
  EXPECT_GT(backlog.oldest_age_seconds, 0.04);

  std::atomic<bool> room{false};
  std::thread source([&] {
    room = hub.wait_for_room(src, stop.get_token(), std::chrono::steady_clock::now() + 5s);
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(hub.backlog().sources[0].waiting);
  EXPECT_EQ(hub.take(30).samples, 30u);  // 90 left: room again, the waiter wakes
  source.join();
  EXPECT_TRUE(room);
  EXPECT_EQ(hub.backlog().sources[0].samples, 90u);

  // A stop request ends a wait at once.
  hub.offer_samples(src, "s", ramp(50, 120));
  std::thread stopped([&] {
    room = hub.wait_for_room(src, stop.get_token(), std::chrono::steady_clock::now() + 30s);
  });
  stop.request_stop();
  stopped.join();
  EXPECT_FALSE(room);
}

TEST(IngestHub, ADroppingSourceCountsWhatAFullQueueCannotTake) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{1 << 20, 1000 * b1, 100 * b1});
  const SourceId sub = hub.add_source("sub test", Overflow::drop);
  hub.offer_samples(sub, "hot", ramp(100, 0));  // the stream is at its limit
  hub.offer_samples(sub, "hot", ramp(7, 100));  // dropped whole
  hub.offer_samples(sub, "cold", ramp(5, 0));   // another stream still has room
  EXPECT_EQ(hub.queued_samples(), 105u);
  const RegistrySnapshot snap = registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::queue_full], 7u) << "counted in samples";
  EXPECT_EQ(snap.accepted_samples, 105u);
  const Backlog b = hub.backlog();
  EXPECT_EQ(b.sources[0].dropped_samples, 7u);
  EXPECT_EQ(b.sources[0].dropped_messages, 1u);
  // The dropped message did not move the stream's validation: its samples may come again.
  hub.take_all();
  hub.offer_samples(sub, "hot", ramp(7, 100));
  EXPECT_EQ(hub.take_all().samples, 7u);
  EXPECT_EQ(registry.snapshot().rejected[RejectReason::non_increasing_timestamp], 0u);
}

// A stream whose first message is dropped whole by validation (all NaN) still has a queue
// that a dropping source's next message can look at (a review found it held no stream).
TEST(IngestHub, AStreamWhoseFirstMessageIsAllBadTakesTheNext) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{1 << 20, 1000 * b1, 100 * b1});
  const SourceId sub = hub.add_source("sub test", Overflow::drop);
  Samples bad = ramp(3, 0);
  for (float& v : bad.values) v = std::numeric_limits<float>::quiet_NaN();
  hub.offer_samples(sub, "s", bad);
  EXPECT_EQ(hub.queued_samples(), 0u);
  hub.offer_samples(sub, "s", ramp(4, 10));
  EXPECT_EQ(hub.take_all().samples, 4u);
  EXPECT_EQ(registry.snapshot().rejected[RejectReason::non_finite_value], 3u);
}

TEST(IngestHub, AnEndedStreamIsReportedWithItsLastSamples) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  const SourceId src = hub.add_source("replay", Overflow::wait);
  hub.offer_samples(src, "r", ramp(100, 0));
  hub.end_stream("r");
  const IngestBatch first = hub.take(60);
  EXPECT_EQ(first.samples, 60u);
  EXPECT_TRUE(first.ended.empty()) << "40 samples of r are still queued";
  const IngestBatch last = hub.take(60);
  EXPECT_EQ(last.samples, 40u);
  ASSERT_EQ(last.ended.size(), 1u);
  EXPECT_EQ(last.ended[0], "r");
}

TEST(IngestHub, EveryMessageIsCountedUnderAReason) {
  StreamRegistry registry({}, auto_create(),
                          [](std::string_view, RejectReason, std::string_view) {});
  IngestHub hub(registry, QueueLimits{100, 1 << 20, 1 << 20});
  const SourceId src = hub.add_source("test", Overflow::wait);
  hub.offer_message(src, "s", bytes(""));
  hub.offer_message(src, "s", bytes("\n  \n"));
  hub.offer_message(src, "bad id", bytes(""));  // no samples and an invalid id: still counted
  std::string garbage;
  for (int i = 0; i < 5; ++i) garbage += "not a line\n";
  const std::uint64_t lines_before = registry.snapshot().log_lines;
  hub.offer_message(src, "s", bytes(garbage + "1,2\n"));
  EXPECT_EQ(registry.snapshot().log_lines, lines_before + 1)
      << "a payload's bad lines are counted at once and logged as one line";
  hub.offer_message(src, std::string(60, 'x'), bytes(std::string(41, '7')));  // 101 bytes in all
  const RegistrySnapshot snap = registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::empty_payload], 3u);
  EXPECT_EQ(snap.rejected[RejectReason::malformed_frame], 5u) << "one per bad line";
  EXPECT_EQ(snap.rejected[RejectReason::oversized_message], 1u) << "the id counts too";
  EXPECT_EQ(snap.accepted_samples, 1u);
}

void send_frame(zmq::socket_t& push, const std::string& id, const Samples& s) {
  const auto frame = encode_frame(s, false);
  const std::array<zmq::const_buffer, 2> parts = {zmq::buffer(id),
                                                  zmq::buffer(frame.data(), frame.size())};
  (void)zmq::send_multipart(push, parts);
}

// A PULL source with a queue of 50 messages' worth: a producer that sends far more blocks
// at its high-water mark instead of growing the daemon's memory, and every sample arrives
// once the scheduler catches up.
TEST(IngestHub, PullPushesBackAndLosesNothing) {
  constexpr std::size_t per_message = 100, messages = 2000;
  const std::size_t limit = 50 * per_message * b1;
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{1 << 20, limit, limit});
  zmq::context_t context;
  ZmqSource source(context, {ZmqSourceOptions::Kind::pull, "tcp://127.0.0.1:*", "", 1 << 20, 10},
                   hub);
  source.start();
  std::atomic<bool> done{false};
  std::thread producer([&] {
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::sndhwm, 10);
    push.set(zmq::sockopt::linger, 5000);
    push.connect(source.endpoint());
    for (std::size_t k = 0; k < messages; ++k)
      send_frame(push, "s", ramp(per_message, static_cast<std::int64_t>(k * per_message)));
    done = true;
  });
  // A scheduler that takes nothing until the queue is full and the source waits (bounded:
  // a busy machine may slow the producer below any fixed pace), then a slow one: while the
  // producer runs, the queue stays within its limit plus the one message a waiting source
  // may be reading.
  const auto fill_deadline = std::chrono::steady_clock::now() + 30s;
  while (hub.backlog().sources[0].waits == 0 && std::chrono::steady_clock::now() < fill_deadline)
    std::this_thread::sleep_for(1ms);
  std::size_t got = 0, max_bytes = 0;
  std::int64_t next = 0;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (got < messages * per_message && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(done ? 0ms : 2ms);
    max_bytes = std::max<std::size_t>(max_bytes, hub.backlog().bytes);
    const IngestBatch b = hub.take(500);
    for (const auto& q : b.streams)
      for (std::int64_t t : q.times_ns) ASSERT_EQ(t, next++) << "in order, nothing lost";
    got += b.samples;
  }
  producer.join();
  source.stop();
  EXPECT_EQ(got, messages * per_message);
  EXPECT_LE(max_bytes, limit + per_message * b1);
  EXPECT_GT(hub.backlog().sources[0].waits, 0u) << "the source had to wait for room";
  EXPECT_EQ(registry.snapshot().rejected.total(), 0u);
}

// libzmq refuses a frame over ZMQ_MAXMSGSIZE while reading it (the peer is disconnected):
// it never reaches the hub, and the producer's next connection is served as before.
TEST(IngestHub, AnOversizedFrameNeverReachesTheHub) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{4096, 1 << 20, 1 << 20});
  zmq::context_t context;
  ZmqSource source(context, {ZmqSourceOptions::Kind::pull, "tcp://127.0.0.1:*", "", 4096, 10}, hub);
  source.start();
  {
    zmq::socket_t push(context, zmq::socket_type::push);
    push.set(zmq::sockopt::linger, 2000);
    push.connect(source.endpoint());
    const std::string big(1 << 20, '1');
    const std::array<zmq::const_buffer, 2> parts = {zmq::str_buffer("s"), zmq::buffer(big)};
    (void)zmq::send_multipart(push, parts);
  }
  zmq::socket_t push(context, zmq::socket_type::push);
  push.set(zmq::sockopt::linger, 2000);
  push.connect(source.endpoint());
  send_frame(push, "s", ramp(3, 0));
  std::size_t got = 0;
  for (int i = 0; i < 250 && got < 3; ++i) {
    hub.wait(3, std::chrono::steady_clock::now() + 20ms);
    got += hub.take_all().samples;
  }
  source.stop();
  EXPECT_EQ(got, 3u);
  const RegistrySnapshot snap = registry.snapshot();
  EXPECT_EQ(snap.rejected.total(), 0u) << "the oversized frame was not read, so not counted";
  EXPECT_EQ(snap.messages, 1u);
}

}  // namespace
