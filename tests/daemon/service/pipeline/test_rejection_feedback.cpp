// Every rejected message is counted under one reason and logged with that reason and the
// stream (or, without an id, the peer) it came from, on the real transports (issue 36): a
// later, different mistake is logged after a flood of another; raw text on a ZeroMQ pull
// socket (over plain TCP, or as a single frame) is counted and logged with its peer; a
// line-protocol line that does not parse is named by its measurement and sender, and one
// without a configured field is logged and counted as missing_field.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <zmq.hpp>

#include <string>
#include <thread>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "in_influx/in_influx.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "log_capture.hpp"
#include "processes/mosquitto_broker.hpp"
#include "source_counters.hpp"
#include "test_support.hpp"
#include "warpwatch/service/metrics.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
namespace asio = boost::asio;
using stream::RejectReason;

unsigned short port_of(const std::string& endpoint) {
  return static_cast<unsigned short>(std::stoul(endpoint.substr(endpoint.rfind(':') + 1)));
}

// The registry counts a rejection, then logs it (outside its lock): wait for the line too.
std::size_t logged(const CapturedLog& log, const std::string& text) {
  (void)wait_until([&] { return log.count(text) > 0; }, 5s);
  return log.count(text);
}

std::map<std::string, double> metrics_of(const service::Pipeline& pipeline) {
  return parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
}

TEST(RejectionFeedback, AfterAFloodOfOneMqttMistakeTwoOtherMistakesAreStillLogged) {
  TempDir dir;
  MosquittoBroker broker(dir);
  auto cfg = base_config({"pump-1"}, {make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0)});
  plugins::in_mqtt::MqttOptions mqtt;
  mqtt.mqtt.host = "127.0.0.1";
  mqtt.mqtt.port = broker.port();
  mqtt.mqtt.topics = {"plant/+"};
  mqtt.mqtt.stream_template = "{2}";
  mqtt.mqtt.qos = 1;
  cfg.ingest = {plugins::source_entry(mqtt)};
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  ASSERT_TRUE(wait_until([&] { return mqtt_counters(pipeline).connected; })) << log.joined();

  MqttPublisher pub(broker.port());
  const std::string sample = std::to_string(kT0) + ",1\n";
  for (int i = 0; i < 303; ++i) pub.publish("plant/ghost-1", sample, 1);  // the first mistake
  pub.publish("plant/ghost-2", sample, 1);                                // another id
  pub.publish("plant/pump-1", "[{\"t\": 1}]", 1);                         // no "v"
  ASSERT_TRUE(
      wait_until([&] { return pipeline.registry().snapshot().rejected.total() == 305; }, 10s))
      << log.joined();
  const auto snap = pipeline.registry().snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::unknown_stream], 304u);
  EXPECT_EQ(snap.rejected[RejectReason::malformed_frame], 1u);
  EXPECT_EQ(snap.log_suppressed, 302u) << "the flood of ghost-1 only";
  EXPECT_EQ(
      logged(log, "rejected input on stream 'ghost-1': unknown_stream: not a declared stream"), 1u)
      << log.joined();
  EXPECT_EQ(
      logged(log, "rejected input on stream 'ghost-2': unknown_stream: not a declared stream"), 1u)
      << log.joined();
  EXPECT_EQ(logged(log, "rejected input on stream 'pump-1': malformed_frame: element 1: no \"v\""),
            1u)
      << log.joined();
  pipeline.shutdown();
}

TEST(RejectionFeedback, RawTextOverTcpToAPullSocketIsCountedAndLoggedWithThePeer) {
  auto cfg = base_config({"s1"}, {make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0)});
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  const std::string endpoint = pipeline.ingest_endpoints().at(0);
  pipeline.start();

  asio::io_context io;
  asio::ip::tcp::socket raw(io);
  raw.connect({asio::ip::make_address("127.0.0.1"), port_of(endpoint)});
  const auto local_port = std::to_string(raw.local_endpoint().port());
  // As `nc` would: connected a moment before the text (the daemon reads the peer's address
  // from the open connection; one closed at once is logged as not read in time).
  std::this_thread::sleep_for(200ms);
  asio::write(raw, asio::buffer(std::string("1700000000000000000,1.5\n")));
  raw.close();
  ASSERT_TRUE(wait_until(
      [&] { return pipeline.registry().snapshot().rejected[RejectReason::malformed_frame] == 1; },
      10s))
      << log.joined();
  EXPECT_EQ(logged(log, "rejected input without a stream id: malformed_frame: pull " + endpoint +
                            ": from 127.0.0.1:" + local_port + ": not ZeroMQ"),
            1u)
      << log.joined();
  EXPECT_EQ(metrics_of(pipeline).at(R"(warpwatch_ingest_rejected_total{reason="malformed_frame"})"),
            1.0);

  // The same text as a one-frame ZeroMQ message: counted under its one part, the peer named.
  zmq::context_t ctx;
  zmq::socket_t push(ctx, zmq::socket_type::push);
  push.set(zmq::sockopt::linger, 2000);
  push.connect(endpoint);
  push.send(zmq::buffer(std::string("1700000000000000000,1.5")));
  ASSERT_TRUE(wait_until(
      [&] { return pipeline.registry().snapshot().rejected[RejectReason::wrong_part_count] == 1; },
      10s))
      << log.joined();
  EXPECT_EQ(logged(log,
                   "rejected input on stream '1700000000000000000,1.5': wrong_part_count: "
                   "expected 2 frames [stream id][payload], got 1 from 127.0.0.1"),
            1u)
      << log.joined();
  pipeline.shutdown();
}

TEST(RejectionFeedback, LineProtocolGarbageNamesItsMeasurementAndAMissingFieldIsMissingField) {
  auto cfg =
      base_config({"cpu.web-1"}, {make_pattern("blip", {5, -5}, kernels::Mode::stream, 1.0)});
  cfg.http.listen = "127.0.0.1:0";
  plugins::in_influx::InfluxOptions tcp;
  tcp.endpoint = "tcp://127.0.0.1:0";
  tcp.mapping = {"{measurement}.{tag:host}", {"usage"}, stream::Precision::ns};
  cfg.ingest = {plugins::source_entry(tcp)};
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  const std::string endpoint = pipeline.ingest_endpoints().at(0);
  pipeline.start();

  asio::io_context io;
  asio::ip::tcp::socket telegraf(io);
  telegraf.connect({asio::ip::make_address("127.0.0.1"), port_of(endpoint)});
  asio::write(telegraf, asio::buffer(std::string("cpu,host=web-1 usage=oops 1\n"
                                                 "cpu,host=web-1 idle=3 2\n")));
  telegraf.close();
  ASSERT_TRUE(wait_until([&] { return pipeline.registry().snapshot().rejected.total() == 2; }, 10s))
      << log.joined();
  EXPECT_EQ(logged(log, "rejected input without a stream id: malformed_frame: influx " + endpoint +
                            ": from 127.0.0.1:"),
            1u)
      << log.joined();
  EXPECT_EQ(logged(log, ", line 1, measurement 'cpu': "), 1u) << log.joined();
  EXPECT_EQ(log.count("stream ''"), 0u) << log.joined();
  EXPECT_EQ(logged(log, "rejected input on stream 'cpu.web-1': missing_field: influx " + endpoint +
                            ": from 127.0.0.1:"),
            1u)
      << log.joined();
  EXPECT_EQ(logged(log, ", line 2: no field 'usage' in 'cpu,host=web-1 idle=3 2'"), 1u)
      << log.joined();

  const HttpResponse scrape = http_get(pipeline.http_port(), "/metrics");
  const auto m = parse_prometheus_text(scrape.body);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="missing_field"})"), 1) << scrape.body;
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="wrong_dims"})"), 0);
  EXPECT_EQ(m.at(R"(warpwatch_stream_rejected_total{stream="cpu.web-1",reason="missing_field"})"),
            1);
  EXPECT_EQ(m.at("warpwatch_influx_rejected_total{source=\"influx " + endpoint +
                 "\",reason=\"missing_field\"}"),
            1);
  pipeline.shutdown();
}

}  // namespace
