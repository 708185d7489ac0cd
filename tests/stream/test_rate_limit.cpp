// The per-stream ingest rate limit (limits.max_stream_rate_hz, RegistryOptions::max_rate_hz):
// a token bucket per stream in the registry, with a fake clock. Samples over it are counted
// as rate_limited and logged (rate-limited) with the stream; every sample within it is kept,
// also by the hub, which queues the first ones of a message that is cut.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"

namespace {

using namespace warpwatch;
using stream::Admit;
using stream::RegistryOptions;
using stream::RejectReason;
using stream::StreamRegistry;
using namespace std::chrono_literals;

std::int64_t time_of(std::uint64_t index) {
  return 1'000'000'000 + static_cast<std::int64_t>(index) * 1'000'000;
}

// Samples first..first+n-1 of a stream, 1 ms apart.
stream::Samples samples_at(std::uint64_t first, std::size_t n) {
  stream::Samples s;
  s.dims = 1;
  s.values.assign(n, 1.0f);
  for (std::size_t i = 0; i < n; ++i) s.times_ns.push_back(time_of(first + i));
  return s;
}

struct Line {
  std::string stream, detail;
  RejectReason reason;
};

struct Limited {
  std::chrono::steady_clock::time_point now{};
  std::vector<Line> lines;

  StreamRegistry make(double rate_hz, double burst, bool auto_create = false) {
    RegistryOptions o;
    o.max_rate_hz = rate_hz;
    o.max_burst = burst;
    o.auto_create = auto_create;
    return StreamRegistry(
        {{"a", 1, 1'000'000}, {"b", 1, 1'000'000}}, o,
        [this](std::string_view s, RejectReason r, std::string_view d) {
          lines.push_back({std::string(s), std::string(d), r});
        },
        [this] { return now; });
  }
};

TEST(RateLimit, ABurstPassesThenTheRateAndTheRestIsCountedPerStream) {
  Limited h;
  StreamRegistry reg = h.make(100.0, 50.0);
  // A full bucket of 50: a message of 80 keeps its first 50.
  Admit a = reg.admit("a", 1, 80);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.samples, 50u);
  // Empty now: the next message is refused whole, all its samples counted.
  a = reg.admit("a", 1, 7);
  EXPECT_EQ(a.rejected, RejectReason::rate_limited);
  EXPECT_EQ(a.samples, 0u);
  // 0.1 s later, 10 tokens: 10 of 25 pass.
  h.now += 100ms;
  EXPECT_EQ(reg.admit("a", 1, 25).samples, 10u);
  // Another stream has its own bucket.
  EXPECT_EQ(reg.admit("b", 1, 50).samples, 50u);
  // Ten seconds idle refill the bucket to its size, not beyond.
  h.now += 10s;
  EXPECT_EQ(reg.admit("a", 1, 1000).samples, 50u);

  const auto snap = reg.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::rate_limited], 30u + 7u + 15u + 950u);
  EXPECT_EQ(snap.streams.at(0).rejected[RejectReason::rate_limited], 30u + 7u + 15u + 950u);
  EXPECT_EQ(snap.streams.at(1).rejected.total(), 0u);
  // Admitted messages: every one that kept a sample (the refused one is not).
  EXPECT_EQ(snap.streams.at(0).messages, 3u);
  // Logged with the stream, at most once per 10 s of the fake clock: the first line, and
  // the one after the 10 s pause, which says how many were held back.
  ASSERT_EQ(h.lines.size(), 2u);
  EXPECT_EQ(h.lines[0].stream, "a");
  EXPECT_EQ(h.lines[0].reason, RejectReason::rate_limited);
  EXPECT_EQ(h.lines[0].detail,
            "30 of 80 samples over the limit of 100 a second (burst 50) (30 in this message)");
  EXPECT_NE(h.lines[1].detail.find("(22 more since the last line)"), std::string::npos)
      << h.lines[1].detail;
}

TEST(RateLimit, TheDefaultBurstIsOneSecondsWorthAndZeroIsUnlimited) {
  Limited h;
  StreamRegistry limited = h.make(20.0, 0.0);
  EXPECT_EQ(limited.admit("a", 1, 100).samples, 20u);
  StreamRegistry slow = h.make(0.5, 0.0);  // at least one sample
  EXPECT_EQ(slow.admit("a", 1, 3).samples, 1u);
  h.now += 1s;
  EXPECT_EQ(slow.admit("a", 1, 3).rejected, RejectReason::rate_limited);
  h.now += 1s;
  EXPECT_EQ(slow.admit("a", 1, 3).samples, 1u);
  StreamRegistry unlimited = h.make(0.0, 5.0);
  EXPECT_EQ(unlimited.admit("a", 1, 1'000'000).samples, 1'000'000u);
  EXPECT_EQ(unlimited.snapshot().rejected.total(), 0u);
}

TEST(RateLimit, AnAutoCreatedStreamStartsWithAFullBucket) {
  Limited h;
  StreamRegistry reg = h.make(10.0, 4.0, /*auto_create=*/true);
  const Admit a = reg.admit("new-1", 1, 6);
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a.created);
  EXPECT_EQ(a.samples, 4u);
  EXPECT_EQ(reg.snapshot().rejected[RejectReason::rate_limited], 2u);
}

TEST(RateLimit, ARedeclarationChangesTheLimitLive) {
  Limited h;
  StreamRegistry reg = h.make(0.0, 0.0);
  EXPECT_EQ(reg.admit("a", 1, 500).samples, 500u);
  RegistryOptions o;
  o.max_rate_hz = 10.0;
  reg.redeclare({{"a", 1, 1'000'000}}, o);
  EXPECT_EQ(reg.admit("a", 1, 500).samples, 10u);  // a bucket first used now: full
  o.max_rate_hz = 0.0;
  reg.redeclare({{"a", 1, 1'000'000}}, o);
  EXPECT_EQ(reg.admit("a", 1, 500).samples, 500u);
  // Lowering the burst empties what is over it.
  o.max_rate_hz = 1.0;
  o.max_burst = 100.0;
  reg.redeclare({{"a", 1, 1'000'000}}, o);
  h.now += 1000s;
  o.max_burst = 3.0;
  reg.redeclare({{"a", 1, 1'000'000}}, o);
  EXPECT_EQ(reg.admit("a", 1, 500).samples, 3u);
}

// Through the hub: the first samples of a cut message are queued, the others counted, and
// received = accepted + rate_limited.
TEST(RateLimit, TheHubQueuesTheSamplesWithinTheLimit) {
  Limited h;
  StreamRegistry reg = h.make(1000.0, 150.0);
  stream::IngestHub hub(reg, {});
  const stream::SourceId source = hub.add_source("test", stream::Overflow::wait);
  std::uint64_t next = 0;
  const auto send = [&](std::size_t n) {
    hub.offer_message(source, "a", stream::encode_frame(samples_at(next, n), false));
    next += n;
  };
  send(100);  // 100 of 150
  send(100);  // 50 of 100
  h.now += 20ms;
  send(100);  // 20 of 100
  const stream::IngestBatch batch = hub.take_all();
  ASSERT_EQ(batch.streams.size(), 1u);
  const auto& q = batch.streams.front();
  ASSERT_EQ(q.times_ns.size(), 170u);
  // The kept samples are each message's first ones, in order.
  EXPECT_EQ(q.times_ns[99], time_of(99));
  EXPECT_EQ(q.times_ns[100], time_of(100));
  EXPECT_EQ(q.times_ns[149], time_of(149));
  EXPECT_EQ(q.times_ns[150], time_of(200));
  const auto snap = reg.snapshot();
  EXPECT_EQ(snap.accepted_samples, 170u);
  EXPECT_EQ(snap.rejected[RejectReason::rate_limited], 130u);
  EXPECT_EQ(snap.accepted_samples + snap.rejected.total(), 300u);
}

}  // namespace
