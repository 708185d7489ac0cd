// A `kafka` ingest entry read into KafkaSourceOptions and a `kafka` sink into SinkConfig:
// every key, the defaults, and a changed entry counted as a change that waits for a
// restart. Their errors are cases of test_daemon_config.cpp's table.
#include <gtest/gtest.h>

#include "in_kafka/in_kafka.hpp"
#include "out_kafka/out_kafka.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch::config;
using warpwatch::plugins::in_kafka::KafkaOptions;
using warpwatch::stream::PayloadFormat;
using warpwatch::testing::TempDir;
using namespace std::chrono_literals;

TEST(KafkaConfig, EveryKeyOfTheSourceAndTheSinkIsRead) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", R"(streams: {auto_create: true}
ingest:
  - kafka:
      brokers: "k1:9092,k2:9092"
      topic: sensors
      group_id: plant
      instance_id: host-1
      payload: frame
      session_timeout_ms: 15000
      properties: {security.protocol: plaintext, fetch.wait.max.ms: "50"}
sinks:
  - kafka: {brokers: "k1:9092", topic: events, properties: {compression.codec: lz4}}
    rules: [hot]
    queue: 500
    timeout_ms: 30000
)");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.ingest.size(), 1u);
  EXPECT_EQ(c.ingest[0].kind, "kafka");
  const auto& k = c.ingest[0].options_as<KafkaOptions>().kafka;
  EXPECT_EQ(k.brokers, "k1:9092,k2:9092");
  EXPECT_EQ(k.topic, "sensors");
  EXPECT_EQ(k.group_id, "plant");
  EXPECT_EQ(k.instance_id, "host-1");
  EXPECT_EQ(k.payload, PayloadFormat::frame);
  EXPECT_EQ(k.session_timeout, 15000ms);
  EXPECT_EQ(k.properties, (std::map<std::string, std::string>{{"security.protocol", "plaintext"},
                                                              {"fetch.wait.max.ms", "50"}}));
  ASSERT_EQ(c.sinks.size(), 1u);
  const SinkConfig& s = c.sinks[0];
  EXPECT_EQ(s.kind, "kafka");
  EXPECT_EQ(s.sink.name, "kafka events");
  const auto& sk = s.options_as<warpwatch::plugins::out_kafka::KafkaOptions>().kafka;
  EXPECT_EQ(sk.brokers, "k1:9092");
  EXPECT_EQ(sk.topic, "events");
  EXPECT_EQ(sk.properties, (std::map<std::string, std::string>{{"compression.codec", "lz4"}}));
  EXPECT_EQ(s.sink.rules, (std::vector<std::string>{"hot"}));
  EXPECT_EQ(s.sink.queue, 500u);
  EXPECT_EQ(s.sink.timeout, 30000ms);
}

TEST(KafkaConfig, DefaultsAndAChangeThatWaitsForARestart) {
  TempDir dir;
  const std::string text = R"(streams: {auto_create: true}
ingest:
  - kafka: {brokers: "k:9092", topic: t, group_id: g}
)";
  const DaemonConfig a = warpwatch::plugins::parse_daemon_config(text, dir.file("a.yaml"));
  const auto& k = a.ingest.at(0).options_as<KafkaOptions>().kafka;
  EXPECT_EQ(k.instance_id, "");
  EXPECT_EQ(k.payload, PayloadFormat::any);
  EXPECT_EQ(k.session_timeout, 10000ms);
  EXPECT_TRUE(k.properties.empty());
  DaemonConfig b = a;
  KafkaOptions other = a.ingest[0].options_as<KafkaOptions>();
  other.kafka.instance_id = "host-2";
  b.ingest[0] = warpwatch::plugins::source_entry(other);
  EXPECT_EQ(startup_options_changed(a, b), (std::vector<std::string>{"ingest"}));
  EXPECT_TRUE(startup_options_changed(a, a).empty());
}

}  // namespace
