// warpwatchd with `influx` ingest entries, in-process: line protocol written as Telegraf's
// socket_writer writes it, over TCP and UDP, becomes samples of the configured streams, is
// matched and published as events; bad lines are counted, logged once with their source
// and reason, and shown on /metrics.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/write.hpp>

#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "in_influx/in_influx.hpp"
#include "log_capture.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
namespace asio = boost::asio;

// `port` of an ingest endpoint "tcp://127.0.0.1:PORT".
unsigned short port_of(const std::string& endpoint) {
  return static_cast<unsigned short>(std::stoul(endpoint.substr(endpoint.rfind(':') + 1)));
}

config::DaemonConfig influx_config() {
  auto c = base_config({"cpu.web-1.usage", "acc.s1"},
                       {make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)});
  c.http.listen = "127.0.0.1:0";
  c.ingest.clear();
  plugins::in_influx::InfluxOptions tcp;  // per field, timestamps in ms
  tcp.endpoint = "tcp://127.0.0.1:0";
  tcp.mapping = {"{measurement}.{tag:host}.{field}", {"usage"}, stream::Precision::ms};
  c.ingest.push_back(plugins::source_entry(tcp));
  plugins::in_influx::InfluxOptions udp;  // fixed fields, timestamps in ns
  udp.endpoint = "udp://127.0.0.1:0";
  udp.mapping = {"{measurement}.{tag:site}", {"x"}, stream::Precision::ns};
  c.ingest.push_back(plugins::source_entry(udp));
  return c;
}

TEST(InfluxIngest, TelegrafLinesOverTcpAndUdpAreMatchedAndBadOnesCounted) {
  CapturedLog log;
  service::Pipeline pipeline(influx_config(), log.logger());
  const auto endpoints = pipeline.ingest_endpoints();
  ASSERT_EQ(endpoints.size(), 2u);
  ASSERT_TRUE(endpoints[0].starts_with("tcp://127.0.0.1:")) << endpoints[0];
  ASSERT_TRUE(endpoints[1].starts_with("udp://127.0.0.1:")) << endpoints[1];
  zmq::context_t ctx;
  Subscriber sub(ctx, pipeline.publish_endpoint());
  pipeline.start();
  std::this_thread::sleep_for(300ms);  // the slow joiner: the subscription reaches the PUB

  const std::vector<float> values = {0, 0, 0, 5, -5, 0, 0, 0};
  const std::int64_t t0_ms = 1'700'000'000'000;
  std::string tcp_lines, udp_lines;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string v = std::to_string(values[i]);
    tcp_lines += "cpu,host=web-1,cpu=cpu-total usage=" + v + ",note=\"ok\" " +
                 std::to_string(t0_ms + 10 * static_cast<std::int64_t>(i)) + "\n";
    if (i == 2) tcp_lines += "cpu,host=web-1 usage=oops " + std::to_string(t0_ms) + "\n";
    udp_lines += "acc,site=s1 x=" + v + ",y=1 " +
                 std::to_string((t0_ms + 10 * static_cast<std::int64_t>(i)) * 1'000'000) + "\n";
  }
  asio::io_context io;
  asio::ip::tcp::socket telegraf(io);
  telegraf.connect({asio::ip::make_address("127.0.0.1"), port_of(endpoints[0])});
  const std::size_t cut = tcp_lines.size() / 2 + 3;  // a write that ends inside a line
  asio::write(telegraf, asio::buffer(tcp_lines.substr(0, cut)));
  asio::write(telegraf, asio::buffer(tcp_lines.substr(cut)));
  asio::ip::udp::socket datagrams(io, asio::ip::udp::endpoint(asio::ip::udp::v4(), 0));
  datagrams.send_to(asio::buffer(udp_lines),
                    {asio::ip::make_address("127.0.0.1"), port_of(endpoints[1])});

  ASSERT_TRUE(step_until(
      pipeline,
      [&] {
        const auto snap = pipeline.registry().snapshot();
        return snap.accepted_samples == 16 && snap.rejected.total() == 1;
      },
      5000ms, &sub))
      << log.joined();
  const HttpResponse scrape = http_get(pipeline.http_port(), "/metrics");
  const auto summary = pipeline.shutdown();
  sub.wait_for(2, 3000ms);

  EXPECT_EQ(summary.samples, 16u);
  EXPECT_EQ(summary.rejected, 1u) << "the line whose usage is not a value";
  ASSERT_EQ(sub.events.size(), 2u) << log.joined();
  for (const auto& e : sub.events) {
    EXPECT_EQ(e.event.at("pattern"), "blip");
    EXPECT_EQ(e.event.at("start_ns").get<std::int64_t>(), (t0_ms + 30) * 1'000'000)
        << "the ms timestamps in ns";
  }
  EXPECT_NE(sub.events[0].event.at("stream"), sub.events[1].event.at("stream"));
  EXPECT_EQ(log.count("rejected input without a stream id: malformed_frame: influx " +
                      endpoints[0] + ": from 127.0.0.1:"),
            1u)
      << log.joined();

  ASSERT_EQ(scrape.status, 200);
  const auto m = parse_prometheus_text(scrape.body);
  const std::string tcp_source = "{source=\"influx " + endpoints[0] + "\"}";
  const std::string udp_source = "{source=\"influx " + endpoints[1] + "\"}";
  EXPECT_EQ(m.at("warpwatch_influx_lines_total" + tcp_source), 9) << scrape.body;
  EXPECT_EQ(m.at("warpwatch_influx_samples_total" + tcp_source), 8);
  EXPECT_EQ(m.at("warpwatch_influx_connections_total" + tcp_source), 1);
  EXPECT_EQ(m.at("warpwatch_influx_bytes_total" + tcp_source),
            static_cast<double>(tcp_lines.size()));
  EXPECT_EQ(m.at("warpwatch_influx_datagrams_total" + udp_source), 1);
  EXPECT_EQ(m.at("warpwatch_influx_lines_total" + udp_source), 8);
  EXPECT_EQ(m.at("warpwatch_influx_rejected_total{source=\"influx " + endpoints[0] +
                 "\",reason=\"syntax\"}"),
            1);
  EXPECT_EQ(m.at("warpwatch_influx_rejected_total{source=\"influx " + endpoints[1] +
                 "\",reason=\"syntax\"}"),
            0)
      << "every reason is listed";
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="malformed_frame"})"), 1);
}

TEST(InfluxIngest, AnAddressInUseFailsAtStartUpNamingIt) {
  CapturedLog log;
  service::Pipeline first(influx_config(), log.logger());
  auto c = influx_config();
  auto taken = c.ingest[0].options_as<plugins::in_influx::InfluxOptions>();
  taken.endpoint = first.ingest_endpoints().at(0);
  c.ingest[0] = plugins::source_entry(taken);
  try {
    service::Pipeline second(c, log.logger());
    FAIL() << "bound the same port twice";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(taken.endpoint), std::string::npos) << e.what();
  }
}

}  // namespace
