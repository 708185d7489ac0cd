// The alert sinks inside the daemon (daemon/service/pipeline/pipeline.cpp): the rules' events reach
// a webhook exactly as published while a stalled webhook drops, without slowing matching;
// their counters on /metrics; and a real Alertmanager fed by the pipeline.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "http/http_receiver.hpp"
#include "log_capture.hpp"
#include "out_alertmanager/out_alertmanager.hpp"
#include "out_webhook/out_webhook.hpp"
#include "processes/alertmanager_process.hpp"
#include "test_support.hpp"
#include "warpwatch/service/metrics.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using nlohmann::json;
using plugins::out_alertmanager::AlertmanagerOptions;
using plugins::out_webhook::WebhookOptions;

// A sink of the HTTP kind `Options` (out_webhook, out_alertmanager) at `url`.
template <class Options>
config::SinkConfig sink(const std::string& name, const std::string& url,
                        std::size_t max_batch = 100, std::size_t queue = 10000,
                        std::chrono::milliseconds timeout = 5000ms) {
  Options o;
  o.url = config::parse_http_url(url, nullptr).value();
  o.max_batch = max_batch;
  config::SinkOptions common;
  common.name = name;
  common.queue = queue;
  common.timeout = timeout;
  common.backoff = 20ms;
  common.max_backoff = 100ms;
  return plugins::sink_entry(o, common);
}

const std::vector<kernels::PatternDef> blip = {
    make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)};

std::vector<std::string> ids_of(const std::vector<Series>& series) {
  std::vector<std::string> ids;
  for (const auto& s : series) ids.push_back(s.id);
  return ids;
}

TEST(DaemonSinks, AHealthySinkGetsEveryEventWhileAStalledOneDropsWithoutSlowingMatching) {
  const auto series = frequent_series(4, 2000);  // 1600 events
  const TempDir dir;
  HttpReceiver healthy;
  HttpReceiver stalled(HttpReceiver::hold);
  auto cfg = base_config(ids_of(series), blip);
  cfg.events_file = dir.file("events.jsonl");
  cfg.drain_grace = 300ms;
  cfg.sinks.push_back(sink<WebhookOptions>("healthy", healthy.url("/in"), 64));
  cfg.sinks.push_back(sink<WebhookOptions>("stalled", stalled.url("/in"), 1, 10, 60000ms));
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  send_all(push, series, 100);
  auto longest = Clock::duration::zero();
  const auto deadline = Clock::now() + 8000ms;
  while (pipeline.registry().snapshot().accepted_samples < 4 * 2000 && Clock::now() < deadline) {
    const auto t = Clock::now();
    pipeline.step();
    longest = std::max(longest, Clock::now() - t);
  }
  pipeline.step();
  const std::uint64_t events = pipeline.stats().events;
  ASSERT_EQ(events, 4u * 2000 / 5);  // the series end in zeros: every blip is reported
  EXPECT_LT(longest, 500ms);         // a round never waits on a sink

  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.sink_counters().at(0).sent == events; }, 10000ms));
  const auto stuck = pipeline.sink_counters().at(1);
  EXPECT_EQ(stuck.sent, 0u);
  EXPECT_EQ(stuck.queued, 11u);  // its queue, and the one event under way (batches of 1)
  EXPECT_EQ(stuck.dropped + stuck.queued, events);
  const auto metrics = parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
  EXPECT_EQ(metrics.at(R"(warpwatch_sink_sent_total{sink="healthy"})"),
            static_cast<double>(events));
  EXPECT_EQ(metrics.at(R"(warpwatch_sink_dropped_total{sink="stalled"})"),
            static_cast<double>(stuck.dropped));
  EXPECT_EQ(metrics.at(R"(warpwatch_sink_queued_events{sink="stalled"})"), 11.0);
  EXPECT_EQ(metrics.at(R"(warpwatch_sink_failed_total{sink="healthy",reason="attempts"})"), 0.0);

  const auto summary = pipeline.shutdown();  // cuts the stalled request at the grace's end
  EXPECT_EQ(summary.events, events);
  const auto after = pipeline.sink_counters();
  EXPECT_EQ(after.at(0).sent, events);
  EXPECT_EQ(after.at(1).unsent_at_stop, 11u);
  EXPECT_EQ(after.at(1).dropped + after.at(1).unsent_at_stop, events);
  EXPECT_EQ(log.count("sink 'stalled': 11 event(s) not delivered when the sink stopped"), 1u)
      << log.joined();

  // The healthy sink's events are the published ones, byte for byte, each once.
  std::ifstream file(cfg.events_file.value());
  std::vector<std::string> published;
  for (std::string line; std::getline(file, line);) published.push_back(line);
  ASSERT_EQ(published.size(), events);
  std::vector<std::string> delivered;
  for (const auto& request : healthy.requests()) {
    EXPECT_EQ(request.target, "/in");
    const json body = json::parse(request.body);
    for (const auto& e : body.at("events")) delivered.push_back(e.dump());
  }
  std::vector<std::string> expected;
  for (const auto& line : published) expected.push_back(json::parse(line).dump());
  EXPECT_EQ(delivered, expected);
}

TEST(DaemonSinks, AlertmanagerHoldsOneAlertPerStreamOfTheRule) {
  const AlertmanagerProcess am(bench::free_loopback_port());
  const auto series = frequent_series(2, 50);
  auto cfg = base_config(ids_of(series), blip);
  cfg.live.rules[0].name = "pump-blips";
  cfg.live.rules[0].severity = config::Severity::warning;
  cfg.live.rules[0].labels = {{"team", "ops"}};
  cfg.live.rules[0].resolve = 600000ms;
  cfg.sinks.push_back(sink<AlertmanagerOptions>("am", am.url()));
  service::Pipeline pipeline(cfg, nullptr);
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  send_all(push, series, 10);
  ASSERT_TRUE(step_until(
      pipeline,
      [&] { return pipeline.stats().events == 20 && pipeline.sink_counters().at(0).sent == 20; },
      10000ms))
      << am.stderr_tail();
  const json alerts = json::parse(http_get(am.port(), "/api/v2/alerts").body);
  ASSERT_EQ(alerts.size(), 2u) << alerts.dump();
  std::set<std::string> streams;
  for (const json& a : alerts) {
    EXPECT_EQ(a.at("labels").at("alertname"), "pump-blips");
    EXPECT_EQ(a.at("labels").at("pattern"), "blip");
    EXPECT_EQ(a.at("labels").at("severity"), "warning");
    EXPECT_EQ(a.at("labels").at("team"), "ops");
    EXPECT_EQ(a.at("annotations").at("instance"), "e2e");
    EXPECT_EQ(a.at("status").at("state"), "active");
    streams.insert(a.at("labels").at("stream").get<std::string>());
  }
  EXPECT_EQ(streams, (std::set<std::string>{"pump.00", "pump.01"}));
}

}  // namespace
