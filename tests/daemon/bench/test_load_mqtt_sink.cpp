// The load generator's MQTT sink (bench::MqttSink, `warpwatch load --mqtt`) against a real
// Mosquitto broker: what it publishes reaches a daemon's `mqtt` source, sample for sample;
// while the broker is down it refuses (the generator waits) and it sends again once the
// broker is back.
#include <gtest/gtest.h>

#include <string>

#include "daemon_e2e_support.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "log_capture.hpp"
#include "processes/mosquitto_broker.hpp"
#include "source_counters.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(LoadMqttSink, WhatItPublishesReachesTheDaemonAndABrokerOutageIsWaitedFor) {
  TempDir dir;
  MosquittoBroker broker(dir);
  kernels::PatternDef blip = make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0);
  auto cfg = base_config({"m-0", "m-1"}, {blip});
  plugins::in_mqtt::MqttOptions mqtt;
  mqtt.mqtt.host = "127.0.0.1";
  mqtt.mqtt.port = broker.port();
  mqtt.mqtt.topics = {"soak/+"};
  mqtt.mqtt.stream_template = "{2}";
  mqtt.mqtt.qos = 1;
  mqtt.mqtt.reconnect_min = 100ms;
  mqtt.mqtt.reconnect_max = 500ms;
  cfg.ingest = {plugins::source_entry(mqtt)};
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  ASSERT_TRUE(wait_until([&] { return mqtt_counters(pipeline).connected; })) << log.joined();

  bench::LoadOptions o;
  o.streams = 2;
  o.stream_prefix = "m-";
  o.frame = 25;
  o.every = 0;
  o.samples_per_stream = 500;
  const bench::LoadGenerator generator(o);
  bench::MqttSink sink({.host = "127.0.0.1",
                        .port = broker.port(),
                        .topic_prefix = "soak/",
                        .qos = 1,
                        .linger_ms = 5000});
  const bench::LoadResult r = generator.run(sink);
  ASSERT_EQ(r.samples, 1000u);
  ASSERT_EQ(r.messages, 40u);
  ASSERT_TRUE(wait_until([&] { return pipeline.registry().snapshot().accepted_samples == 1000; }))
      << pipeline.registry().snapshot().accepted_samples << "\n"
      << log.joined();
  EXPECT_EQ(mqtt_counters(pipeline).messages, 40u);
  EXPECT_EQ(pipeline.registry().snapshot().rejected.total(), 0u);

  // The broker goes away: the sink refuses (the generator would wait) ...
  broker.kill();
  const std::vector<std::byte> payload =
      stream::encode_frame(samples_at(1000, std::vector<float>(5, 0.0f)), false);
  ASSERT_TRUE(wait_until([&] { return !sink.try_send("m-0", payload); })) << "still sending";
  // ... and sends again once it is back.
  broker.start();
  bool sent = false;
  ASSERT_TRUE(wait_until([&] {
    if (!sent) sent = sink.try_send("m-0", payload);
    return sent;
  })) << "not sending after the broker came back";
  pipeline.shutdown();
}

}  // namespace
