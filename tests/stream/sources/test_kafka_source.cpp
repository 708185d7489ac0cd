// The Kafka source against librdkafka's mock cluster in this process (real brokers on
// loopback ports, tests/support/processes/kafka_cluster.hpp): the messages of several streams on
// several partitions arrive in order, keyed by stream; bad messages are counted per reason
// and the rest kept; a full queue pauses the partitions and loses nothing; two sources in
// one group split the partitions and each message is taken once; offsets are committed.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ingest_support.hpp"
#include "log_capture.hpp"
#include "processes/kafka_cluster.hpp"
#include "processes/mosquitto_broker.hpp"  // wait_until
#include "test_support.hpp"
#include "warpwatch/alerting/kafka_sink.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/kafka_source.hpp"

namespace {

using namespace warpwatch::stream;
using namespace warpwatch::testing;
using namespace std::chrono_literals;

constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;

RegistryOptions auto_create() {
  RegistryOptions o;
  o.auto_create = true;
  o.log_interval = 0s;  // every rejection logged: the tests read them
  return o;
}

std::string frame_text(std::int64_t t0, std::vector<float> values) {
  Samples s;
  s.dims = 1;
  for (std::size_t i = 0; i < values.size(); ++i)
    s.times_ns.push_back(t0 + static_cast<std::int64_t>(i) * 1000);
  s.values = std::move(values);
  const auto bytes = encode_frame(s, false);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

class KafkaSourceTest : public ::testing::Test {
 protected:
  KafkaSourceOptions options(const std::string& group = "g") const {
    KafkaSourceOptions o;
    o.brokers = cluster.bootstraps();
    o.topic = "samples";
    o.group_id = group;
    o.session_timeout = 6000ms;
    o.commit_interval = 200ms;
    return o;
  }
  std::unique_ptr<KafkaSource> make(const KafkaSourceOptions& o, IngestHub& into) {
    return std::make_unique<KafkaSource>(o, into, warpwatch::alerting::kafka_log(log.logger()));
  }
  // Starts `source` and waits (at most 20 s) until it holds `partitions` partitions.
  void start_assigned(KafkaSource& source, std::uint64_t partitions) {
    source.start();
    ASSERT_TRUE(wait_until(
        [&] {
          const auto c = source.counters();
          return c.connected && c.partitions_assigned == partitions;
        },
        20s))
        << "not assigned " << partitions << " partitions within 20 s\n"
        << log.joined();
  }
  // The samples taken from `from` per stream: their times, in the order they arrived.
  std::map<std::string, std::vector<std::int64_t>> take(IngestHub& from, std::size_t want) {
    std::map<std::string, std::vector<std::int64_t>> times;
    const std::size_t got = take_until(
        from, want,
        [&](IngestBatch b) {
          for (const QueuedSamples& q : b.streams) {
            auto& t = times[q.stream->id];
            t.insert(t.end(), q.times_ns.begin(), q.times_ns.end());
          }
        },
        20s);
    EXPECT_EQ(got, want) << log.joined();
    return times;
  }

  KafkaCluster cluster;
  CapturedLog log;
  StreamRegistry registry{
      {},
      auto_create(),
      [this](std::string_view stream, RejectReason reason, std::string_view detail) {
        log.logger()->warn("rejected input on stream '{}': {}: {}", stream, to_string(reason),
                           detail);
      }};
  IngestHub hub{registry, QueueLimits{}};
};

TEST_F(KafkaSourceTest, StreamsOfSeveralPartitionsArriveInOrderByKey) {
  cluster.create_topic("samples", 4);
  auto source = make(options(), hub);
  start_assigned(*source, 4);
  // 8 streams over 4 partitions, 3 messages each of 4 samples, in frames and text.
  for (int m = 0; m < 3; ++m)
    for (int s = 0; s < 8; ++s) {
      const std::string id = "pump-" + std::to_string(s);
      const std::int64_t t0 = kT0 + m * 4000;
      const std::string value =
          s % 2 ? frame_text(t0, {1, 2, 3, 4})
                : encode_text({1, {t0, t0 + 1000, t0 + 2000, t0 + 3000}, {1, 2, 3, 4}});
      cluster.produce("samples", s % 4, id, value);
    }
  const auto times = take(hub, 8 * 3 * 4);
  ASSERT_EQ(times.size(), 8u);
  for (const auto& [id, t] : times) {
    ASSERT_EQ(t.size(), 12u) << id;
    for (std::size_t i = 0; i < t.size(); ++i)
      EXPECT_EQ(t[i], kT0 + static_cast<std::int64_t>(i) * 1000) << id << " sample " << i;
  }
  const auto streams = source->partition_streams();
  ASSERT_EQ(streams.size(), 4u);
  for (int p = 0; p < 4; ++p)
    EXPECT_EQ(streams.at(p), (std::set<std::string>{"pump-" + std::to_string(p),
                                                    "pump-" + std::to_string(p + 4)}));
  const KafkaCounters c = source->counters();
  EXPECT_EQ(c.messages, 24u);
  EXPECT_EQ(c.no_key + c.stream_mismatch + c.consume_errors, 0u);
  // The consumed offsets are committed (every commit_interval): each partition's 6 messages.
  EXPECT_TRUE(wait_until([&] { return cluster.committed("g", "samples", 3) == 6; }, 10s))
      << cluster.committed("g", "samples", 3);
  source->stop();
  for (int p = 0; p < 4; ++p) EXPECT_EQ(cluster.committed("g", "samples", p), 6) << p;
  EXPECT_FALSE(source->connected());
}

TEST_F(KafkaSourceTest, BadMessagesAreCountedPerReasonAndTheRestKept) {
  cluster.create_topic("samples", 1);
  auto o = options();
  o.payload = PayloadFormat::any;
  auto source = make(o, hub);
  start_assigned(*source, 1);
  cluster.produce("samples", 0, "", "1,1\n", /*has_key=*/false);             // no key: no stream
  cluster.produce("samples", 0, "a", R"({"stream": "b", "t": 5, "v": 1})");  // names another
  cluster.produce("samples", 0, "a",
                  R"([{"stream": "a", "t": 6, "v": 1}, {"stream": "c", "t": 7, "v": 2}])");
  cluster.produce("samples", 0, "a", "WWF\x01garbage");  // a broken frame
  cluster.produce("samples", 0, "a", R"([{"stream": "a", "t": 8, "v": 1}, {"t": 9, "v": 2}])");
  cluster.produce("samples", 0, "a", "10,3\n11,oops\n12,4\n");  // one bad line of three
  const auto times = take(hub, 4);
  EXPECT_EQ(times.at("a"), (std::vector<std::int64_t>{8, 9, 10, 12}));
  const KafkaCounters c = source->counters();
  EXPECT_EQ(c.messages, 6u);
  EXPECT_EQ(c.no_key, 1u);
  EXPECT_EQ(c.stream_mismatch, 2u);
  const auto rejected = registry.snapshot().rejected;
  EXPECT_EQ(rejected[RejectReason::invalid_stream_id], 3u);  // no key, two mismatches
  EXPECT_EQ(rejected[RejectReason::malformed_frame], 2u);    // the frame, the line
  EXPECT_GE(log.count("invalid_stream_id: no_key: kafka message at partition 0 offset "), 1u)
      << log.joined();
  EXPECT_GE(log.count(" has no key (the key is the stream id)"), 1u) << log.joined();
  EXPECT_GE(log.count("invalid_stream_id: stream_mismatch: kafka message at partition 0 "), 1u)
      << log.joined();
  EXPECT_GE(log.count(": its JSON names stream 'b', its key another"), 1u) << log.joined();
}

TEST_F(KafkaSourceTest, AFullQueuePausesThePartitionsAndLosesNothing) {
  cluster.create_topic("samples", 2);
  // Room for 4 messages of 50 samples (12 bytes each) per stream and 6 in all. A resume
  // takes a fetch (about a second with librdkafka 2.0), so the queue holds a few messages.
  IngestHub small(registry, QueueLimits{.max_message_bytes = 1 << 20,
                                        .total_bytes = 6 * 50 * 12,
                                        .stream_bytes = 4 * 50 * 12});
  constexpr int kMessages = 16;  // per stream, 2 streams
  for (int m = 0; m < kMessages; ++m)
    for (int s = 0; s < 2; ++s)
      cluster.produce("samples", s, std::string(1, static_cast<char>('a' + s)),
                      frame_text(kT0 + m * 50'000, std::vector<float>(50, 1.0F)));
  auto source = make(options(), small);
  start_assigned(*source, 2);
  // Nothing is taken until the source has paused: the queue fills first.
  ASSERT_TRUE(wait_until([&] { return source->counters().backpressure; }, 20s)) << log.joined();
  EXPECT_GE(source->counters().pauses, 1u);
  const auto times = take(small, 2 * kMessages * 50);
  for (const auto& [id, t] : times) {
    ASSERT_EQ(t.size(), kMessages * 50u) << id;
    EXPECT_TRUE(std::is_sorted(t.begin(), t.end())) << id;
  }
  EXPECT_EQ(registry.snapshot().rejected[RejectReason::queue_full], 0u);
  EXPECT_TRUE(wait_until([&] { return !source->counters().backpressure; })) << log.joined();
}

TEST_F(KafkaSourceTest, TwoMembersOfOneGroupSplitThePartitionsAndTakeEachMessageOnce) {
  cluster.create_topic("samples", 6);
  StreamRegistry registry2({}, auto_create());
  IngestHub hub2(registry2, QueueLimits{});
  auto o1 = options("shared");
  o1.instance_id = "host-1";
  auto o2 = options("shared");
  o2.instance_id = "host-2";
  auto first = make(o1, hub);
  start_assigned(*first, 6);
  auto second = make(o2, hub2);
  second->start();
  // The second's join moves some partitions to it (cooperative: the first keeps the rest).
  ASSERT_TRUE(wait_until(
      [&] {
        const auto a = first->counters(), b = second->counters();
        return a.connected && b.connected && a.partitions_assigned + b.partitions_assigned == 6 &&
               a.partitions_assigned > 0 && b.partitions_assigned > 0;
      },
      30s))
      << log.joined();
  std::set<std::int32_t> all;
  for (const auto* source : {first.get(), second.get()})
    for (const auto& [partition, streams] : source->partition_streams())
      EXPECT_TRUE(all.insert(partition).second) << "partition " << partition << " twice";
  EXPECT_EQ(all.size(), 6u);
  for (int s = 0; s < 12; ++s)
    cluster.produce("samples", s % 6, std::string("m").append(std::to_string(s)),
                    frame_text(kT0, {1, 2, 3}));
  std::size_t in_first = 0, in_second = 0;
  for (int p = 0; p < 6; ++p) (first->partition_streams().contains(p) ? in_first : in_second) += 2;
  const auto a = take(hub, in_first * 3);
  const auto b = take(hub2, in_second * 3);
  EXPECT_EQ(a.size() + b.size(), 12u);
  for (const auto& [id, t] : a) EXPECT_FALSE(b.contains(id)) << id << " taken twice";
}

}  // namespace
