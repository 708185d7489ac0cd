// The Alertmanager sink against a real Prometheus Alertmanager on loopback
// (tests/support/processes/alertmanager_process.hpp): alerts posted through the sink are read back
// through Alertmanager's own API (GET /api/v2/alerts).
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "alerting_support.hpp"
#include "http/http_client.hpp"
#include "log_capture.hpp"
#include "processes/alertmanager_process.hpp"
#include "warpwatch/alerting/http_sink.hpp"
#include "warpwatch/alerting/sink_payload.hpp"
#include "warpwatch/base/timestamps.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;
using alerting::HttpSink;
using alerting::SharedEvent;
using nlohmann::json;

// Event `sequence` of rule pump-shapes on `stream`, labelled team=ops, detected at
// `detected_ns` (now: Alertmanager drops an alert whose endsAt has passed), resolving after
// 10 minutes.
SharedEvent event(const std::string& stream, std::uint64_t sequence, std::int64_t detected_ns) {
  alerting::Event e = sample_event("pump-shapes", stream);
  e.detected_ns = detected_ns;
  e.sequence = sequence;
  e.labels = {{"team", "ops"}};
  e.resolve = 600000ms;
  return std::make_shared<const alerting::Event>(std::move(e));
}

// An Alertmanager's settings as its plugin (daemon/plugins/out_alertmanager/) gives them to
// the sink for a base URL without a route prefix.
struct Alertmanager {
  config::SinkOptions sink;
  alerting::HttpSinkOptions http;
};

Alertmanager alertmanager(const std::string& url) {
  Alertmanager c;
  c.http.url = config::parse_http_url(url, nullptr).value();
  c.http.target = "/api/v2/alerts";
  c.http.body = [](std::span<const alerting::SharedEvent> e) {
    return alerting::alertmanager_body(e);
  };
  c.sink.name = "alertmanager test";
  c.sink.timeout = 2000ms;
  c.sink.backoff = 50ms;
  c.sink.max_backoff = 200ms;
  return c;
}

// Alertmanager's alerts (GET /api/v2/alerts), keyed by their stream label.
std::map<std::string, json> alerts_by_stream(int port) {
  const auto response = http_get(port, "/api/v2/alerts");
  EXPECT_EQ(response.status, 200) << response.body;
  std::map<std::string, json> out;
  for (const json& a : json::parse(response.body)) out[a.at("labels").at("stream")] = a;
  return out;
}

TEST(AlertmanagerSink, AlertsReadBackWithLabelsAnnotationsAndTimes) {
  const AlertmanagerProcess am(bench::free_loopback_port());
  const auto c = alertmanager(am.url());
  HttpSink sink(c.sink, c.http, nullptr);
  const std::int64_t now = stream::wall_clock_ns();
  sink.offer(
      std::vector<SharedEvent>{event("pump-1", 1, now), event("pump-2", 2, now + 1'000'000)});
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 2; }))
      << "failed " << sink.counters().failed << ", rejected " << sink.counters().rejected << "\n"
      << am.stderr_tail();

  const auto alerts = alerts_by_stream(am.port());
  ASSERT_EQ(alerts.size(), 2u);
  const json& a = alerts.at("pump-1");
  EXPECT_EQ(a.at("labels"), (json{{"alertname", "pump-shapes"},
                                  {"stream", "pump-1"},
                                  {"pattern", "spike"},
                                  {"severity", "warning"},
                                  {"team", "ops"}}));
  // The annotations as sent (their contents: SinkPayload's tests), the detection time's here.
  const SharedEvent sent = event("pump-1", 1, now);
  EXPECT_EQ(a.at("annotations"),
            json::parse(alerting::alertmanager_body({&sent, 1}))[0].at("annotations"));
  EXPECT_EQ(a.at("annotations").at("detected"), alerting::rfc3339(now));
  EXPECT_EQ(a.at("startsAt"), alerting::rfc3339(now));
  EXPECT_EQ(a.at("endsAt"), alerting::rfc3339(now + 600'000'000'000));  // resolve: 10 min
  EXPECT_EQ(a.at("status").at("state"), "active");
  EXPECT_EQ(alerts.at("pump-2").at("startsAt"), alerting::rfc3339(now + 1'000'000));
  EXPECT_EQ(alerts.at("pump-2").at("annotations").at("sequence"), "2");
}

// The same labels are one alert in Alertmanager: a later event keeps it firing longer.
TEST(AlertmanagerSink, ALaterEventOfTheSameAlertExtendsIt) {
  const AlertmanagerProcess am(bench::free_loopback_port());
  const auto c = alertmanager(am.url());
  HttpSink sink(c.sink, c.http, nullptr);
  const std::int64_t first = stream::wall_clock_ns();
  sink.offer(std::vector<SharedEvent>{event("pump-1", 1, first)});
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 1; }));
  const std::int64_t second = first + 2'000'000'000;
  sink.offer(std::vector<SharedEvent>{event("pump-1", 2, second)});
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 2; }));
  const auto alerts = alerts_by_stream(am.port());
  ASSERT_EQ(alerts.size(), 1u);
  const json& a = alerts.at("pump-1");
  EXPECT_EQ(a.at("startsAt"), alerting::rfc3339(first));
  EXPECT_EQ(a.at("endsAt"), alerting::rfc3339(second + 600'000'000'000));
  EXPECT_EQ(a.at("annotations").at("sequence"), "2");
}

// Alertmanager down at first: the sink retries until it is up, then the alert is there.
TEST(AlertmanagerSink, RetriesUntilAlertmanagerComesUp) {
  const int port = bench::free_loopback_port();
  auto c = alertmanager("http://127.0.0.1:" + std::to_string(port));
  c.sink.max_attempts = 1000;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(std::vector<SharedEvent>{event("pump-9", 1, stream::wall_clock_ns())});
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.retried >= 2; }));
  EXPECT_EQ(sink.counters().sent, 0u);
  EXPECT_EQ(sink.counters().queued, 1u);
  const AlertmanagerProcess am(port);
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 1; }));
  EXPECT_EQ(alerts_by_stream(am.port()).count("pump-9"), 1u);
  EXPECT_EQ(sink.counters().failed, 0u);
  EXPECT_EQ(log.count("request failed (connect: Connection refused)"), 1u) << log.joined();
  EXPECT_EQ(log.count("delivering again"), 1u) << log.joined();
}

// Alertmanager refuses what it cannot take, here a label name that is not one (the
// configuration refuses such rule labels when an Alertmanager sink is configured): a 400,
// given up at once, not retried.
TEST(AlertmanagerSink, ARefusedBatchIsCountedNotRetried) {
  const AlertmanagerProcess am(bench::free_loopback_port());
  CapturedLog log;
  const auto c = alertmanager(am.url());
  HttpSink sink(c.sink, c.http, log.logger());
  alerting::Event bad = *event("pump-1", 1, stream::wall_clock_ns());
  bad.labels = {{"bad-name", "x"}};
  sink.offer(std::vector<SharedEvent>{std::make_shared<const alerting::Event>(bad)});
  ASSERT_TRUE(
      wait_counters(sink, [](const auto& k) { return k.sent + k.rejected + k.failed == 1; }));
  EXPECT_EQ(sink.counters().rejected, 1u) << "sent " << sink.counters().sent;
  EXPECT_EQ(sink.counters().retried, 0u);
  EXPECT_EQ(log.count("the receiver refused them: HTTP 400"), 1u) << log.joined();
  EXPECT_EQ(log.count("bad-name"), 1u) << log.joined();  // Alertmanager's own words
}

}  // namespace
