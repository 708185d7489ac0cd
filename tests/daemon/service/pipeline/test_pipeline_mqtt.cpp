// The Pipeline with an `mqtt` ingest entry, in-process, against a real Mosquitto broker:
// samples published on MQTT are matched and their event published, a bad payload is
// counted, and /metrics shows the source's connection and message counters.
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <string>

#include "daemon_e2e_support.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "log_capture.hpp"
#include "processes/mosquitto_broker.hpp"
#include "source_counters.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/service/metrics.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(PipelineMqtt, SamplesFromABrokerAreMatchedAndTheSourceShowsInMetrics) {
  TempDir dir;
  MosquittoBroker broker(dir);
  kernels::PatternDef blip = make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0);
  auto cfg = base_config({"pump-1"}, {blip});
  plugins::in_mqtt::MqttOptions mqtt;
  mqtt.mqtt.host = "127.0.0.1";
  mqtt.mqtt.port = broker.port();
  mqtt.mqtt.topics = {"plant/+"};
  mqtt.mqtt.stream_template = "{2}";
  mqtt.mqtt.qos = 1;
  cfg.ingest = {plugins::source_entry(mqtt)};
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  zmq::context_t ctx;
  Subscriber events(ctx, pipeline.publish_endpoint());
  pipeline.start();
  ASSERT_TRUE(wait_until([&] { return mqtt_counters(pipeline).connected; })) << log.joined();

  MqttPublisher pub(broker.port());
  std::string lines;
  const std::vector<float> values = {0, 0, 0, 5, -5, 0, 0, 0};
  for (std::size_t i = 0; i < values.size(); ++i)
    lines += std::to_string(kT0 + static_cast<std::int64_t>(i) * kPeriod) + "," +
             std::to_string(values[i]) + "\n";
  pub.publish("plant/pump-1", lines, 1);
  pub.publish("plant/pump-1", "[{\"t\": 1}]", 1);  // no "v": counted, not matched
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().samples == values.size() && !events.events.empty(); },
      10s, &events))
      << log.joined();
  EXPECT_EQ(events.events.front().event["stream"], "pump-1");
  EXPECT_EQ(events.events.front().event["pattern"], "blip");
  EXPECT_EQ(pipeline.registry().snapshot().rejected[stream::RejectReason::malformed_frame], 1u);
  EXPECT_EQ(
      log.count("ingest: mqtt 127.0.0.1:" + std::to_string(broker.port()) + " plant/+: connected"),
      1u)
      << log.joined();

  const auto metrics =
      bench::parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
  const std::string source =
      "{source=\"mqtt 127.0.0.1:" + std::to_string(broker.port()) + " plant/+\"";
  EXPECT_EQ(metrics.at("warpwatch_mqtt_connected" + source + "}"), 1.0);
  EXPECT_EQ(metrics.at("warpwatch_mqtt_messages_total" + source + "}"), 2.0);
  EXPECT_EQ(metrics.at("warpwatch_mqtt_connections_total" + source + ",event=\"made\"}"), 1.0);
  EXPECT_EQ(metrics.at("warpwatch_mqtt_connections_total" + source + ",event=\"lost\"}"), 0.0);
  EXPECT_EQ(metrics.at("warpwatch_ingest_rejected_total{reason=\"unmapped_topic\"}"), 0.0);
  pipeline.shutdown();
  EXPECT_EQ(mqtt_counters(pipeline).connected, false);
}

}  // namespace
