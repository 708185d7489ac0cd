// The Kafka event sink against librdkafka's mock cluster
// (tests/support/processes/kafka_cluster.hpp): the events of its rules arrive keyed by stream
// with the JSON `publish` sends; a full queue refuses and counts; a broker that never answers
// leaves the events unsent at stop, counted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <vector>

#include "alerting_support.hpp"
#include "log_capture.hpp"
#include "processes/kafka_cluster.hpp"
#include "processes/mosquitto_broker.hpp"  // wait_until
#include "test_support.hpp"
#include "warpwatch/alerting/kafka_sink.hpp"
#include "warpwatch/bench/loopback.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using alerting::KafkaSink;
using alerting::SharedEvent;
using namespace std::chrono_literals;

struct Kafka {
  config::SinkOptions sink;
  alerting::KafkaSinkOptions kafka;
};

Kafka kafka_sink(const std::string& brokers, std::vector<std::string> rules = {"*"}) {
  Kafka c;
  c.sink.name = "kafka events";
  c.kafka.brokers = brokers;
  c.kafka.topic = "events";
  c.sink.rules = std::move(rules);
  return c;
}

std::vector<SharedEvent> events(std::initializer_list<std::pair<const char*, const char*>> which) {
  std::vector<SharedEvent> out;
  std::uint64_t end = 9;
  for (const auto& [rule, stream] : which) {
    alerting::Event e = sample_event(rule, stream, end++);
    e.sequence = end;
    out.push_back(std::make_shared<const alerting::Event>(std::move(e)));
  }
  return out;
}

TEST(KafkaSink, DeliversTheEventsOfItsRulesKeyedByStream) {
  KafkaCluster cluster;
  cluster.create_topic("events", 2);
  CapturedLog log;
  const auto config = kafka_sink(cluster.bootstraps(), {"hot*"});
  KafkaSink sink(config.sink, config.kafka, log.logger());
  const auto offered = events({{"hot", "pump.1"}, {"cold", "pump.2"}, {"hotter", "pump.3"}});
  sink.offer(offered);
  ASSERT_TRUE(wait_until([&] { return sink.counters().sent == 2; })) << log.joined();
  const auto records = cluster.read_all("events");
  ASSERT_EQ(records.size(), 2u);
  std::map<std::string, nlohmann::json> by_key;
  for (const auto& r : records) by_key[r.key] = nlohmann::json::parse(r.value);
  ASSERT_TRUE(by_key.contains("pump.1") && by_key.contains("pump.3")) << records.front().key;
  EXPECT_EQ(by_key["pump.1"], nlohmann::json::parse(alerting::to_json(*offered[0])));
  EXPECT_EQ(by_key["pump.3"].at("id"), offered[2]->id);
  sink.stop(std::chrono::steady_clock::now() + 5s);
  const auto c = sink.counters();
  EXPECT_EQ(c.sent, 2u);
  EXPECT_EQ(c.queued + c.dropped + c.failed + c.unsent_at_stop, 0u);
  sink.offer(offered);  // after the stop: counted, not sent
  EXPECT_EQ(sink.counters().unsent_at_stop, 2u);
}

TEST(KafkaSink, AFullQueueRefusesTheNewestAndAnAbsentBrokerLeavesThemUnsent) {
  // Nobody listens on the port: nothing is delivered, the queue (1 event) stays full.
  auto config = kafka_sink("127.0.0.1:" + std::to_string(bench::free_loopback_port()));
  config.sink.queue = 1;
  config.sink.timeout = 60000ms;
  CapturedLog log;
  KafkaSink sink(config.sink, config.kafka, log.logger());
  sink.offer(events({{"a", "s1"}, {"a", "s2"}, {"a", "s3"}}));
  auto c = sink.counters();
  EXPECT_EQ(c.queued, 1u);
  EXPECT_EQ(c.dropped, 2u);
  EXPECT_EQ(log.count("queue full (1 events): refused the newest 2 event(s)"), 1u) << log.joined();
  sink.stop(std::chrono::steady_clock::now() + 200ms);
  c = sink.counters();
  EXPECT_EQ(c.sent, 0u);
  EXPECT_EQ(c.unsent_at_stop, 1u);
  EXPECT_EQ(c.queued, 0u);
  EXPECT_EQ(log.count("1 event(s) not delivered when the sink stopped"), 1u) << log.joined();
}

}  // namespace
