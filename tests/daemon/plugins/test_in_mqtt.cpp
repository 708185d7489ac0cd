// The `mqtt` plugin (daemon/plugins/in_mqtt/): an entry read into its MqttOptions: every
// key, the defaults, the port that TLS changes, the password from its file (never from the
// YAML, never printed), and a changed entry counted as a change that waits for a restart. Its
// errors are cases of tests/config/test_daemon_config.cpp's table.
#include <gtest/gtest.h>

#include "cli_test_support.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch::config;
using warpwatch::stream::PayloadFormat;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;
using namespace std::chrono_literals;

TEST(MqttConfig, EveryKeyIsRead) {
  TempDir dir;
  dir.write("mqtt.password", "s3cret\r\n");
  dir.write("ca.pem", "");
  dir.write("client.pem", "");
  dir.write("client.key", "");
  const std::string path = dir.write("warpwatch.yaml", R"(streams: {auto_create: true}
ingest:
  - mqtt:
      host: broker.plant
      port: 1884
      topics: ["plant/+/+", "lab/#"]
      qos: 1
      stream_template: "{2}-{3}"
      payload: json
      client_id: warpwatch-1
      clean_session: false
      username: ww
      password_file: mqtt.password
      keepalive_s: 10
      reconnect_min_ms: 250
      reconnect_max_ms: 8000
      retained: true
      tls: {ca_file: ca.pem, cert_file: client.pem, key_file: client.key}
)");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.ingest.size(), 1u);
  EXPECT_EQ(c.ingest[0].kind, "mqtt");
  const auto& src = c.ingest[0].options_as<warpwatch::plugins::in_mqtt::MqttOptions>();
  const auto& m = src.mqtt;
  EXPECT_EQ(m.host, "broker.plant");
  EXPECT_EQ(m.port, 1884);
  EXPECT_EQ(m.topics, (std::vector<std::string>{"plant/+/+", "lab/#"}));
  EXPECT_EQ(m.qos, 1);
  EXPECT_EQ(m.stream_template, "{2}-{3}");
  EXPECT_EQ(m.payload, PayloadFormat::json);
  EXPECT_EQ(m.client_id, "warpwatch-1");
  EXPECT_FALSE(m.clean_session);
  EXPECT_EQ(m.username, "ww");
  EXPECT_EQ(m.password, "s3cret") << "the file's content without its line end";
  EXPECT_EQ(src.password_file, dir.file("mqtt.password"));
  EXPECT_EQ(m.keepalive_s, 10);
  EXPECT_EQ(m.reconnect_min, 250ms);
  EXPECT_EQ(m.reconnect_max, 8000ms);
  EXPECT_TRUE(m.retained);
  ASSERT_TRUE(m.tls.has_value());
  EXPECT_EQ(m.tls->ca_file, dir.file("ca.pem")) << "relative to the configuration's folder";
  EXPECT_EQ(m.tls->cert_file, dir.file("client.pem"));
  EXPECT_EQ(m.tls->key_file, dir.file("client.key"));

  const auto summary = run_cli({"check-config", path});
  EXPECT_EQ(summary.status, 0) << summary.err;
  EXPECT_NE(summary.out.find("mqtts  broker.plant:1884 topics \"plant/+/+\" \"lab/#\" -> "
                             "\"{2}-{3}\", payload json, qos 1, persistent session, user ww "
                             "(password from " +
                             dir.file("mqtt.password") + ")"),
            std::string::npos)
      << summary.out;
  EXPECT_EQ(summary.out.find("s3cret"), std::string::npos) << "the password is never printed";
}

TEST(MqttConfig, DefaultsAndThePortThatTlsChanges) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", R"(ingest:
  - mqtt: {host: a, topics: x}
  - mqtt: {host: b, topics: [y/#], tls: {}}
)");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.ingest.size(), 2u);
  const warpwatch::stream::MqttSourceOptions defaults;
  const auto& plain = c.ingest[0].options_as<warpwatch::plugins::in_mqtt::MqttOptions>().mqtt;
  EXPECT_EQ(plain.port, 1883);
  EXPECT_EQ(plain.topics, std::vector<std::string>{"x"});
  EXPECT_EQ(plain.qos, defaults.qos);
  EXPECT_EQ(plain.stream_template, defaults.stream_template);
  EXPECT_EQ(plain.payload, defaults.payload);
  EXPECT_EQ(plain.client_id, defaults.client_id);
  EXPECT_EQ(plain.clean_session, defaults.clean_session);
  EXPECT_EQ(plain.username, "");
  EXPECT_EQ(plain.password, "");
  EXPECT_EQ(plain.keepalive_s, defaults.keepalive_s);
  EXPECT_EQ(plain.reconnect_min, defaults.reconnect_min);
  EXPECT_EQ(plain.reconnect_max, defaults.reconnect_max);
  EXPECT_EQ(plain.retained, defaults.retained);
  EXPECT_FALSE(plain.tls.has_value());
  const auto& tls = c.ingest[1].options_as<warpwatch::plugins::in_mqtt::MqttOptions>().mqtt;
  EXPECT_EQ(tls.port, 8883);
  ASSERT_TRUE(tls.tls.has_value()) << "`tls: {}` turns TLS on";
  EXPECT_EQ(tls.tls->ca_file, "") << "the system's trusted CAs";
}

TEST(MqttConfig, AChangedEntryWaitsForARestart) {
  TempDir dir;
  const std::string before = dir.write("a.yaml", "ingest:\n  - mqtt: {host: a, topics: x}\n");
  const std::string after =
      dir.write("b.yaml", "ingest:\n  - mqtt: {host: a, topics: x, qos: 1}\n");
  const DaemonConfig a = warpwatch::plugins::load_daemon_config(before),
                     b = warpwatch::plugins::load_daemon_config(after);
  EXPECT_TRUE(startup_options_changed(a, a).empty());
  EXPECT_EQ(startup_options_changed(a, b), std::vector<std::string>{"ingest"});
}

}  // namespace
