// The Pipeline with a `kafka` ingest entry and a `kafka` sink, in-process, against
// librdkafka's mock cluster (tests/support/processes/kafka_cluster.hpp): samples of two streams on
// two partitions are matched, each event is published and produced to the events topic
// (key = stream id, value = the event's JSON with its deterministic id), and /metrics shows
// the source's and the sink's counters; /readyz waits for the group.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <zmq.hpp>

#include <filesystem>
#include <string>

#include "daemon_e2e_support.hpp"
#include "in_kafka/in_kafka.hpp"
#include "log_capture.hpp"
#include "out_kafka/out_kafka.hpp"
#include "processes/kafka_cluster.hpp"
#include "processes/mosquitto_broker.hpp"  // wait_until
#include "source_counters.hpp"
#include "test_support.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/service/checkpoint.hpp"
#include "warpwatch/service/metrics.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(PipelineKafka, SamplesFromAPartitionedTopicAreMatchedAndTheEventsProducedToATopic) {
  KafkaCluster cluster;
  cluster.create_topic("samples", 2);
  cluster.create_topic("events", 1);
  kernels::PatternDef blip = make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0);
  auto cfg = base_config({"pump-1", "pump-2"}, {blip});
  plugins::in_kafka::KafkaOptions kafka;
  kafka.kafka.brokers = cluster.bootstraps();
  kafka.kafka.topic = "samples";
  kafka.kafka.group_id = "plant";
  kafka.kafka.instance_id = "host-1";
  kafka.kafka.session_timeout = std::chrono::milliseconds(6000);
  cfg.ingest = {plugins::source_entry(kafka)};
  plugins::out_kafka::KafkaOptions sink;
  sink.kafka.brokers = cluster.bootstraps();
  sink.kafka.topic = "events";
  config::SinkOptions common;
  common.name = "kafka events";
  cfg.sinks = {plugins::sink_entry(sink, common)};
  TempDir state;
  cfg.state_dir = state.path();  // a file checkpoint beside the changelog
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  zmq::context_t ctx;
  Subscriber events(ctx, pipeline.publish_endpoint());
  EXPECT_TRUE(pipeline.unready().has_value());
  pipeline.start();
  ASSERT_TRUE(wait_until([&] { return !pipeline.unready(); }, std::chrono::seconds(20)))
      << *pipeline.unready() << "\n"
      << log.joined();

  const std::vector<float> values = {0, 0, 0, 5, -5, 0, 0, 0};
  for (int s = 1; s <= 2; ++s) {
    std::string lines;
    for (std::size_t i = 0; i < values.size(); ++i)
      lines += std::to_string(kT0 + static_cast<std::int64_t>(i) * kPeriod) + "," +
               std::to_string(values[i]) + "\n";
    cluster.produce("samples", s - 1, "pump-" + std::to_string(s), lines);
  }
  ASSERT_TRUE(step_until(
      pipeline,
      [&] { return pipeline.stats().samples == 2 * values.size() && events.events.size() == 2; },
      std::chrono::seconds(10), &events))
      << log.joined();
  ASSERT_TRUE(wait_until([&] { return pipeline.sink_counters().at(0).sent == 2; })) << log.joined();
  const auto produced = cluster.read_all("events");
  ASSERT_EQ(produced.size(), 2u);
  std::set<std::string> keys;
  for (const KafkaRecord& r : produced) {
    const auto e = nlohmann::json::parse(r.value);
    keys.insert(r.key);
    EXPECT_EQ(e.at("stream"), r.key);
    EXPECT_EQ(e.at("pattern"), "blip");
    EXPECT_EQ(e.at("id"),
              alerting::event_id(r.key, "blip", e.at("start_index").get<std::uint64_t>(),
                                 e.at("end_index").get<std::uint64_t>()));
  }
  EXPECT_EQ(keys, (std::set<std::string>{"pump-1", "pump-2"}));
  // The published events carry the same ids.
  for (const Received& r : events.events)
    EXPECT_EQ(r.event.at("id"), alerting::event_id(r.event.at("stream").get<std::string>(), "blip",
                                                   r.event.at("start_index").get<std::uint64_t>(),
                                                   r.event.at("end_index").get<std::uint64_t>()));

  const auto metrics =
      bench::parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
  const std::string source =
      "{source=\"kafka samples group plant at " + cluster.bootstraps() + "\"";
  EXPECT_EQ(metrics.at("warpwatch_kafka_connected" + source + "}"), 1.0);
  EXPECT_EQ(metrics.at("warpwatch_kafka_messages_total" + source + "}"), 2.0);
  EXPECT_EQ(metrics.at("warpwatch_kafka_partitions_assigned" + source + "}"), 2.0);
  EXPECT_EQ(metrics.at("warpwatch_kafka_rejected_total" + source + ",reason=\"no_key\"}"), 0.0);
  EXPECT_EQ(metrics.at("warpwatch_sink_sent_total{sink=\"kafka events\"}"), 2.0);
  // The streams the Kafka source holds are its changelog's: the file leaves them out.
  ASSERT_TRUE(pipeline.checkpoint()) << log.joined();
  const auto file = service::decode_checkpoint(
      service::read_whole_file(std::filesystem::path(cfg.state_dir) / "checkpoint.bin"));
  EXPECT_TRUE(file.streams.empty()) << file.streams.size() << " streams in the file";
  pipeline.shutdown();
  EXPECT_FALSE(kafka_counters(pipeline).connected);
  EXPECT_EQ(cluster.committed("plant", "samples", 0), 1);  // left the group after a commit
}

// A graceful handover in the middle of an occurrence: the first daemon matches the first
// half of it and stops (SIGTERM's path: its partitions revoked, their state cut to the
// changelog with the offset after its last message, then committed); the second restores
// the state from the changelog, reads on from exactly that offset, and reports the
// occurrence once, at the indices of an uninterrupted run. Nothing is replayed.
TEST(PipelineKafka, AnOccurrenceSpanningAHandoverIsReportedOnceAtItsIndices) {
  KafkaCluster cluster;
  cluster.create_topic("samples", 2);
  cluster.create_topic("plant-state", 2);  // the changelog
  kernels::PatternDef ramp =
      make_pattern("ramp", {0, 2, 4, 6, 8, 6, 4, 2, 0}, kernels::Mode::stream, 1.0);
  auto cfg = base_config({"pump-1"}, {ramp});
  plugins::in_kafka::KafkaOptions kafka;
  kafka.kafka.brokers = cluster.bootstraps();
  kafka.kafka.topic = "samples";
  kafka.kafka.group_id = "plant";
  kafka.kafka.session_timeout = std::chrono::milliseconds(6000);
  cfg.ingest = {plugins::source_entry(kafka)};
  cfg.checkpoint_interval = std::chrono::milliseconds(0);  // cuts only at revocation
  // 30 samples of 0, the ramp at 30..38, then 0s; sent in messages of 4 samples, the
  // handover after sample 34 (mid-ramp: 0, 2, 4, 6, 8 | 6, 4, 2, 0).
  std::vector<float> values(60, 0.0F);
  for (std::size_t k = 0; k < ramp.values.size(); ++k) values[30 + k] = ramp.values[k];
  const auto send = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; i += 5) {
      std::string lines;
      for (std::size_t j = i; j < std::min(to, i + 5); ++j)
        lines += std::to_string(kT0 + static_cast<std::int64_t>(j) * kPeriod) + "," +
                 std::to_string(values[j]) + "\n";
      cluster.produce("samples", 1, "pump-1", lines);
    }
  };
  CapturedLog log_a, log_b;
  zmq::context_t ctx;
  {
    auto first_cfg = cfg;
    first_cfg.instance = "first";
    service::Pipeline first(first_cfg, log_a.logger());
    Subscriber events(ctx, first.publish_endpoint());
    first.start();
    // Stepping: an assignment's restore is served by the scheduler's round.
    ASSERT_TRUE(step_until(
        first, [&] { return !first.unready(); }, std::chrono::seconds(20)))
        << log_a.joined();
    send(0, 35);
    ASSERT_TRUE(step_until(
        first, [&] { return first.stats().samples == 35; }, std::chrono::seconds(10), &events))
        << log_a.joined();
    first.shutdown();
    events.drain();
    EXPECT_TRUE(events.events.empty()) << events.events.front().event.dump();
  }
  // The changelog holds the stream at the offset after the 7 messages, and so does the
  // committed offset.
  const auto records = cluster.read_all("plant-state");
  ASSERT_EQ(records.size(), 1u) << log_a.joined();
  const service::StreamRecord r = service::decode_stream_record(records[0].value);
  EXPECT_EQ(r.matcher.next_index, 35u);
  EXPECT_EQ(r.positions.at("partition"), 1);
  EXPECT_EQ(r.positions.at("offset"), 7);
  EXPECT_EQ(cluster.committed("plant", "samples", 1), 7);

  auto second_cfg = cfg;
  second_cfg.instance = "second";
  service::Pipeline second(second_cfg, log_b.logger());
  Subscriber events(ctx, second.publish_endpoint());
  second.start();
  ASSERT_TRUE(step_until(
      second, [&] { return !second.unready(); }, std::chrono::seconds(20)))
      << log_b.joined();
  send(35, values.size());
  ASSERT_TRUE(step_until(
      second,
      [&] { return second.stats().samples == values.size() - 35 && !events.events.empty(); },
      std::chrono::seconds(10), &events))
      << log_b.joined();
  ASSERT_EQ(events.events.size(), 1u);
  const auto& e = events.events.front().event;
  EXPECT_EQ(e.at("start_index"), 30);
  EXPECT_EQ(e.at("end_index"), 38);
  EXPECT_EQ(e.at("id"), alerting::event_id("pump-1", "ramp", 30, 38));
  EXPECT_EQ(log_b.count("partition 1: restored 1 of 1 streams, reading on from offset 7"), 1u)
      << log_b.joined();
  const auto metrics = kafka_counters(second);
  EXPECT_EQ(metrics.streams_restored, 1u);
  EXPECT_EQ(metrics.messages, 5u);  // 25 samples in messages of 5: none again
  second.shutdown();
}

}  // namespace
