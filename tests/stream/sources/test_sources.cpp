// The ingest sources behind stream/source.hpp (ZeroMQ, replay) and the IngestHub they
// deliver to: delivery, pause/resume (nothing is read while paused, nothing is lost after),
// the end of a replay, and that the queued batches carry the registry's own StreamDef.
#include <gtest/gtest.h>

#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ingest_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/replay.hpp"
#include "warpwatch/stream/sources/replay_source.hpp"
#include "warpwatch/stream/sources/zmq_source.hpp"

namespace {

using namespace warpwatch::stream;
using namespace std::chrono_literals;

Samples ramp(std::size_t n, std::int64_t t0 = 1'000) {
  Samples s;
  s.dims = 1;
  for (std::size_t i = 0; i < n; ++i) {
    s.times_ns.push_back(t0 + static_cast<std::int64_t>(i));
    s.values.push_back(static_cast<float>(i));
  }
  return s;
}

// Polls the hub (bounded: 5 s) until `want` samples were taken in all, and returns them.
std::size_t take_until(IngestHub& hub, std::size_t want, IngestBatch* last = nullptr) {
  return warpwatch::testing::take_until(hub, want, [&](IngestBatch b) {
    if (last) *last = std::move(b);
  });
}

void send(zmq::socket_t& push, const std::string& id, const Samples& s) {
  const auto frame = encode_frame(s, true);
  const std::array<zmq::const_buffer, 2> parts = {zmq::buffer(id),
                                                  zmq::buffer(frame.data(), frame.size())};
  zmq::send_multipart(push, parts);
}

// A declared stream "s", the hub, and a ZeroMQ PULL source on a free loopback port with a
// PUSH socket connected to it.
class ZmqSourceTest : public ::testing::Test {
 protected:
  ZmqSourceTest() : source(context, {ZmqSourceOptions::Kind::pull, "tcp://127.0.0.1:*", ""}, hub) {
    push.set(zmq::sockopt::linger, 0);
    push.connect(source.endpoint());
    source.start();
  }

  StreamRegistry registry{{{"s", 1, 10}}};
  IngestHub hub{registry, QueueLimits{}};
  zmq::context_t context;
  ZmqSource source;
  zmq::socket_t push{context, zmq::socket_type::push};
};

TEST(Sources, HubQueuesTheRegistrysStreamDef) {
  StreamRegistry registry({{"s", 1, 10}});
  IngestHub hub(registry, QueueLimits{});
  hub.offer_samples(hub.add_source("test", Overflow::wait), "s", ramp(3));
  const IngestBatch b = hub.take_all();
  ASSERT_EQ(b.streams.size(), 1u);
  EXPECT_EQ(b.samples, 3u);
  const Admit admit = registry.admit("s", 1);
  EXPECT_EQ(b.streams[0].stream, admit.stream)
      << "the batch shares the registry's definition, not a copy";
  EXPECT_EQ(b.streams[0].stream->nominal_period_ns, 10);
}

TEST_F(ZmqSourceTest, PullDeliversAndPauseWithholds) {
  EXPECT_EQ(source.describe(), "pull " + source.endpoint());

  send(push, "s", ramp(4, 100));
  EXPECT_EQ(take_until(hub, 4), 4u);

  source.pause();
  std::this_thread::sleep_for(150ms);  // a poll already under way may finish first
  hub.take_all();
  send(push, "s", ramp(5, 200));
  std::this_thread::sleep_for(300ms);  // three poll periods: a running source would have read it
  EXPECT_EQ(hub.take_all().samples, 0u) << "a paused source reads nothing";

  source.resume();
  IngestBatch last;
  EXPECT_EQ(take_until(hub, 5, &last), 5u) << "what waited in the socket arrives after the resume";
  source.stop();
  EXPECT_EQ(registry.snapshot().accepted_samples, 9u);
}

TEST_F(ZmqSourceTest, WrongPartCountsAreCountedThroughTheHub) {
  const std::array<zmq::const_buffer, 3> three = {zmq::str_buffer("s"), zmq::str_buffer("a"),
                                                  zmq::str_buffer("b")};
  zmq::send_multipart(push, three);
  push.send(zmq::str_buffer("s"));  // one part
  send(push, "s", ramp(2));
  EXPECT_EQ(take_until(hub, 2), 2u);
  source.stop();
  const RegistrySnapshot snap = registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::wrong_part_count], 2u);
  ASSERT_EQ(snap.streams.size(), 1u);
  EXPECT_EQ(snap.streams[0].rejected[RejectReason::wrong_part_count], 2u)
      << "counted under the first frame's stream";
}

TEST_F(ZmqSourceTest, StopDeliversWhatTheSocketHolds) {
  send(push, "s", ramp(1));
  EXPECT_EQ(take_until(hub, 1), 1u);  // connected and flowing
  source.pause();
  send(push, "s", ramp(6, 5000));
  std::this_thread::sleep_for(200ms);  // in the socket, not read
  source.stop();
  EXPECT_EQ(hub.take_all().samples, 6u) << "stop() drains the socket: accepted input is matched";
}

TEST(Sources, ReplaySendsEverythingThenEndsTheStream) {
  StreamRegistry registry({{"r", 1, 10}});
  IngestHub hub(registry, QueueLimits{});
  ReplaySource replay({"r", ramp(3000), 0.0, "file.csv"}, hub);
  EXPECT_EQ(replay.describe(), "replay file.csv -> r");
  EXPECT_FALSE(replay.finished());
  replay.start();
  std::size_t got = 0;
  bool ended = false;
  for (int i = 0; i < 500 && !(ended && got == 3000); ++i) {
    hub.wait(3000, std::chrono::steady_clock::now() + 10ms);
    IngestBatch b = hub.take_all();
    got += b.samples;
    ended = ended || (b.ended.size() == 1 && b.ended[0] == "r");
  }
  EXPECT_EQ(got, 3000u);
  EXPECT_TRUE(ended);
  replay.stop();
  EXPECT_TRUE(replay.finished());
}

// A rate far beyond any chunk size: one chunk, the whole series (the chunk size, rate / 100,
// is clamped to the series before it is converted to an integer).
TEST(Sources, ReplayAtAHugeRateSendsEverything) {
  StreamRegistry registry({{"r", 1, 10}});
  IngestHub hub(registry, QueueLimits{});
  ReplaySource replay({"r", ramp(300), 1e300, ""}, hub);
  replay.start();
  EXPECT_EQ(take_until(hub, 300), 300u);
  replay.stop();
}

TEST(Sources, PausedReplayWaitsAndAStoppedOneDoesNotEnd) {
  StreamRegistry registry({{"r", 1, 10}});
  IngestHub hub(registry, QueueLimits{});
  ReplaySource replay({"r", ramp(1000), 100.0, ""}, hub);  // 1 sample a chunk, 100 a second
  replay.pause();
  replay.start();
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(hub.take_all().samples, 0u) << "paused before its first chunk: nothing sent";
  replay.resume();
  EXPECT_GE(take_until(hub, 1), 1u);
  replay.stop();  // long before its 10 s are over
  EXPECT_FALSE(replay.finished());
  EXPECT_TRUE(hub.take_all().ended.empty()) << "a replay cut short does not end its stream";
}

}  // namespace

TEST(Replay, TimesAndPacingCannotOverflow) {
  // Sample i at start + i x period: a sum beyond int64 is refused, not wrapped.
  EXPECT_EQ(evenly_spaced_times(3, -5, 10), (std::vector<std::int64_t>{-5, 5, 15}));
  EXPECT_TRUE(evenly_spaced_times(0, 0, 1).empty());
  EXPECT_EQ(evenly_spaced_times(2, 0, INT64_MAX), (std::vector<std::int64_t>{0, INT64_MAX}));
  EXPECT_THROW(evenly_spaced_times(3, 0, INT64_MAX / 2 + 1), std::invalid_argument);
  EXPECT_THROW(evenly_spaced_times(2, 1, INT64_MAX), std::invalid_argument);
  EXPECT_THROW(evenly_spaced_times(2, 0, 0), std::invalid_argument);
  // The chunk of a rate: rate / 100 compared before the cast (1e300 is no size_t).
  EXPECT_EQ(replay_chunk(0), 1024u);
  EXPECT_EQ(replay_chunk(std::nan("")), 1024u);
  EXPECT_EQ(replay_chunk(50), 1u);
  EXPECT_EQ(replay_chunk(100'000), 1000u);
  EXPECT_EQ(replay_chunk(1e300), std::size_t{1} << 20);
  EXPECT_EQ(replay_chunk(INFINITY), std::size_t{1} << 20);
  // A rate so small that i / rate_hz seconds is beyond the clock: the first chunk goes at
  // once (the next would wait 10^9 s, not overflow); a chunk beyond the samples is all.
  std::size_t parts = 0;
  EXPECT_EQ(replay_paced(ramp(3), 1, 1e-300, [&](const Samples&) { return ++parts < 1; }), 0u);
  EXPECT_EQ(parts, 1u);
  EXPECT_EQ(replay_paced(ramp(3), SIZE_MAX, 0, [](const Samples& s) { return s.size() == 3; }), 1u);
}

// A rate so high that no wait is due: every chunk at once, the last one short.
TEST(Replay, PacedAtAHugeRateSendsEveryChunkWithoutWaiting) {
  Samples s;
  s.dims = 2;
  s.times_ns = evenly_spaced_times(10, 0, 1);
  for (int i = 0; i < 20; ++i) s.values.push_back(static_cast<float>(i));
  std::vector<Samples> parts;
  const std::size_t sent = replay_paced(s, 4, 1e300, [&](const Samples& part) {
    parts.push_back(part);
    return true;
  });
  ASSERT_EQ(sent, 3u);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].times_ns, (std::vector<std::int64_t>{8, 9}));
  EXPECT_EQ(parts[2].values, (std::vector<float>{16, 17, 18, 19}));
}

TEST(ZmqDelivery, PartCountThenTheHub) {
  StreamRegistry registry({{"a", 1, 1000}});
  IngestHub hub(registry, {});
  const SourceId source = hub.add_source("test", Overflow::wait);
  const std::string text = "1,1\n2,2\n";
  const auto payload = std::as_bytes(std::span(text));
  deliver_zmq_message(hub, source, 1, "a", {});
  deliver_zmq_message(hub, source, 3, "a", payload);
  deliver_zmq_message(hub, source, 2, "a", payload);
  const RegistrySnapshot s = registry.snapshot();
  EXPECT_EQ(s.rejected[RejectReason::wrong_part_count], 2u);
  EXPECT_EQ(s.rejected.total(), 2u);
  EXPECT_EQ(s.accepted_samples, 2u);
  EXPECT_EQ(hub.take_all().samples, 2u);
}
